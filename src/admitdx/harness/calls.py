"""The model calls of an ``llm`` (or ``llm-codes``) system on a dataset's test split, rendered by the
system itself — the prompts ``admitdx predict`` would send, one by one, for a harness to send instead.

Nothing here builds a prompt: the runner chooses the instances (:func:`split_dataset`: the
benchmark set of the split), removes each one's target and leaky meta (:func:`system_view`), and the
predictor renders the request (:meth:`LLMPredictor.request`, or one request per part for ER-Reason
planning, :meth:`LLMPredictor.part_request`). Few-shot demonstrations are those the system's
retriever chooses after fitting on the training view, as in ``predict``; an export fixes them.

Each call is one harness sample: ``sample_id`` is the instance id, or ``<id>#<part>`` for a part
call. Its ``target`` is the gold answer, for the harness's own quick score only; it is never in
the ``messages`` (the test checks every exported input against the runner's redaction).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from admitdx.contracts import Instance
from admitdx.errors import UsageError
from admitdx.llm.client import ChatRequest
from admitdx.systems.config import SystemChoice
from admitdx.systems.labels import training_view
from admitdx.systems.llm import LLMPredictor
from admitdx.systems.runner import TRAIN_LABELS_OPTION, build_system, is_oracle, split_dataset, system_view
from admitdx.tasks.spec import TaskSpec

#: Joins an instance id and a part in a part call's sample id (ids never hold it: checked).
PART_SEP = "#"


@dataclass(frozen=True)
class Call:
    """One model call: what the harness sends (``messages``, ``schema``) and whose it is."""

    sample_id: str
    instance_id: str
    part: str | None
    messages: list[dict[str, str]]
    schema: dict[str, Any]
    target: Any  # the gold answer, for the harness-native quick score; never shown to the model


@dataclass(frozen=True)
class Scope:
    """Which instances of which dataset a harness run answers (recorded in an export, checked on import)."""

    split: str = "test"
    train_split: str = "train"
    keep_unsupported_only: bool = False


@dataclass
class Prepared:
    """A fitted predictor and the test instances as it sees them (targets removed)."""

    task: TaskSpec
    predictor: LLMPredictor
    seen: list[Instance]
    gold: dict[str, Instance]
    fingerprints: dict[str, str]
    oracle: bool


def prepare(
    dataset_dir: Path,
    choice: SystemChoice,
    scope: Scope,
    *,
    full_fit: bool,
    allow_hosts: list[Any] | None = None,
) -> Prepared:
    """Build and fit ``choice`` on ``dataset_dir`` as the runner does. ``full_fit`` False fits only
    what renders prompts (the few-shot retriever): ``llm-codes``' code mapper is needed to read
    answers, not to ask."""
    task, train, test, fingerprints, _ = split_dataset(
        dataset_dir, scope.split, scope.train_split, None, scope.keep_unsupported_only
    )
    system = build_system(choice, allow_hosts or [], task)
    if not isinstance(system, LLMPredictor):
        raise UsageError(
            f"system {choice.name!r} is of kind {choice.kind}, which sends no prompt",
            hint="export or import a prompted system: kind llm (any task) or llm-codes (CliniBench codes)",
        )
    odd = [i.id for i in test if PART_SEP in i.id]
    if odd and system.part_calls == "per-part":
        raise UsageError(f"instance id {odd[0]!r} holds {PART_SEP!r}, which names a part call's sample")
    learn = training_view(train, str(choice.options.get(TRAIN_LABELS_OPTION, "retained")))
    if full_fit:
        system.fit(learn)
    else:
        LLMPredictor.fit(system, learn)  # the retriever only: the prompts are the base class's
    oracle = is_oracle(system)
    seen = [system_view(task, i, oracle) for i in test]
    return Prepared(task, system, seen, {i.id: i for i in test}, fingerprints, oracle)


def requests_of(prepared: Prepared, inst: Instance) -> Iterator[tuple[str | None, ChatRequest]]:
    """(part or None, request) for each call ``predict`` makes for ``inst``."""
    llm = prepared.predictor
    if llm.part_calls == "per-part":
        for part in llm.parts:
            yield part, llm.part_request(inst, part)
    else:
        yield None, llm.request(inst)


def sample_id(instance_id: str, part: str | None) -> str:
    return instance_id if part is None else f"{instance_id}{PART_SEP}{part}"


def calls(prepared: Prepared) -> Iterator[Call]:
    """Every call of the test split, in the dataset's order."""
    for inst in prepared.seen:
        gold = prepared.gold[inst.id]
        for part, request in requests_of(prepared, inst):
            target = _target(prepared.task, gold, part)
            yield Call(sample_id(inst.id, part), inst.id, part, request.messages, request.schema, target)


def _target(task: TaskSpec, gold: Instance, part: str | None) -> Any:
    if task.answer == "diagnoses":
        return [{"text": r.text, "code": r.code} for r in gold.references]
    if part is not None and isinstance(gold.target, dict):
        return gold.target.get(part)
    return gold.target
