"""Run one system over a dataset: fit on the training split, predict the test split, append.

The protocol guarantees live here, once, so every system — baseline, classifier or LLM — gets them:

* **No test targets.** The system is fitted on the training split's instances (targets
  included) and predicts test instances from which the task's declared target (``references``
  or ``target``) and its leaky ``meta`` fields have been removed (:meth:`TaskSpec.without_target`),
  so no system can read a test answer even by mistake. An instance id present in both splits is
  refused. The one exception is declared: a system whose ``needs_test_targets`` attribute is
  ``True`` is an *oracle* (CliniBench's gold few-shot retriever, an upper bound) and gets the test
  targets (never the leaky meta); the manifest records ``"oracle": true`` and the system's caveat
  marks its scores in every report.
* **Append as they complete.** Each prediction is appended to ``predictions.jsonl`` and flushed, so
  an interrupted run (Ctrl-C, a kill, a crash) loses at most the predictions in flight.
* **Resume exactly once.** A rerun into the same ``--out`` cuts a half-written last line, skips the
  instances already predicted, and predicts only the rest; it refuses to append when the inputs
  (dataset content, split, system kind and options, allowed hosts) differ from the manifest's.

Predictions are filed under the run's system name (the ``--system`` / config name), whatever the
system object calls itself. Two optional hooks let a system add to the manifest:
``manifest_inputs() -> dict`` (e.g. prompt-template hashes; part of the resume check) and a
``fit_summary`` dict attribute (e.g. how many rare labels were set aside; recorded as output).
Every system learns from ``training_view(train, train_labels)``: the retained encounters and their
supported and partial labels (EarlyDx §4.1) unless ``--set train_labels=all``.
A system with a ``use_validation(instances)`` method is handed the dataset's ``val`` split, in the
same training view, before it is fitted (model selection and thresholds: CliniBench §4.1), unless
``val`` is the split predicted or learnt from (then it gets an empty list).
A system factory that declares an ``allow_hosts`` parameter receives the config's allow-list,
and a system with a ``use_run_dir(path)`` method is told the output directory (the LLM predictor
writes its local server's log there). A system with a ``use_test_set(fingerprints, ids, dataset_dir)``
method is told the dataset's fingerprints and the ids of the instances in scope before it is fitted
(a harness log checks that it answers exactly these: :mod:`admitdx.harness.replay`).
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from admitdx.contracts import INSTANCES_FILE, PREDICTIONS_FILE, Instance, Prediction, load_instances
from admitdx.errors import InputError, UsageError
from admitdx.jsonl import append_jsonl, drop_partial_tail, read_jsonl, read_jsonl_numbered
from admitdx.llm.egress import AllowedHost
from admitdx.llm.reasoning import TRUNCATED_PREFIX, truncated_counts
from admitdx.llm.redact import redact_options
from admitdx.progress import progress_bar
from admitdx.provenance import PREDICTIONS_DIGEST, check_bound_bytes, dataset_fingerprints, predictions_digest
from admitdx.runs import check_resumable, exclusive, read_manifest, sha256_text, write_manifest
from admitdx.systems import System, registered, require_answer
from admitdx.systems.config import SystemChoice
from admitdx.systems.labels import benchmark_set, training_view
from admitdx.tasks.registry import task_of
from admitdx.tasks.spec import TaskSpec

#: A runner option of every system: what it learns from (``systems.labels.training_view``).
TRAIN_LABELS_OPTION = "train_labels"
#: The split handed to a system's ``use_validation`` hook, and the hook.
VALIDATION_SPLIT, VALIDATION_HOOK = "val", "use_validation"
#: The attribute by which a system declares itself an oracle that must see the test targets.
ORACLE_HOOK = "needs_test_targets"
#: The manifest input recording that the test targets reached the system (absent otherwise).
ORACLE_INPUT = "oracle"
#: The manifest input recording that encounters outside the benchmark set were predicted too.
KEEP_UNSUPPORTED_INPUT = "keep_unsupported_only"


@dataclass(frozen=True)
class RunSummary:
    out_dir: Path
    system: str
    total: int  # test instances in scope
    resumed: int  # already predicted by an earlier run
    predicted: int  # predicted by this run
    parse_errors: int  # in the whole predictions file, truncated outputs not included
    #: ``truncated_in_thinking`` / ``truncated_in_answer``: outputs the token budget cut (only kinds seen)
    truncated: dict[str, int] = dataclasses.field(default_factory=dict)

    def outcome(self) -> str:
        """``3 unparseable, 2 truncated in thinking``: truncation is told apart, as scoring counts it."""
        cut = [f"{n} {kind.replace('_', ' ')}" for kind, n in self.truncated.items()]
        return ", ".join([f"{self.parse_errors} unparseable", *cut])


def build_system(choice: SystemChoice, allow_hosts: list[AllowedHost], task: TaskSpec) -> System:
    factory = registered()[choice.kind].factory
    signature = inspect.signature(factory)
    options = {k: v for k, v in choice.options.items() if k != TRAIN_LABELS_OPTION}
    if "allow_hosts" in signature.parameters:
        options["allow_hosts"] = allow_hosts
    if "task" in signature.parameters:
        options["task"] = task
    try:
        signature.bind(**options)
    except TypeError as e:  # an unknown option name in the config: say which system and where
        known = ", ".join(p for p in signature.parameters if p not in ("allow_hosts", "task"))
        raise UsageError(
            f"system {choice.name!r} (kind {choice.kind}): {e}",
            hint=f"options of {choice.kind}: {known or 'none'}",
        ) from e
    return factory(**options)


def split_dataset(
    dataset_dir: Path, split: str, train_split: str, limit: int | None, keep_unsupported_only: bool = False
) -> tuple[TaskSpec, list[Instance], list[Instance], dict[str, str], list[Instance]]:
    """(the task, training instances, test instances — both still with their targets: see
    :func:`system_view` — the dataset's fingerprints for the manifest, and the validation
    instances: the ``val`` split unless it is the one predicted or learnt from).

    The test instances are the benchmark set (:func:`benchmark_set`): an encounter the audit left
    with unsupported labels only is never scored (EarlyDx §4.1), so it is not predicted either —
    on the demo 13 of 81 test encounters, 16 % of an LLM run's calls. ``keep_unsupported_only``
    predicts them too (for analysis; score with the flag of the same name). ``limit`` counts
    benchmark-set encounters. An unaudited dataset is its own benchmark set."""
    if split == train_split:
        raise UsageError(
            f"--split and --train-split are both {split!r}: a system must not be evaluated on the "
            "instances it learned from",
            hint=f"predict another split, or learn from another one with --train-split (e.g. --split {split} "
            "--train-split val)",
        )
    instances = load_instances(dataset_dir)
    task = task_of(dataset_dir, instances)
    in_split = [i for i in instances if i.split == split]
    test = benchmark_set(in_split, keep_unsupported_only=keep_unsupported_only)[:limit]
    train = [i for i in instances if i.split == train_split]
    if not test:
        present = ", ".join(sorted(Counter(i.split for i in instances))) or "none"
        raise UsageError(
            f"{dataset_dir} has no instances in split {split!r} (splits present: {present})",
            hint="choose a split with --split",
        )
    shared = {i.id for i in train} & {i.id for i in test}
    if shared:
        raise InputError(
            f"{len(shared)} instance id(s) are in both the {train_split!r} and {split!r} "
            f"splits, e.g. {sorted(shared)[0]}",
            table=INSTANCES_FILE,
            column="split",
            hint="rebuild the dataset: a test encounter must never be a training encounter",
        )
    own_val = VALIDATION_SPLIT not in (split, train_split)
    validation = [i for i in instances if own_val and i.split == VALIDATION_SPLIT]
    return task, train, test, dataset_fingerprints(dataset_dir, instances), validation


def is_oracle(system: System) -> bool:
    """Whether ``system`` declares that it needs the test targets (only ``True`` counts)."""
    return getattr(system, ORACLE_HOOK, False) is True


def system_view(task: TaskSpec, instance: Instance, oracle: bool) -> Instance:
    """A test instance as a system sees it: without target and leaky meta; an oracle keeps the
    target (and still loses the leaky meta, which it does not need)."""
    seen = task.without_target(instance)
    if not oracle:
        return seen
    return dataclasses.replace(seen, references=instance.references, target=instance.target)


def _finished_ids(path: Path) -> set[str]:
    if not path.exists():
        return set()
    drop_partial_tail(path)
    seen: set[str] = set()
    for row, record in read_jsonl_numbered(path):
        if record["instance_id"] in seen:  # a run appends each instance once: this line came from elsewhere
            raise InputError(
                f"instance {record['instance_id']!r} is predicted twice",
                table=str(path),
                row=row,
                hint=f"restore the run's own file, or delete {path.parent} and predict again",
            )
        seen.add(record["instance_id"])
    return seen


def _checked(predictions: Iterable[Prediction], wanted: set[str], name: str) -> Iterator[Prediction]:
    """Each wanted instance exactly once, filed under ``name``; anything else is a bug in the system."""
    seen: set[str] = set()
    for p in predictions:
        if p.instance_id not in wanted or p.instance_id in seen:
            why = "twice" if p.instance_id in seen else "although it was not asked for"
            raise RuntimeError(f"system {name!r} returned a prediction for {p.instance_id!r} {why}")
        seen.add(p.instance_id)
        yield p if p.system == name else dataclasses.replace(p, system=name)
    if seen != wanted:
        raise RuntimeError(f"system {name!r} returned no prediction for {len(wanted - seen)} instance(s)")


def run_predictions(
    dataset_dir: Path,
    choice: SystemChoice,
    out_dir: Path,
    **options: Any,
) -> RunSummary:
    """Predict a split of ``dataset_dir`` with ``choice`` into ``out_dir`` (resuming if possible),
    holding the directory's single-writer lock (see :func:`admitdx.runs.exclusive`)."""
    with exclusive(Path(out_dir), "predict"):
        return _run_predictions(dataset_dir, choice, out_dir, **options)


def _run_predictions(
    dataset_dir: Path,
    choice: SystemChoice,
    out_dir: Path,
    *,
    allow_hosts: list[AllowedHost] | None = None,
    split: str = "test",
    train_split: str = "train",
    limit: int | None = None,
    keep_unsupported_only: bool = False,
    show_progress: bool = True,
) -> RunSummary:
    """Predict ``split`` of ``dataset_dir`` with ``choice`` into ``out_dir`` (resuming if possible)."""
    dataset_dir, out_dir = Path(dataset_dir), Path(out_dir)
    allow_hosts = allow_hosts or []
    task, train, test, fingerprints, validation = split_dataset(
        dataset_dir, split, train_split, limit, keep_unsupported_only
    )
    require_answer(choice.kind, task, choice.name)  # before anything is fitted or called
    system = build_system(choice, allow_hosts, task)
    oracle = is_oracle(system)
    test = [system_view(task, i, oracle) for i in test]
    learn = training_view(train, str(choice.options.get(TRAIN_LABELS_OPTION, "retained")))
    if hasattr(system, VALIDATION_HOOK):
        system.use_validation(
            training_view(validation, str(choice.options.get(TRAIN_LABELS_OPTION, "retained")))
        )
    execution = getattr(system, "execution_options", frozenset())
    answering = {k: v for k, v in choice.options.items() if k not in execution}
    if hasattr(system, "use_run_dir"):
        system.use_run_dir(out_dir)
    if hasattr(system, "use_test_set"):
        system.use_test_set(fingerprints, [i.id for i in test], dataset_dir)
    inputs: dict[str, Any] = {
        "dataset": fingerprints,
        "split": split,
        "train_split": train_split,
        "limit": limit,
        "system": {"name": choice.name, "kind": choice.kind, "options": redact_options(answering)},
        "allow_hosts": [dataclasses.asdict(h) for h in allow_hosts],
    }
    if hasattr(system, "manifest_inputs"):
        inputs["system_inputs"] = system.manifest_inputs()
    if oracle:
        inputs[ORACLE_INPUT] = True
    if keep_unsupported_only:  # recorded only when set: runs before the default changed still resume
        inputs[KEEP_UNSUPPORTED_INPUT] = True
    path = out_dir / PREDICTIONS_FILE
    # --limit says how far to go, not what is answered: a trial with --limit 20 is extended by a
    # rerun with a larger or no limit (it appends), so the previous limit is not compared
    previous_limit = ((read_manifest(out_dir) or {}).get("inputs") or {}).get("limit", limit)
    if not check_resumable(out_dir, {**inputs, "limit": previous_limit}) and path.exists():
        raise UsageError(
            f"{out_dir} holds predictions without a manifest: their inputs are unknown",
            hint="choose a new --out directory, or delete the old one to start over",
        )
    check_bound_bytes(out_dir, (read_manifest(out_dir) or {}).get("outputs") or {}, lost_lines_ok=True)
    done = _finished_ids(path)
    remaining = [i for i in test if i.id not in done]
    previous_fit = ((read_manifest(out_dir) or {}).get("outputs") or {}).get("fit")
    write_manifest(out_dir, stage="predict", inputs=inputs, outputs={"complete": False})
    console = Console(stderr=True, quiet=not show_progress)
    predicted = 0
    if remaining:
        with console.status(f"fitting {choice.name} on {len(learn)} {train_split} instances"):
            started = time.perf_counter()
            system.fit(learn)
            fit_s = time.perf_counter() - started
        console.print(
            f"fitted {choice.name} in {fit_s:.1f} s; predicting {len(remaining)} instances"
            + (f" ({len(done)} done earlier)" if done else "")
        )
        with progress_bar(console) as progress:
            task = progress.add_task(choice.name, total=len(remaining))
            for prediction in _checked(system.predict(remaining), {i.id for i in remaining}, choice.name):
                append_jsonl(path, prediction.to_dict())
                predicted += 1
                progress.advance(task)
    records = list(read_jsonl(path)) if path.exists() else []
    errors = [str(r["parse_error"]) for r in records if r.get("parse_error")]
    # a truncated output is its own outcome (admitdx.llm.reasoning), counted apart as scoring does;
    # its keys appear only when it occurs, so manifests of other runs are unchanged
    truncated = truncated_counts(errors)
    outputs: dict[str, Any] = {
        "complete": True,
        "predictions": len(records),
        PREDICTIONS_DIGEST: predictions_digest(path) if path.exists() else sha256_text(""),
        "parse_errors": sum(1 for e in errors if not e.startswith(TRUNCATED_PREFIX)),
        **truncated,
    }
    fit_summary = getattr(system, "fit_summary", None) if remaining else previous_fit
    if hasattr(system, "tokens_over") and records and (remaining or "tokens" not in (previous_fit or {})):
        # summed over every line: a resumed run's own counters miss what the interrupted one paid for
        fit_summary = {**(fit_summary or {}), "tokens": system.tokens_over(records)}
    if fit_summary:
        outputs["fit"] = fit_summary
    write_manifest(out_dir, stage="predict", inputs=inputs, outputs=outputs)
    return RunSummary(
        out_dir, choice.name, len(test), len(done), predicted, outputs["parse_errors"], truncated
    )
