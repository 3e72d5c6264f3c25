"""``audit_dataset``: a new dataset version with ``evidence_class`` on every reference.

Writes into ``out_dir``:

- ``audit.jsonl`` — one line per (instance, reference): the verdict, its quote, the rule or the
  raw LLM answer, any parse error; appended as each finishes, so a killed audit resumes;
- ``instances.jsonl`` + ``instances.parquet`` — the input dataset with ``evidence_class`` and
  ``evidence_quote`` filled (written once every pair is audited), and ``meta["retained"]`` on every
  instance: True when at least one of its labels is supported or partially supported. EarlyDx's
  benchmark set (§4.1: "120,789 of the 154,834 admitted ED encounters with at least one supported
  or partially supported label") is the retained encounters; training and scoring leave the others
  out by default (``admitdx.systems.labels.benchmark_set``);
- the input dataset's other files (``split.csv``, ``coverage.csv``) copied unchanged;
- ``agreement.json`` — when a synthetic root is given, agreement with its ``_truth/``;
- ``manifest.json`` — the input dataset's hash and the auditor's identity (rule hashes, or
  prompt hash + model + egress decision); counts per class and of unparseable answers.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from admitdx.auditing.agreement import agreement
from admitdx.auditing.stage import JsonlStage
from admitdx.auditing.verdict import Verdict
from admitdx.contracts import INSTANCES_FILE, Instance, load_instances
from admitdx.errors import UsageError
from admitdx.runs import MANIFEST_FILE, exclusive, sha256_file
from admitdx.tasks.dataset_writer import CARD_FILE, PARQUET_FILE, InstanceWriter
from admitdx.tasks.registry import get_task

AUDIT_FILE = "audit.jsonl"
#: The meta field that marks an encounter of the benchmark set (§4.1), and the classes that keep one.
RETAINED = "retained"
RETAINED_CLASSES = ("supported", "partial")
AGREEMENT_FILE = "agreement.json"


class Auditor(Protocol):
    name: str

    def identity(self) -> dict[str, Any]: ...

    def audit_many(self, pairs: Any) -> Any: ...


def audit_dataset(
    dataset_dir: Path,
    out_dir: Path,
    auditor: Auditor,
    *,
    truth_root: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Audit every reference of every instance; return the manifest's outputs. Holds ``out_dir``'s
    single-writer lock (:func:`admitdx.runs.exclusive`) throughout."""
    dataset_dir, out_dir = Path(dataset_dir), Path(out_dir)
    if dataset_dir.resolve() == out_dir.resolve():
        raise UsageError("--out must differ from --dataset: the audit writes a new dataset version")
    with exclusive(out_dir, "audit"):
        return _audit(dataset_dir, out_dir, auditor, truth_root, on_progress)


def _audit(
    dataset_dir: Path,
    out_dir: Path,
    auditor: Auditor,
    truth_root: Path | None,
    on_progress: Callable[[int, int], None] | None,
) -> dict[str, Any]:
    instances = load_instances(dataset_dir)
    inputs = {
        "dataset": {"instances_sha256": sha256_file(dataset_dir / INSTANCES_FILE)},
        "auditor": auditor.identity(),
    }
    stage = JsonlStage(out_dir, AUDIT_FILE, stage="audit", inputs=inputs,
                       key=lambda r: (r["instance_id"], r["ref_index"]))  # fmt: skip
    pairs = [(inst, j) for inst in instances for j in range(len(inst.references))]
    todo = [(inst, j) for inst, j in pairs if (inst.id, j) not in stage.done]
    finished = len(pairs) - len(todo)
    for inst, j, verdict in auditor.audit_many(todo):
        stage.append(
            {"instance_id": inst.id, "ref_index": j, "label": inst.references[j].text, **verdict.to_dict()}
        )
        finished += 1
        if on_progress:
            on_progress(finished, len(pairs))
    verdicts = {(r["instance_id"], r["ref_index"]): r for r in stage.records()}
    audited = [_apply(inst, verdicts) for inst in instances]
    _write_dataset(dataset_dir, out_dir, audited)
    classes = Counter(str(r["evidence_class"]) for r in verdicts.values())
    retained = sum(1 for inst in audited if inst.meta[RETAINED])
    outputs: dict[str, Any] = {
        "instances": len(audited),
        "retained_instances": retained,
        "unsupported_only_instances": len(audited) - retained,
        "references": len(pairs),
        "evidence_class": {k: classes[k] for k in ("supported", "partial", "unsupported")},
        "unparseable": classes["None"],
    }
    if truth_root is not None:
        result = agreement(audited, truth_root)
        (out_dir / AGREEMENT_FILE).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        outputs["agreement"] = {k: result[k] for k in ("compared", "accuracy", "cohen_kappa")}
    if (calls := getattr(auditor, "summary", None)) is not None:  # an LLM auditor: its calls, per endpoint
        outputs["calls"] = calls()
    stage.finish(outputs)
    return outputs


def _apply(inst: Instance, verdicts: dict[tuple[str, int], dict[str, Any]]) -> Instance:
    refs = []
    for j, ref in enumerate(inst.references):
        v = verdicts[(inst.id, j)]
        refs.append(
            dataclasses.replace(ref, evidence_class=v["evidence_class"], evidence_quote=v["quote"] or None)
        )
    retained = any(r.evidence_class in RETAINED_CLASSES for r in refs)
    return dataclasses.replace(inst, references=refs, meta={**inst.meta, RETAINED: retained})


def _with_retained(schema: pa.Schema) -> pa.Schema:
    """The input's schema with ``meta.retained`` (bool) added when it lacks it."""
    index = schema.get_field_index("meta")
    meta = schema.field(index).type
    if meta.get_field_index(RETAINED) >= 0:
        return schema
    fields = [meta.field(i) for i in range(meta.num_fields)] + [pa.field(RETAINED, pa.bool_())]
    return schema.set(index, pa.field("meta", pa.struct(fields)))


def _dataset_file(path: Path) -> bool:
    """The input dataset's own files the audited version carries over unchanged (split.csv,
    coverage.csv, a task's vocabulary …): not what the writer rewrites, not the input's lock or
    hidden files, not a server log of an earlier LLM audit."""
    rewritten = (INSTANCES_FILE, PARQUET_FILE, MANIFEST_FILE, CARD_FILE)
    return (
        path.is_file()
        and path.name not in rewritten
        and not path.name.startswith(".")
        and path.suffix != ".log"
    )


def _write_dataset(dataset_dir: Path, out_dir: Path, instances: list[Instance]) -> None:
    """The audited version keeps the input's Parquet schema (a hand-written dataset without one
    gets its task's)."""
    records = [inst.to_dict() for inst in instances]
    parquet = dataset_dir / PARQUET_FILE
    schema = pq.read_schema(parquet) if parquet.exists() else get_task(instances[0].task).schema
    writer = InstanceWriter(out_dir, _with_retained(schema))
    try:
        for record in records:
            writer.write(record)
        for extra in sorted(dataset_dir.iterdir()):
            if _dataset_file(extra):
                shutil.copy2(extra, writer.staged(extra.name))
    except BaseException:
        writer.abort()
        raise
    writer.commit()


__all__ = ["AUDIT_FILE", "Verdict", "audit_dataset"]
