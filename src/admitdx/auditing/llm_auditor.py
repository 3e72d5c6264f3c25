"""The LLM evidence auditor (EarlyDx §3.3): supported / partial / unsupported, with a quote.

For each (instance, reference label) pair the model sees the whole admission-time record and the
label, and answers ``{"evidence_class": ..., "quote": ...}`` under a JSON schema (prompt
``audit.v1``). Greedy decoding, as EarlyDx runs its verifier at temperature 0 (appendix K). An
answer that cannot be read keeps its raw text and parse error and leaves the label unaudited
(``evidence_class`` None) — counted in the manifest, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from admitdx.auditing.prompts import PROMPT_DIR
from admitdx.auditing.verdict import EVIDENCE_CLASSES, Verdict
from admitdx.contracts import Instance
from admitdx.executors import Endpoint, Executor, or_local
from admitdx.llm.client import ChatRequest, Completion, LLMClient
from admitdx.llm.prompts import load_prompt
from admitdx.tasks.answers import free_text

#: Spellings a model may use for each class (normalised: lower-case, spaces for _ and -).
_SYNONYMS = {"partially supported": "partial", "partial support": "partial", "not supported": "unsupported"}


def audit_schema(quote_max_chars: int | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "evidence_class": {"type": "string", "enum": list(EVIDENCE_CLASSES)},
            "quote": free_text(quote_max_chars),
        },
        "required": ["evidence_class", "quote"],
        "additionalProperties": False,
    }


def read_verdict(c: Completion) -> Verdict:
    if c.parse_error is not None:
        return Verdict(None, "", raw=c.raw, parse_error=c.parse_error)
    value = c.parsed if isinstance(c.parsed, dict) else {}
    label = " ".join(str(value.get("evidence_class", "")).lower().replace("_", " ").replace("-", " ").split())
    label = _SYNONYMS.get(label, label)
    if label not in EVIDENCE_CLASSES:
        return Verdict(None, "", raw=c.raw, parse_error=f"no valid evidence_class in the answer ({label!r})")
    quote = value.get("quote") if isinstance(value.get("quote"), str) else ""
    return Verdict(label, quote, raw=c.raw)  # type: ignore[arg-type]


class LLMAuditor:
    def __init__(
        self,
        client: LLMClient,
        *,
        prompt: str = "audit.v1",
        quote_max_chars: int | None = None,
        executor: Executor | None = None,
        endpoints: list[Endpoint] | None = None,
    ) -> None:
        """``executor`` says where the calls run (default: this process, against the client's base
        URL); ``endpoints`` (egress-checked, :func:`admitdx.executors.parse_endpoints`) replace it."""
        self.name = "llm"
        self.client = client
        self.executor = or_local(executor)
        self.listed_endpoints = endpoints
        self.endpoints = endpoints or [
            Endpoint(client.config.base_url, client.config.concurrency, client.egress)
        ]
        self.template = load_prompt(prompt, PROMPT_DIR)
        self.schema = audit_schema(quote_max_chars)

    def identity(self) -> dict[str, Any]:
        identity = {
            "auditor": self.name,
            "prompt": self.template.identity(),
            "llm": self.client.config.identity(),
            "egress": self.client.egress,
        }
        if self.listed_endpoints is not None:
            identity["endpoints_egress"] = [e.egress for e in self.listed_endpoints]
        return identity

    def summary(self) -> dict[str, Any]:
        """The calls behind the verdicts, for the manifest's outputs (with the Ray executors'
        per-endpoint counts)."""
        stats = self.client.stats
        return {
            "model_calls": stats.model_calls,
            "cache_hits": stats.cache_hits,
            "retries": stats.retries,
            # what the verdicts cost, as predict records it (admitdx.llm.usage)
            "tokens": stats.tokens.summary(self.client.config.price_per_million),
            **self.executor.summary(),
        }

    def request(self, instance: Instance, ref_index: int) -> ChatRequest:
        messages = self.template.render(record=instance.text, label=instance.references[ref_index].text)
        return ChatRequest(messages, self.schema, {"prompt": self.template.identity()})

    def audit_many(self, pairs: Iterable[tuple[Instance, int]]) -> Iterator[tuple[Instance, int, Verdict]]:
        todo = list(pairs)
        requests = (self.request(inst, ref) for inst, ref in todo)
        for i, completion in self.executor.map(self.client, requests, self.endpoints):
            inst, ref = todo[i]
            yield inst, ref, read_verdict(completion)
