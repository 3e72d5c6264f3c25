"""LLM-as-judge matcher (EarlyDx section 3.5): a model returns the matched pairs as JSON.

EarlyDx's judge computes a one-to-one matching between the predicted and the reference list and
returns the matched count m. Here the judge returns the **pairs**, and the count is derived from
the pairs that survive validation, so R@k and per-label recall can be computed from the same
decision. Validation drops any pair that is out of range (a number the lists do not have) or that
reuses a prediction or reference already paired; every dropped pair is a *judge error*, counted
in the Match's details and the run summary, and an answer that cannot be parsed at all is kept
raw with its parse error, scored as no matches and counted — never silently dropped.

The prompt is a versioned template file (``prompts/judge_v1.txt``; ``$references`` and
``$predictions`` are numbered from 1); its name and SHA-256 enter both this matcher's cache key and
the LLM client's. Requests go through :class:`admitdx.llm.client.LLMClient` (temperature 0 by
default, as in EarlyDx appendix K; cached in SQLite; the egress guard applies) with a JSON schema
that bounds the numbers to the lists' lengths. Instances with no prediction or no reference are
not sent: their matching is empty by definition.

``local=True`` starts the embedded llama.cpp server (SmolLM2-135M by default) for the run; a
135M model proves the path works, not that its judgements are clinically right.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from admitdx.errors import UsageError
from admitdx.executors import Executor, or_local, parse_endpoints
from admitdx.llm.client import ChatRequest, Completion, LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.egress import parse_allow_hosts
from admitdx.llm.local_server import LocalServer
from admitdx.matching.base import Matcher, MatchOutcome, MatchTask
from admitdx.runs import sha256_text

DEFAULT_PROMPT = Path(str(resources.files("admitdx.matching") / "prompts" / "judge_v1.txt"))


def read_prompt(path: Path) -> tuple[str, str]:
    """(system, user) templates from a file with ``[system]`` and ``[user]`` sections."""
    text = Path(path).read_text(encoding="utf-8")
    head, _, user = text.partition("[user]\n")
    system = head.removeprefix("[system]\n")
    if not user:
        raise ValueError(f"{path}: a judge prompt needs a [user] section")
    return system.strip(), user.strip()


def numbered(texts: Sequence[str]) -> str:
    return "\n".join(f"{i}. {t}" for i, t in enumerate(texts, start=1))


def pairs_schema(n_predictions: int, n_references: int) -> dict[str, Any]:
    """JSON schema of the answer, with the numbers bounded to the lists (1-based)."""
    item = {
        "type": "object",
        "properties": {
            "prediction": {"type": "integer", "minimum": 1, "maximum": n_predictions},
            "reference": {"type": "integer", "minimum": 1, "maximum": n_references},
        },
        "required": ["prediction", "reference"],
    }
    return {
        "type": "object",
        "properties": {
            "pairs": {"type": "array", "items": item, "maxItems": min(n_predictions, n_references)}
        },
        "required": ["pairs"],
    }


def validate_pairs(
    parsed: Any, n_predictions: int, n_references: int
) -> tuple[list[tuple[int, int]], list[Any]]:
    """(kept 0-based pairs, dropped raw entries) from a judge answer.

    An entry is dropped when it is not a {prediction, reference} object of integers, is out of
    range, or reuses a prediction or reference an earlier entry already paired (first one wins).
    """
    entries = parsed.get("pairs") if isinstance(parsed, dict) else None
    if not isinstance(entries, list):
        raise ValueError("the answer has no 'pairs' list")
    kept: list[tuple[int, int]] = []
    dropped: list[Any] = []
    used_p: set[int] = set()
    used_r: set[int] = set()
    for entry in entries:
        p = entry.get("prediction") if isinstance(entry, dict) else None
        r = entry.get("reference") if isinstance(entry, dict) else None
        ok = type(p) is int and type(r) is int and 1 <= p <= n_predictions and 1 <= r <= n_references
        if not ok or p - 1 in used_p or r - 1 in used_r:
            dropped.append(entry)
            continue
        used_p.add(p - 1)
        used_r.add(r - 1)
        kept.append((p - 1, r - 1))
    return sorted(kept), dropped


class LlmJudgeMatcher(Matcher):
    """``LlmJudgeMatcher(llm={...LLMConfig options}, prompt=None, local=False, allow_hosts=None)``."""

    name = "llm_judge"

    def __init__(
        self,
        llm: dict[str, Any] | None = None,
        prompt: str | Path | None = None,
        local: bool = False,
        allow_hosts: list[dict[str, Any]] | None = None,
        endpoints: list[Any] | None = None,
        executor: Executor | None = None,
    ) -> None:
        """``endpoints`` (URLs or {url, concurrency}) spread the calls when ``executor`` is the Ray
        executor (``match --executor ray``); like the base URL they say how answers are fetched, so
        they are not in :meth:`params`."""
        self.prompt_path = Path(prompt) if prompt else DEFAULT_PROMPT
        self.system_template, self.user_template = read_prompt(self.prompt_path)
        self.prompt_id = {
            "template": self.prompt_path.name,
            "sha256": sha256_text(self.system_template + "\n" + self.user_template),
        }
        if llm is not None and not isinstance(llm, dict):
            raise UsageError(
                f"the judge's llm parameter must be a mapping of LLM options, not {llm!r}",
                hint="e.g. --param 'llm={base_url: http://127.0.0.1:8080/v1, model: local}'",
            )
        self.server = LocalServer().start() if local else None
        try:
            base = self.server.config() if self.server else LLMConfig()
            # from_options names an unknown key (a typo) instead of failing inside dataclasses.replace
            self.config = LLMConfig.from_options({**dataclasses.asdict(base), **llm}) if llm else base
            liveness = self.server.check_alive if self.server is not None else None
            self.client = LLMClient(self.config, allow_hosts=allow_hosts, liveness=liveness)
            self.executor = or_local(executor)
            self.endpoints = parse_endpoints(
                endpoints,
                base_url=self.config.base_url,
                concurrency=self.config.concurrency,
                allow_hosts=parse_allow_hosts(allow_hosts, "the judge's allow_hosts"),
                proxy=self.config.proxy,
            )
        except BaseException:  # a refused option or host must not leave the server running
            self.close()
            raise

    def params(self) -> dict[str, Any]:
        """Prompt and model identity; not the base URL (a local server gets a new port each run)."""
        return {
            "prompt": self.prompt_id,
            "model": self.config.model,
            "model_revision": self.config.model_revision,
            "sampling": self.config.sampling(),
            "structured": self.config.structured,
        }

    def request(self, task: MatchTask) -> ChatRequest:
        user = Template(self.user_template).substitute(
            references=numbered(task.references), predictions=numbered(task.predictions)
        )
        messages = [{"role": "system", "content": self.system_template}, {"role": "user", "content": user}]
        schema = pairs_schema(len(task.predictions), len(task.references))
        return ChatRequest(messages, schema, key_extra={"prompt": self.prompt_id})

    def match(self, task: MatchTask) -> MatchOutcome:
        return self.match_many([task])[0]

    def match_many(self, tasks: Sequence[MatchTask]) -> list[MatchOutcome]:
        asked = [i for i, t in enumerate(tasks) if t.predictions and t.references]
        outcomes = [MatchOutcome(pairs=[], details={"judged": False, "judge_errors": 0}) for _ in tasks]
        requests = [self.request(tasks[i]) for i in asked]
        for n, completion in self.executor.map(self.client, requests, self.endpoints):
            task = tasks[asked[n]]
            outcomes[asked[n]] = self._outcome(completion, len(task.predictions), len(task.references))
        return outcomes

    @staticmethod
    def _outcome(completion: Completion, n_predictions: int, n_references: int) -> MatchOutcome:
        details: dict[str, Any] = {"judged": True, "raw": completion.raw, "cached": completion.cached}
        try:
            if completion.parse_error:
                raise ValueError(completion.parse_error)
            pairs, dropped = validate_pairs(completion.parsed, n_predictions, n_references)
        except ValueError as e:
            details.update(parse_error=str(e), judge_errors=1, dropped=[])
            return MatchOutcome(pairs=[], details=details)
        details.update(judge_errors=len(dropped), dropped=dropped)
        return MatchOutcome(pairs=pairs, details=details)

    def summarize(self, outcomes: Sequence[MatchOutcome]) -> dict[str, Any]:
        judged = [o for o in outcomes if o.details.get("judged")]
        return {
            "judged": len(judged),
            "parse_failures": sum(1 for o in judged if "parse_error" in o.details),
            "dropped_pairs": sum(len(o.details.get("dropped", [])) for o in judged),
            "judge_errors": sum(o.details.get("judge_errors", 0) for o in judged),
            "model_calls": self.client.stats.model_calls,
            "llm_cache_hits": self.client.stats.cache_hits,
            # what the judgements cost, as predict records it (admitdx.llm.usage)
            "tokens": self.client.stats.tokens.summary(self.config.price_per_million),
            **self.executor.summary(),  # the Ray executors' per-endpoint counts; nothing for local
        }

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
