"""``export_sft``: a built dataset of any task as chat-format fine-tuning data (EarlyDx §4.2,
appendix K, where supervised fine-tuning comes from; the same export serves every task).

Writes ``<split>.jsonl`` (one ``{"id", "messages": [system?, user, assistant]}`` per instance —
the conversational format TRL's SFTTrainer reads) and the same rows as ``<split>.parquet``, plus
LLaMA-Factory's ``dataset_info.json`` (sharegpt formatting, ``role``/``content`` tags) naming them.

**The format is the one ``admitdx predict --system llm`` evaluates on that task**
(``answer_format="json"``, the default): the prompt turns are the task's own template (its spec's
``prompt``: EarlyDx's emergency-physician ``predict.v1``, CliniBench's appendix-A.1 zero-shot
prompt, each ER-Reason task's own) rendered zero-shot, not graded, on the full input, and the
assistant turn is the JSON object that task's answer schema asks for: ``{"diagnoses": [...]}``
(at most :data:`MAX_ITEMS`, the reference texts) for a diagnosis task, ``{"answer": category}``
for a category task, ``{"answer": text}`` or ``{part: text, …}`` for a text task. A model tuned
on this export is then scored on exactly the prompt it was trained on. ``answer_format="lines"``
keeps EarlyDx's *direct* format (appendix L: its own system prompt and question, one diagnosis
per line) and is refused for any other task, as is a task that ships no prompt. An export that
would write no example at all stops (exit 2) naming why, before anything is written.

Only ``train`` (and ``val`` where the dataset has one) are exported by default: fine-tuning on
the test split makes every score on it meaningless, so ``test`` needs ``include_test`` (the
command line's ``--include-test``, which prints a warning).

The reference texts are whatever the build wrote (``admitdx build earlydx --label-text`` decides
between the ED's own titles and the ICD dictionary's; CliniBench's are category titles). The
EarlyDx paper trains on supported and partially supported labels only; pass
``evidence=("supported", "partial")`` on an audited dataset to do the same — instances left with
no label are skipped and counted (diagnosis tasks only).

With ``rationales`` (the ``rationales.jsonl`` of ``admitdx rationale``) the assistant turn carries
the gold-conditioned reasoning before the answer (JSON: ``{"reasoning", ...}`` under the
template's chain-of-thought instruction; lines: the reasoning, a blank line, the list) — the
paper's "rational" SFT format; instances without a usable rationale are skipped and counted.
Such rationales are post-hoc explanations, not validated reasoning traces (appendix G).

**Which set an export holds** (issue 23): every encounter of the exported splits that has a gold
answer, whether or not it is in the benchmark set that ``admitdx predict`` and ``admitdx score``
use (EarlyDx §4.1: an audited encounter with only unsupported labels is outside it). The manifest's
``outputs.holds`` says which: ``every encounter (not audited)``, ``benchmark set`` (audited, and
nothing outside it exported — e.g. with ``evidence=("supported", "partial")``), or ``every
encounter`` with, per split, ``outside_benchmark_set`` examples. Whether an encounter is in the
benchmark set is the audit's rule (:func:`admitdx.systems.labels.is_retained`), a later stage than
this one, so the caller passes it in.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.parquet as pq

from admitdx.contracts import Instance, load_instances
from admitdx.errors import UsageError
from admitdx.jsonl import read_jsonl, write_jsonl
from admitdx.llm.prompts import PromptTemplate, load_prompt
from admitdx.runs import fingerprint_files, write_manifest
from admitdx.tasks.answers import text_answer
from admitdx.tasks.registry import task_of
from admitdx.tasks.spec import TaskSpec

DEFAULT_SYSTEM_PROMPT = (
    "You are an emergency physician at the moment of the hospital admission decision. From the "
    "admission-time record, name the diagnoses of this emergency department encounter, one per "
    "line, most important first."
)
QUESTION = "Based on this presentation, what are the patient's diagnoses?"
EVIDENCE_CLASSES = ("supported", "partial", "unsupported")
MAX_ITEMS = 20  # the llm system's default max_items: the longest list the evaluated prompt allows
DEFAULT_SPLITS = ("train", "val")
DATASET_INFO_FILE = "dataset_info.json"
AnswerFormat = Literal["json", "lines"]
#: ``outputs.holds`` of an export's manifest (see the module docstring).
HOLDS_UNAUDITED = "every encounter (not audited)"
HOLDS_BENCHMARK_SET = "benchmark set"
HOLDS_EVERY_ENCOUNTER = "every encounter"

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
    in_benchmark_set: Callable[[Instance], bool],
) -> dict[str, Any]:
    """Write chat-format JSONL + Parquet per split and ``dataset_info.json``; return counts per split.

    ``splits`` None: ``train`` and ``val`` where present, plus ``test`` with ``include_test``.
    ``system_prompt`` replaces the system turn (default: the template's, or the paper's for lines).
    ``in_benchmark_set`` says whether an encounter is in the benchmark set (recorded, not filtered).
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
    task = task_of(dataset_dir, instances)
    _check_exportable(task, answer_format, evidence)
    splits = _splits(instances, splits, include_test)
    if evidence and not any(r.evidence_class for i in instances for r in i.references):
        raise UsageError(
            "this dataset has no evidence classes, so --evidence cannot select labels",
            hint="audit it first (`admitdx audit --dataset DIR ...`), or export without --evidence",
        )
    reasoning = _read_rationales(rationales) if rationales else None
    template = load_prompt(task.prompt, task.prompt_dir) if answer_format == "json" else None
    counts: dict[str, Any] = {}
    rows_by_split: dict[str, list[dict[str, Any]]] = {}
    for split in splits:
        tally: Counter[str] = Counter()
        rows = []
        for inst in instances:
            if inst.split != split:
                continue
            answer = _gold_answer(task, inst, evidence)
            if answer is None:
                tally["skipped_no_label"] += 1
                continue
            why = reasoning.get(inst.id) if reasoning is not None else None
            if reasoning is not None and not why:
                tally["skipped_no_rationale"] += 1
                continue
            if isinstance(answer, list):
                if template is not None and len(answer) > MAX_ITEMS:
                    tally["labels_cut_at_max_items"] += len(answer) - MAX_ITEMS
                    answer = answer[:MAX_ITEMS]
                tally["labels"] += len(answer)
            messages = (
                _json_messages(template, task, inst, answer, why)
                if template is not None
                else _lines_messages(inst, answer, why)  # type: ignore[arg-type]  # lines: lists only
            )
            if system_prompt is not None:
                messages = _with_system(messages, system_prompt)
            if not in_benchmark_set(inst):
                tally["outside_benchmark_set"] += 1
            rows.append({"id": inst.id, "messages": messages})
        rows_by_split[split] = rows
        counts[split] = {"examples": len(rows), **tally}
    if not any(rows_by_split.values()):
        raise UsageError(
            f"nothing to export from {dataset_dir}: no instance of {', '.join(splits)} has a gold "
            f"answer{' of the chosen evidence classes' if evidence else ''}"
            f"{' and a usable rationale' if reasoning is not None else ''} ({_skips(counts)})",
            hint="check the dataset's splits and targets, or export without --evidence/--rationales",
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    for split, rows in rows_by_split.items():
        write_jsonl(out_dir / f"{split}.jsonl", rows)
        pq.write_table(pa.Table.from_pylist(rows, schema=SFT_SCHEMA), out_dir / f"{split}.parquet")
    info = dataset_info(task.name, splits)
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
        outputs={
            "counts": counts,
            "format": "chat messages (system/user/assistant)",
            "holds": _holds(instances, counts),
        },
    )
    return counts


def _holds(instances: list[Instance], counts: dict[str, Any]) -> str:
    """Which set the exported examples are: see the module docstring."""
    if not any(r.evidence_class for i in instances for r in i.references):
        return HOLDS_UNAUDITED
    outside = any(c.get("outside_benchmark_set") for c in counts.values())
    return HOLDS_EVERY_ENCOUNTER if outside else HOLDS_BENCHMARK_SET


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


def _check_exportable(task: TaskSpec, answer_format: str, evidence: tuple[str, ...] | None) -> None:
    """Refuse, before reading further, what this task cannot be exported as."""
    if task.prompt is None or task.prompt_dir is None:
        raise UsageError(
            f"task {task.name} ships no prompt, so there is no evaluated prompt to fine-tune on",
            hint="export a task that `admitdx predict --system llm` can run",
        )
    if answer_format == "lines" and task.name != "earlydx":
        raise UsageError(
            f"--answer-format lines is EarlyDx's direct format (appendix L); task {task.name} has none",
            hint="use --answer-format json: the task's own prompt and answer schema",
        )
    if evidence and task.answer != "diagnoses":
        raise UsageError(
            f"--evidence selects diagnosis labels; task {task.name} answers with a {task.answer}",
            hint="export without --evidence",
        )


def _gold_answer(
    task: TaskSpec, inst: Instance, evidence: tuple[str, ...] | None
) -> list[str] | str | dict[str, str] | None:
    """The instance's gold answer: its reference texts (of the chosen evidence classes) for a
    diagnosis task, its target otherwise; None when there is none (the instance is skipped)."""
    if task.answer == "diagnoses":
        labels = [r.text for r in inst.references if not evidence or r.evidence_class in evidence]
        return labels or None
    return inst.target or None


def _json_messages(
    template: PromptTemplate,
    task: TaskSpec,
    inst: Instance,
    answer: list[str] | str | dict[str, str],
    reasoning: str | None,
) -> list[dict[str, str]]:
    """The evaluated prompt (zero-shot, whole input) and the JSON answer its schema asks for,
    rendered with the arguments ``LLMPredictor.request`` passes."""
    messages = template.render(
        record=inst.text,
        max_items=MAX_ITEMS,
        reasoning=reasoning is not None,
        graded=False,
        exemplars=[],
        categories=task.categories,
    )
    body: dict[str, Any] = {"reasoning": reasoning} if reasoning is not None else {}
    body |= {"diagnoses": answer} if isinstance(answer, list) else text_answer(answer)
    return [*messages, {"role": "assistant", "content": json.dumps(body)}]


def _with_system(messages: list[dict[str, str]], system_prompt: str) -> list[dict[str, str]]:
    """Replace the system turn, or put one first where the template has none (CliniBench)."""
    rest = messages[1:] if messages and messages[0]["role"] == "system" else messages
    return [{"role": "system", "content": system_prompt}, *rest]


def _skips(counts: dict[str, Any]) -> str:
    return "; ".join(
        f"{split}: " + (", ".join(f"{k} {v}" for k, v in c.items() if k != "examples") or "no instances")
        for split, c in counts.items()
    )


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
