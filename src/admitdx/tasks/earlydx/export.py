"""``export_sft``: a built EarlyDx dataset as chat-format fine-tuning data (§4.2, appendix K).

Writes ``<split>.jsonl`` (one ``{"id", "messages": [system, user, assistant]}`` per encounter —
the conversational format TRL's SFTTrainer, axolotl and LLaMA-Factory read) and the same rows as
``<split>.parquet``, which ``datasets.load_dataset("parquet", data_files=...)`` loads.

The user turn is the serialized input plus the authors' question; the assistant turn lists the
reference diagnoses in seq_num order, one per line (the paper's *direct* supervision format,
appendix L). The paper trains on supported and partially supported labels only; pass
``evidence=("supported", "partial")`` on an audited dataset to do the same — encounters left with
no label are skipped and counted.

With ``rationales`` (the ``rationales.jsonl`` of ``admitdx rationale``) the assistant turn is the
gold-conditioned reasoning followed by the diagnoses — the paper's chain-of-thought ("rational")
SFT format; encounters without a usable rationale (none written, or one that failed to parse) are
skipped and counted. Such rationales are post-hoc explanations, not validated reasoning traces
(appendix G and the datasheet).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from admitdx.contracts import load_instances
from admitdx.errors import UsageError
from admitdx.jsonl import read_jsonl, write_jsonl
from admitdx.runs import fingerprint_files, write_manifest

DEFAULT_SYSTEM_PROMPT = (
    "You are an emergency physician at the moment of the hospital admission decision. From the "
    "admission-time record, name the diagnoses of this emergency department encounter, one per "
    "line, most important first."
)
QUESTION = "Based on this presentation, what are the patient's diagnoses?"
EVIDENCE_CLASSES = ("supported", "partial", "unsupported")

_MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string())])
SFT_SCHEMA = pa.schema([("id", pa.string()), ("messages", pa.list_(_MESSAGE))])


def export_sft(
    dataset_dir: Path,
    out_dir: Path,
    *,
    splits: tuple[str, ...] = ("train", "test"),
    evidence: tuple[str, ...] | None = None,
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
    rationales: Path | None = None,
) -> dict[str, Any]:
    """Write chat-format JSONL + Parquet per split; return counts per split."""
    dataset_dir, out_dir = Path(dataset_dir), Path(out_dir)
    bad = [e for e in evidence or () if e not in EVIDENCE_CLASSES]
    if bad:
        raise UsageError(
            f"unknown evidence class(es): {', '.join(bad)}", hint=f"choose from {', '.join(EVIDENCE_CLASSES)}"
        )
    instances = load_instances(dataset_dir)
    if evidence and not any(r.evidence_class for i in instances for r in i.references):
        raise UsageError(
            "this dataset has no evidence classes, so --evidence cannot select labels",
            hint="audit it first (`admitdx audit --dataset DIR ...`), or export without --evidence",
        )
    reasoning = _read_rationales(rationales) if rationales else None
    out_dir.mkdir(parents=True, exist_ok=True)
    counts: dict[str, Any] = {}
    for split in splits:
        tally: Counter[str] = Counter()
        rows = []
        for inst in instances:
            if inst.split != split:
                continue
            labels = [r.text for r in inst.references if not evidence or r.evidence_class in evidence]
            if not labels:
                tally["skipped_no_label"] += 1
                continue
            answer = "\n".join(labels)
            if reasoning is not None:
                if not reasoning.get(inst.id):
                    tally["skipped_no_rationale"] += 1
                    continue
                answer = f"{reasoning[inst.id]}\n\n{answer}"
            rows.append(
                {
                    "id": inst.id,
                    "messages": [
                        {"role": "system", "content": system_prompt},
                        {"role": "user", "content": f"{inst.text}\n\n{QUESTION}"},
                        {"role": "assistant", "content": answer},
                    ],
                }
            )
            tally["labels"] += len(labels)
        write_jsonl(out_dir / f"{split}.jsonl", rows)
        pq.write_table(pa.Table.from_pylist(rows, schema=SFT_SCHEMA), out_dir / f"{split}.parquet")
        counts[split] = {"examples": len(rows), **tally}
    write_manifest(
        out_dir,
        stage="export sft",
        inputs={
            "dataset": fingerprint_files([dataset_dir / "instances.jsonl"], root=dataset_dir),
            "splits": list(splits),
            "evidence": list(evidence) if evidence else None,
            "system_prompt": system_prompt,
            "rationales": fingerprint_files([rationales]) if rationales else None,
        },
        outputs={"counts": counts, "format": "chat messages (system/user/assistant)"},
    )
    return counts


def _read_rationales(path: Path) -> dict[str, str | None]:
    """instance_id → reasoning (None where the teacher's output failed to parse)."""
    if not Path(path).is_file():
        raise UsageError(
            f"rationales file {path} does not exist", hint="pass the rationales.jsonl of `admitdx rationale`"
        )
    return {
        r["instance_id"]: (r.get("reasoning") if not r.get("parse_error") else None)
        for r in read_jsonl(Path(path))
    }


def read_messages(path: Path) -> list[dict[str, Any]]:
    """Read an exported JSONL back (used by tests and by anyone checking an export by hand)."""
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line]
