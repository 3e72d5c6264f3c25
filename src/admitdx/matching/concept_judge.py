"""LLM-judged concept recall (ER-Reason task 3): a model lists the physician's concepts, then says
which of them the model's answer covers; recall = covered / listed.

``admitdx judge-concepts`` runs this stage; it writes ``<predictions>/concepts/llm_judge.jsonl``
(:mod:`admitdx.matching.concept_judgements`), which ``admitdx score --concept-extractor llm_judge``
reads, as the diagnosis judge's pairs are written by ``admitdx match`` and read by scoring.

Why two questions, not one: the concept list is the denominator, and it must be the same for every
system judged against the same rationale. The listing request depends on the rationale alone, so
the LLM cache (temperature 0, key = messages + schema + prompt hash) answers it once and every
system, and every rerun, is divided by the same list. The second request numbers that list and
asks which numbers the answer covers; the schema bounds the numbers to the list. Answers are
validated like the diagnosis judge's pairs: an entry out of range, repeated or not a number is
dropped and counted; an answer that cannot be read at all is kept raw with its error, counted,
and scores no concept covered (a listing that cannot be read leaves the part unscored, counted).
An empty answer part is not sent: it covers nothing.

The prompts are versioned templates (``prompts/concept_list_v1.txt``, ``concept_cover_v1.txt``)
whose names and hashes enter the cache key. Requests go through :class:`admitdx.llm.client.LLMClient`
(cache, retries, egress guard); ``local=True`` starts the bundled llama.cpp server. A 135M model
proves the path, not clinical judgement.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from admitdx.contracts import INSTANCES_FILE, PREDICTIONS_FILE, load_instances, load_predictions
from admitdx.errors import UsageError
from admitdx.jsonl import write_jsonl
from admitdx.llm.client import ChatRequest, Completion, LLMClient
from admitdx.llm.config import LLMConfig
from admitdx.llm.local_server import LocalServer
from admitdx.matching.concept_judgements import judgements_path, part_texts
from admitdx.matching.llm_judge import numbered, read_prompt
from admitdx.provenance import check_predictions_dataset
from admitdx.runs import exclusive, sha256_file, sha256_text

PROMPTS = Path(str(resources.files("admitdx.matching") / "prompts"))
LIST_PROMPT = PROMPTS / "concept_list_v1.txt"
COVER_PROMPT = PROMPTS / "concept_cover_v1.txt"
MAX_CONCEPTS = 30


def list_schema() -> dict[str, Any]:
    concepts = {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": MAX_CONCEPTS}
    return {"type": "object", "properties": {"concepts": concepts}, "required": ["concepts"]}


def cover_schema(n_concepts: int) -> dict[str, Any]:
    number = {"type": "integer", "minimum": 1, "maximum": n_concepts}
    covered = {"type": "array", "items": number, "maxItems": n_concepts}
    return {"type": "object", "properties": {"covered": covered}, "required": ["covered"]}


def _entries(parsed: Any, key: str) -> list[Any]:
    entries = parsed.get(key) if isinstance(parsed, dict) else None
    if not isinstance(entries, list):
        raise ValueError(f"the answer has no {key!r} list")
    return entries


def read_concepts(parsed: Any) -> tuple[list[str], list[Any]]:
    """(concepts, dropped): strings with a letter or digit (a copied "..." placeholder is not a
    concept), first spelling of each (case-insensitive) kept."""
    kept: list[str] = []
    dropped: list[Any] = []
    seen: set[str] = set()
    for entry in _entries(parsed, "concepts"):
        text = entry.strip() if isinstance(entry, str) else ""
        if not any(ch.isalnum() for ch in text) or text.casefold() in seen:
            dropped.append(entry)
            continue
        seen.add(text.casefold())
        kept.append(text)
    return kept, dropped


def read_covered(parsed: Any, n_concepts: int) -> tuple[list[int], list[Any]]:
    """(0-based covered indices, dropped): integers 1..n, each once (a boolean is not a number)."""
    kept: set[int] = set()
    dropped: list[Any] = []
    for entry in _entries(parsed, "covered"):
        if type(entry) is not int or not 1 <= entry <= n_concepts or entry - 1 in kept:
            dropped.append(entry)
            continue
        kept.add(entry - 1)
    return sorted(kept), dropped


def _template(path: Path) -> tuple[str, str, dict[str, str]]:
    system, user = read_prompt(path)
    return system, user, {"template": path.name, "sha256": sha256_text(system + "\n" + user)}


class ConceptJudge:
    """``ConceptJudge(llm={...LLMConfig options}, local=False, allow_hosts=None, list_prompt=None,
    cover_prompt=None)``; :meth:`judge` answers (reference, answer) pairs."""

    name = "llm_judge"

    def __init__(
        self,
        llm: dict[str, Any] | None = None,
        local: bool = False,
        allow_hosts: list[dict[str, Any]] | None = None,
        list_prompt: str | Path | None = None,
        cover_prompt: str | Path | None = None,
    ) -> None:
        if llm is not None and not isinstance(llm, dict):
            raise UsageError(
                f"the concept judge's llm parameter must be a mapping of LLM options, not {llm!r}",
                hint="e.g. --set 'llm={base_url: http://127.0.0.1:8080/v1, model: local}'",
            )
        self.list_template = _template(Path(list_prompt) if list_prompt else LIST_PROMPT)
        self.cover_template = _template(Path(cover_prompt) if cover_prompt else COVER_PROMPT)
        self.server = LocalServer().start() if local else None
        try:
            base = self.server.config() if self.server else LLMConfig()
            config = LLMConfig.from_options({**dataclasses.asdict(base), **(llm or {})})
            alive = self.server.check_alive if self.server else None
            self.config, self.client = config, LLMClient(config, allow_hosts=allow_hosts, liveness=alive)
        except BaseException:  # a refused option or host must not leave the server running
            self.close()
            raise

    def params(self) -> dict[str, Any]:
        """Prompts and model identity; not the base URL (a local server gets a new port each run)."""
        return {
            "prompts": {"list": self.list_template[2], "cover": self.cover_template[2]},
            "model": self.config.model,
            "model_revision": self.config.model_revision,
            "sampling": self.config.sampling(),
            "structured": self.config.structured,
        }

    @staticmethod
    def _request(
        template: tuple[str, str, dict[str, str]], schema: dict[str, Any], **texts: str
    ) -> ChatRequest:
        system, user, prompt_id = template
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": Template(user).substitute(**texts)},
        ]
        return ChatRequest(messages, schema, key_extra={"prompt": prompt_id})

    def _ask(self, requests: list[ChatRequest]) -> list[Completion]:
        answers = dict(self.client.map(requests))  # every request answered, or map raised
        return [answers[i] for i in range(len(requests))]

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
        """One judgement per (reference, answer): the listed concepts, the covered indices, what
        was dropped, and each step's raw answer and error (see the module docstring)."""
        references = list(dict.fromkeys(ref for ref, _ in pairs))
        listings = self._ask(
            [self._request(self.list_template, list_schema(), reference=r) for r in references]
        )
        listed = dict(zip(references, (self._listing(c) for c in listings), strict=True))
        out = [{**listed[ref], "covered": [], "cover_error": None, "cover_raw": None} for ref, _ in pairs]
        asked = [i for i, (ref, ans) in enumerate(pairs) if listed[ref]["concepts"] and ans.strip()]
        requests = [
            self._request(
                self.cover_template,
                cover_schema(len(out[i]["concepts"])),
                concepts=numbered(out[i]["concepts"]),
                answer=pairs[i][1],
            )
            for i in asked
        ]
        for i, completion in zip(asked, self._ask(requests), strict=True):
            out[i]["cover_raw"] = completion.raw
            try:
                if completion.parse_error:
                    raise ValueError(completion.parse_error)
                covered, dropped = read_covered(completion.parsed, len(out[i]["concepts"]))
            except ValueError as e:
                out[i]["cover_error"] = str(e)
                continue
            out[i]["covered"], out[i]["dropped"] = covered, out[i]["dropped"] + dropped
        return out

    @staticmethod
    def _listing(completion: Completion) -> dict[str, Any]:
        record: dict[str, Any] = {
            "concepts": None,
            "dropped": [],
            "list_error": None,
            "list_raw": completion.raw,
        }
        try:
            if completion.parse_error:
                raise ValueError(completion.parse_error)
            record["concepts"], record["dropped"] = read_concepts(completion.parsed)
        except ValueError as e:
            record["list_error"] = str(e)
        return record

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()


def run_concept_judge(
    judge: ConceptJudge, dataset_dir: Path, predictions_dir: Path, *, allow_no_manifest: bool = False
) -> dict[str, Any]:
    """Judge every text part of every instance in the predicted split (an unpredicted instance
    is judged with an empty answer, so scoring finds every part); write the judgements and a
    summary beside them; return the summary. Predictions without a predict manifest are judged
    only with ``allow_no_manifest`` (:mod:`admitdx.provenance`)."""
    path = judgements_path(predictions_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(path.parent, "judge-concepts"):
        instances = load_instances(dataset_dir)
        provenance = check_predictions_dataset(
            dataset_dir,
            instances,
            predictions_dir,
            allow_label_change=False,
            allow_no_manifest=allow_no_manifest,
        )
        if not (Path(predictions_dir) / PREDICTIONS_FILE).exists():
            raise UsageError(
                f"{predictions_dir} has no {PREDICTIONS_FILE}", hint="run `admitdx predict` first"
            )
        predictions = {p.instance_id: p for p in load_predictions(predictions_dir)}
        systems = {p.system for p in predictions.values()}
        splits = {i.split for i in instances if i.id in predictions}
        keys, pairs = [], []
        for inst in instances:
            if inst.split not in splits:
                continue
            prediction = predictions.get(inst.id)
            answer = part_texts(prediction.answer) if prediction else {}
            for part, reference in part_texts(inst.target).items():
                if reference.strip():
                    keys.append((inst.id, part))
                    pairs.append((reference, answer.get(part, "")))
        if not pairs:
            raise UsageError(
                f"{dataset_dir} has no text target to judge", hint="judge-concepts scores text tasks"
            )
        judged = judge.judge(pairs)
        system = systems.pop() if len(systems) == 1 else Path(predictions_dir).name
        records = [
            {"instance_id": i, "system": system, "part": part, "reference_sha256": sha256_text(ref),
             "answer_sha256": sha256_text(ans), **j}
            for (i, part), (ref, ans), j in zip(keys, pairs, judged, strict=True)
        ]  # fmt: skip
        tmp = path.with_suffix(".jsonl.tmp")
        write_jsonl(tmp, records)
        os.replace(tmp, path)
        summary = {
            "judge": judge.name,
            "params": judge.params(),
            "inputs": {
                INSTANCES_FILE: sha256_file(Path(dataset_dir) / INSTANCES_FILE),
                PREDICTIONS_FILE: sha256_file(Path(predictions_dir) / PREDICTIONS_FILE),
            },
            "parts": len(records),
            "listing_failures": sum(r["list_error"] is not None for r in records),
            "cover_failures": sum(r["cover_error"] is not None for r in records),
            "dropped_entries": sum(len(r["dropped"]) for r in records),
            "model_calls": judge.client.stats.model_calls,
            "llm_cache_hits": judge.client.stats.cache_hits,
            # what the judgements cost, as predict records it (admitdx.llm.usage)
            "tokens": judge.client.stats.tokens.summary(judge.config.price_per_million),
            "provenance": provenance,
        }
        summary_path = path.with_suffix(".summary.json")
        summary_path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return summary
