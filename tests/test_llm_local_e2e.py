"""End to end against the real embedded llama.cpp server with SmolLM2-135M-Instruct.

SmolLM2-135M proves the path works (schema-constrained output parses, the cache makes reruns free,
cache-only mode reproduces; the auditor and the rationale teacher write one record per item), not
clinical skill: nothing here checks that a diagnosis, verdict or rationale is right.
The server starts once for this module, with a small context so the tests stay fast on 2 cores.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from admitdx.auditing import LLMAuditor, audit_dataset
from admitdx.auditing.prompts import PROMPT_DIR
from admitdx.auditing.rationale import write_rationales
from admitdx.contracts import INSTANCES_FILE, Instance, Reference, load_instances, load_predictions
from admitdx.errors import UsageError
from admitdx.jsonl import read_jsonl, write_jsonl
from admitdx.llm import LLMClient
from admitdx.llm.local_server import LocalServer, llama_cpp_available
from admitdx.llm.prompts import load_prompt
from admitdx.runs import read_manifest
from admitdx.systems import create
from admitdx.systems.config import SystemChoice
from admitdx.systems.runner import run_predictions
from admitdx.tasks.registry import get_task

pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(
        not llama_cpp_available(), reason="llama-cpp-python not installed (admitdx[local] extra)"
    ),
]

RECORDS = {
    "te1": "Chief complaint: chest pain. Troponin T 2.3 ng/mL (high). ECG: ST elevation in II, III, aVF.",
    "te2": "Chief complaint: cough, fever. Temp 39.1 C. Chest X-ray: right lower lobe consolidation.",
    "te3": "Chief complaint: weakness. Potassium 6.9 mEq/L (high). Creatinine 4.2 mg/dL (high).",
    "te4": "Chief complaint: palpitations. ECG: atrial fibrillation, rapid ventricular response, rate 142.",
}
TRAIN = {
    "tr1": (
        "Chief complaint: dyspnea. BNP 2400 pg/mL. Chest X-ray: pulmonary edema.",
        "Acute systolic heart failure",
    ),
    "tr2": ("Chief complaint: chest pain. Troponin I 5.1 ng/mL (high).", "NSTEMI"),
    "tr3": ("Chief complaint: fever, cough. Chest X-ray: left lobar consolidation.", "Pneumonia"),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with LocalServer(n_ctx=1024, log_path=log) as srv:
        yield srv


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("ds")
    rows = [
        Instance(iid, n, "earlydx", "train", {"chief_complaint": text}, text,
                 [Reference(label, evidence_class="supported")])
        for n, (iid, (text, label)) in enumerate(TRAIN.items())
    ] + [
        Instance(iid, 10 + n, "earlydx", "test", {"chief_complaint": text}, text, [Reference("hidden")])
        for n, (iid, text) in enumerate(RECORDS.items())
    ]  # fmt: skip
    write_jsonl(directory / INSTANCES_FILE, (r.to_dict() for r in rows))
    return directory


def _choice(server: LocalServer, cache: Path, **options: Any) -> SystemChoice:
    base = dataclasses.asdict(server.config(structured="auto", max_tokens=120, cache_path=cache))
    base.pop("structured")  # "auto": must discover llama-cpp-python's dialect by itself
    return SystemChoice("smollm", "llm", {**base, "max_items": 5, **options})


def _run(dataset: Path, out: Path, choice: SystemChoice, limit: int | None = None) -> list:
    run_predictions(dataset, choice, out, show_progress=False, limit=limit)
    return sorted(load_predictions(out), key=lambda p: p.instance_id)


def test_predictions_parse_rerun_is_free_and_cache_only_reproduces(
    server: LocalServer, dataset: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    first = _run(dataset, tmp_path / "a", _choice(server, cache))
    assert [p.instance_id for p in first] == sorted(RECORDS)
    for p in first:
        assert p.parse_error is None, p.raw
        assert 1 <= len(p.items) <= 5  # the schema's minItems/maxItems held
        assert all(3 <= len(item.text) <= 70 for item in p.items)
        assert p.usage and p.usage["completion_tokens"] > 0
    fit = read_manifest(tmp_path / "a")["outputs"]["fit"]
    assert (fit["model_calls"], fit["cache_hits"]) == (4, 0)

    again = _run(dataset, tmp_path / "b", _choice(server, cache))
    fit = read_manifest(tmp_path / "b")["outputs"]["fit"]
    assert (fit["model_calls"], fit["cache_hits"]) == (0, 4)
    assert [(p.items, p.raw) for p in again] == [(p.items, p.raw) for p in first]

    offline = _run(dataset, tmp_path / "c", _choice(server, cache, cache_only=True))
    assert [(p.items, p.raw) for p in offline] == [(p.items, p.raw) for p in first]
    with pytest.raises(UsageError, match="cache-only"):  # a prompt never asked before is not in the cache
        _run(dataset, tmp_path / "d", _choice(server, cache, cache_only=True, prompt="cot"))


def test_chain_of_thought_with_graded_items(server: LocalServer, dataset: Path, tmp_path: Path) -> None:
    choice = _choice(server, tmp_path / "cache.sqlite", prompt="cot", graded=True, reasoning_max_chars=200,
                     max_tokens=200)  # fmt: skip
    predictions = _run(dataset, tmp_path / "cot", choice, limit=2)
    for p in predictions:
        assert p.parse_error is None, p.raw
        assert p.rationale and p.raw.index('"reasoning"') < p.raw.index('"diagnoses"')
        assert all(item.status in ("confirmed", "suspected") for item in p.items)
        # llama.cpp's grammar does not enforce minimum/maximum: an out-of-range confidence is dropped
        raw_conf: dict[str, float] = {}
        for entry in json.loads(p.raw)["diagnoses"]:  # the first of case-duplicates is the one kept
            raw_conf.setdefault(entry["diagnosis"].strip(), entry["confidence"])
        for item in p.items:
            expected = raw_conf[item.text] if 0 <= raw_conf[item.text] <= 1 else None
            assert item.confidence == expected


def test_few_shot_shows_retrieved_exemplars(server: LocalServer, dataset: Path, tmp_path: Path) -> None:
    choice = _choice(server, tmp_path / "cache.sqlite", prompt="few-shot", k=2)
    predictions = _run(dataset, tmp_path / "fs", choice, limit=1)
    assert predictions[0].parse_error is None, predictions[0].raw
    system = create("llm", **choice.options, task=get_task("earlydx"))
    system.fit([Instance.from_dict(r) for r in _rows(dataset) if r["split"] == "train"])
    messages = system.request(Instance.from_dict(_rows(dataset)[3])).messages
    # te1 (chest pain, troponin) retrieves the chest-pain exemplar last, right before the question
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert (
        messages[-3]["content"] == TRAIN["tr2"][0] and messages[-2]["content"] == '{"diagnoses": ["NSTEMI"]}'
    )


def _rows(dataset: Path) -> list[dict]:
    return list(read_jsonl(dataset / INSTANCES_FILE))


def test_llm_auditor_writes_a_verdict_or_a_kept_failure_per_label(
    server: LocalServer, dataset: Path, tmp_path: Path
) -> None:
    train_only = tmp_path / "train-only"
    write_jsonl(train_only / INSTANCES_FILE, (r for r in _rows(dataset) if r["split"] == "train"))
    client = LLMClient(server.config(cache_path=tmp_path / "cache.sqlite", max_tokens=150))
    outputs = audit_dataset(train_only, tmp_path / "audited", LLMAuditor(client))
    records = list(read_jsonl(tmp_path / "audited" / "audit.jsonl"))
    assert sorted(r["instance_id"] for r in records) == sorted(TRAIN)
    for r in records:
        assert r["raw"]  # the model's answer is always kept
        assert (r["evidence_class"] in ("supported", "partial", "unsupported")) != (
            r["parse_error"] is not None
        )
    assert outputs["unparseable"] == sum(1 for r in records if r["parse_error"])
    assert sum(outputs["evidence_class"].values()) + outputs["unparseable"] == len(TRAIN)
    audited = {i.id: i for i in load_instances(tmp_path / "audited")}
    assert [audited[r["instance_id"]].references[0].evidence_class for r in records] == [
        r["evidence_class"] for r in records
    ]
    manifest = read_manifest(tmp_path / "audited")
    assert manifest["inputs"]["auditor"]["prompt"]["sha256"] == load_prompt("audit.v1", PROMPT_DIR).sha256


def test_rationale_teacher_explains_the_retained_gold_labels(
    server: LocalServer, dataset: Path, tmp_path: Path
) -> None:
    client = LLMClient(server.config(cache_path=tmp_path / "cache.sqlite", temperature=0.3, max_tokens=200))
    outputs = write_rationales(dataset, tmp_path / "rationales", client)
    records = {r["instance_id"]: r for r in read_jsonl(tmp_path / "rationales" / "rationales.jsonl")}
    assert sorted(records) == sorted(TRAIN)  # only the train split, by default
    for iid, r in records.items():
        assert r["diagnoses"] == [TRAIN[iid][1]]  # the gold label, not the model's echo
        assert r["raw"] and (bool(r["reasoning"]) != (r["parse_error"] is not None))
    assert outputs == {
        "rationales": 3,
        "unparseable": sum(1 for r in records.values() if r["parse_error"]),
        "skipped_no_retained_label": 0,
    }
    assert outputs["unparseable"] < 3
