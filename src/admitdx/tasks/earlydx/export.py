"""``export_sft``: a built EarlyDx dataset as chat-format fine-tuning data (§4.2, appendix K).

Writes ``<split>.jsonl`` (one ``{"id", "messages": [system, user, assistant]}`` per encounter —
the conversational format TRL's SFTTrainer reads) and the same rows as ``<split>.parquet``, plus
LLaMA-Factory's ``dataset_info.json`` (sharegpt formatting, ``role``/``content`` tags) naming them.

**The format is the one ``admitdx predict --system llm`` evaluates** (``answer_format="json"``,
the default): the system and user turns are the task's own template (``predict.v1``, zero-shot,
not graded, at most :data:`MAX_ITEMS` diagnoses) rendered on the full record, and the assistant
turn is the JSON object that template asks for, ``{"diagnoses": [...]}``. A model tuned on this
export is then scored on exactly the prompt it was trained on. ``answer_format="lines"`` keeps the
paper's *direct* format (appendix L): its own system prompt and question, one diagnosis per line.

Only ``train`` (and ``val`` where the dataset has one) are exported by default: fine-tuning on
the test split makes every score on it meaningless, so ``test`` needs ``include_test`` (the
command line's ``--include-test``, which prints a warning).

The reference texts are whatever the build wrote (``admitdx build earlydx --label-text`` decides
between the ED's own titles and the ICD dictionary's). The paper trains on supported and partially
supported labels only; pass ``evidence=("supported", "partial")`` on an audited dataset to do the
same — encounters left with no label are skipped and counted.

With ``rationales`` (the ``rationales.jsonl`` of ``admitdx rationale``) the assistant turn carries
the gold-conditioned reasoning before the diagnoses (JSON: ``{"reasoning", "diagnoses"}`` under the
template's chain-of-thought instruction; lines: the reasoning, a blank line, the list) — the
paper's "rational" SFT format; encounters without a usable rationale are skipped and counted.
Such rationales are post-hoc explanations, not validated reasoning traces (appendix G).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.parquet as pq

from admitdx.contracts import Instance, load_instances
from admitdx.errors import UsageError
from admitdx.jsonl import read_jsonl, write_jsonl
from admitdx.llm.prompts import PromptTemplate, load_prompt
from admitdx.runs import fingerprint_files, write_manifest

DEFAULT_SYSTEM_PROMPT = (
    "You are an emergency physician at the moment of the hospital admission decision. From the "
    "admission-time record, name the diagnoses of this emergency department encounter, one per "
    "line, most important first."
)
QUESTION = "Based on this presentation, what are the patient's diagnoses?"
EVIDENCE_CLASSES = ("supported", "partial", "unsupported")
PROMPT_DIR = Path(__file__).parent / "prompts"
PROMPT = "predict.v1"  # the EarlyDx spec's prompt: the one `predict --system llm` renders
MAX_ITEMS = 20  # the llm system's default max_items: the longest list the evaluated prompt allows
DEFAULT_SPLITS = ("train", "val")
DATASET_INFO_FILE = "dataset_info.json"
AnswerFormat = Literal["json", "lines"]

_MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string())])
SFT_SCHEMA = pa.schema([("id", pa.string()), ("messages", pa.list_(_MESSAGE))])


def export_sft(
    dataset_dir: Path,
    out_dir: Path,
    *,
    splits: tuple[str, ...] | None = None,
    include_test: bool = False,
    answer_format: AnswerFormat = "json",
    evidence: tuple[str, ...] | None = None,
    system_prompt: str | None = None,
    rationales: Path | None = None,
) -> dict[str, Any]:
    """Write chat-format JSONL + Parquet per split and ``dataset_info.json``; return counts per split.

    ``splits`` None: ``train`` and ``val`` where present, plus ``test`` with ``include_test``.
    ``system_prompt`` replaces the system turn (default: the template's, or the paper's for lines).
    """
    dataset_dir, out_dir = Path(dataset_dir), Path(out_dir)
    if answer_format not in ("json", "lines"):
        raise UsageError(f"answer format must be json or lines (got {answer_format!r})")
    bad = [e for e in evidence or () if e not in EVIDENCE_CLASSES]
    if bad:
        raise UsageError(
            f"unknown evidence class(es): {', '.join(bad)}", hint=f"choose from {', '.join(EVIDENCE_CLASSES)}"
        )
    instances = load_instances(dataset_dir)
    splits = _splits(instances, splits, include_test)
    if evidence and not any(r.evidence_class for i in instances for r in i.references):
        raise UsageError(
            "this dataset has no evidence classes, so --evidence cannot select labels",
            hint="audit it first (`admitdx audit --dataset DIR ...`), or export without --evidence",
        )
    reasoning = _read_rationales(rationales) if rationales else None
    template = load_prompt(PROMPT, PROMPT_DIR) if answer_format == "json" else None
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
            why = reasoning.get(inst.id) if reasoning is not None else None
            if reasoning is not None and not why:
                tally["skipped_no_rationale"] += 1
                continue
            if template is not None and len(labels) > MAX_ITEMS:
                tally["labels_cut_at_max_items"] += len(labels) - MAX_ITEMS
                labels = labels[:MAX_ITEMS]
            messages = (
                _json_messages(template, inst, labels, why)
                if template is not None
                else _lines_messages(inst, labels, why)
            )
            if system_prompt is not None:
                messages[0] = {"role": "system", "content": system_prompt}
            rows.append({"id": inst.id, "messages": messages})
            tally["labels"] += len(labels)
        write_jsonl(out_dir / f"{split}.jsonl", rows)
        pq.write_table(pa.Table.from_pylist(rows, schema=SFT_SCHEMA), out_dir / f"{split}.parquet")
        counts[split] = {"examples": len(rows), **tally}
    info = dataset_info(instances[0].task if instances else "earlydx", splits)
    (out_dir / DATASET_INFO_FILE).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    write_manifest(
        out_dir,
        stage="export sft",
        inputs={
            "dataset": fingerprint_files([dataset_dir / "instances.jsonl"], root=dataset_dir),
            "splits": list(splits),
            "answer_format": answer_format,
            "prompt": template.identity() if template is not None else None,
            "evidence": list(evidence) if evidence else None,
            "system_prompt": system_prompt,
            "rationales": fingerprint_files([rationales]) if rationales else None,
        },
        outputs={"counts": counts, "format": "chat messages (system/user/assistant)"},
    )
    return counts


def _splits(instances: list[Instance], splits: tuple[str, ...] | None, include_test: bool) -> tuple[str, ...]:
    """The splits to export; ``test`` only when asked for by ``include_test``."""
    present = {i.split for i in instances}
    if splits is None:
        splits = tuple(s for s in DEFAULT_SPLITS if s in present) + (("test",) if include_test else ())
    if "test" in splits and not include_test:
        raise UsageError(
            "exporting the test split for fine-tuning needs --include-test",
            hint="a model tuned on test encounters cannot be evaluated on them; export train (and val)",
        )
    missing = [s for s in splits if s not in present]
    if missing:
        raise UsageError(
            f"the dataset has no {', '.join(missing)} split",
            hint=f"its splits: {', '.join(sorted(present))}",
        )
    return splits


def _json_messages(
    template: PromptTemplate, inst: Instance, labels: list[str], reasoning: str | None
) -> list[dict[str, str]]:
    """The evaluated prompt (zero-shot, whole record) and the JSON answer it asks for."""
    messages = template.render(
        record=inst.text,
        max_items=MAX_ITEMS,
        reasoning=reasoning is not None,
        graded=False,
        exemplars=[],
        categories=(),
    )
    answer: dict[str, Any] = {"reasoning": reasoning} if reasoning is not None else {}
    answer["diagnoses"] = labels
    return [*messages, {"role": "assistant", "content": json.dumps(answer)}]


def _lines_messages(inst: Instance, labels: list[str], reasoning: str | None) -> list[dict[str, str]]:
    """The paper's direct format: its system prompt and question, one diagnosis per line."""
    answer = "\n".join(labels)
    return [
        {"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
        {"role": "user", "content": f"{inst.text}\n\n{QUESTION}"},
        {"role": "assistant", "content": f"{reasoning}\n\n{answer}" if reasoning else answer},
    ]


def dataset_info(task: str, splits: tuple[str, ...]) -> dict[str, Any]:
    """LLaMA-Factory's ``dataset_info.json``: one sharegpt entry per exported split file."""
    tags = {
        "role_tag": "role",
        "content_tag": "content",
        "user_tag": "user",
        "assistant_tag": "assistant",
        "system_tag": "system",
    }
    return {
        f"admitdx_{task}_{split}": {
            "file_name": f"{split}.jsonl",
            "formatting": "sharegpt",
            "columns": {"messages": "messages"},
            "tags": tags,
        }
        for split in splits
    }


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
