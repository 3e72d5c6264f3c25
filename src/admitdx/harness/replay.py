"""System kinds ``inspect`` and ``lm-eval``: a harness's log of an exported task, replayed through
``admitdx predict``'s runner as an ordinary prediction run.

The runner does what it does for every system — chooses the instances, writes
``predictions.jsonl`` and the predict manifest bound to the dataset's fingerprints, resumes — and
this system answers from the log instead of a server. It reads each answer with the exported
system's own reader: the ``llm`` (or ``llm-codes``) predictor is rebuilt from the export header's
options and fitted as ``predict`` fits it, each logged output goes through the LLM client's
:meth:`~admitdx.llm.client.LLMClient.completion` (thinking apart, the tolerant parse, truncation)
and the predictor's ``to_prediction`` (or the part calls' join), so an unparseable answer is
counted exactly as ``predict`` counts it, and ``samples.jsonl`` gets the lines ``predict`` writes.

Refused with exit 2, naming both sides: a log made on another dataset (the header's fingerprints
against the dataset's), a log missing instances of the run or holding others, and a log whose
harness sent other messages than the ones this dataset's export renders (a chat template that
merged the turns, a system prompt added on the command line, another prompt version).

Study files name a log (``{kind: inspect, log: logs/run.eval}``) or a command template that runs
the harness on an export the study writes (:mod:`admitdx.harness.command`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from admitdx.contracts import Instance, Prediction
from admitdx.errors import UsageError
from admitdx.harness.calls import Prepared, Scope, requests_of, sample_id
from admitdx.harness.command import run_command
from admitdx.harness.logs import Answer, HarnessLog, read_log
from admitdx.harness.study_logs import INSPECT, LM_EVAL
from admitdx.llm.client import ChatRequest, Completion
from admitdx.llm.redact import redact_options
from admitdx.runs import sha256_file
from admitdx.systems import register
from admitdx.systems.config import SystemChoice
from admitdx.systems.llm import LLMPredictor
from admitdx.systems.part_calls import _joined as joined_prediction  # predict's own join of part answers
from admitdx.systems.runner import build_system, system_view
from admitdx.systems.sample_log import SAMPLES_FILE, SampleLog
from admitdx.tasks.spec import ANSWER_KINDS, TaskSpec

#: How many ids a refusal lists before "…".
_SHOWN = 5


def _ids(ids: Iterable[str]) -> str:
    ids = sorted(ids)
    return ", ".join(ids[:_SHOWN]) + (f" … ({len(ids)} in all)" if len(ids) > _SHOWN else "")


class HarnessReplay:
    """Predictions read from a harness log (module docstring)."""

    harness = ""

    def __init__(
        self,
        *,
        task: TaskSpec,
        log: str | None = None,
        command: str | None = None,
        system: dict[str, Any] | None = None,
    ) -> None:
        if (log is None) == (command is None):
            raise UsageError(
                f"a {self.harness} system names either `log:` (a harness log) or `command:` (a template that "
                "runs the harness on the study's export)",
                hint=f"e.g. {{kind: {self.harness}, log: logs/run.eval}}",
            )
        self.task = task
        self.name = self.harness
        self.command, self.system = command, system or {"kind": "llm"}
        self.log: HarnessLog | None = None
        if log is not None:
            self._load(Path(log))
        self.reader: LLMPredictor | None = None
        self.samples: SampleLog | None = None
        self.run_dir: Path | None = None
        self.fit_summary: dict[str, Any] = {}

    @property
    def loaded(self) -> HarnessLog:
        assert self.log is not None, "the log is read in the constructor, or by use_test_set for a command"
        return self.log

    def _load(self, path: Path) -> HarnessLog:
        log = self.log = read_log(self.harness, path)
        head = log.header
        if head.get("task") != self.task.name:
            raise UsageError(
                f"{path} answers an export of task {head.get('task')!r}; this dataset is task "
                f"{self.task.name!r}",
                hint="import the log with the dataset it was exported from",
            )
        system = head["system"]
        options = {**system["options"], "max_tokens": head["generate"]["max_tokens"]}
        self.exported = SystemChoice(system["name"], system["kind"], options)
        self.scope = Scope(**head["scope"])
        return log

    # ------------------------------------------------------------------ runner hooks
    def use_test_set(self, fingerprints: dict[str, str], instance_ids: list[str], dataset_dir: Path) -> None:
        """The runner's dataset and the ids it will ask for: the log must be of exactly these. A
        ``command:`` system runs its harness here, on this dataset's export."""
        if self.log is None:
            assert self.command is not None and self.run_dir is not None, "the runner calls use_run_dir first"
            self._load(run_command(self.harness, self.command, self.system, dataset_dir, self.run_dir))
        recorded = self.loaded.header["dataset"]
        if recorded.get("inputs_sha256") != fingerprints["inputs_sha256"]:
            raise UsageError(
                f"{self.loaded.path} was exported from dataset {recorded.get('inputs_sha256', '?')[:12]}… "
                f"(inputs); {dataset_dir} is {fingerprints['inputs_sha256'][:12]}…: the log answers "
                "another dataset's instances",
                hint="import it with the dataset it was exported from, or export this dataset and run the "
                "harness again",
            )
        parts = self.loaded.header.get("parts") or [None]
        wanted = {sample_id(i, part) for i in instance_ids for part in parts}
        logged = set(self.loaded.answers)
        missing, extra = wanted - logged, logged - wanted
        if missing or extra:
            raise UsageError(
                f"{self.loaded.path} and {dataset_dir} disagree on the samples: the dataset's "
                f"{self.scope.split} run asks {len(wanted)}, the log answers {len(logged)}"
                + (f"; missing from the log: {_ids(missing)}" if missing else "")
                + (f"; in the log only: {_ids(extra)}" if extra else ""),
                hint="run the harness on the whole export (no --limit / sample subset) and import that log",
            )

    def use_run_dir(self, out_dir: Path) -> None:
        self.run_dir = Path(out_dir)
        self.samples = SampleLog(Path(out_dir) / SAMPLES_FILE)

    def manifest_inputs(self) -> dict[str, Any]:
        """The log (its hash), the harness's model and settings, and the exported system."""
        head = self.loaded.header
        return {
            "harness": self.harness,
            "log_sha256": sha256_file(self.loaded.path),
            "model": self.loaded.model,
            "generate": redact_options(self.loaded.generate),
            "exported_system": head["system"],
            "prompt": head["prompt"],
        }

    # ------------------------------------------------------------------ system
    def fit(self, train: list[Instance]) -> None:
        """Rebuild the exported predictor and fit it as ``predict`` does (its retriever chooses the
        same demonstrations; ``llm-codes`` fits its code mapper)."""
        reader = build_system(self.exported, [], self.task)
        if not isinstance(reader, LLMPredictor):
            raise UsageError(f"the export's system kind {self.exported.kind} sends no prompt")
        reader.fit(train)  # the runner's training view, by the train_labels the import passes on
        self.reader = reader

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        reader = self.reader
        assert reader is not None, "fit() first"
        oracle = bool(self.loaded.header.get("oracle"))
        for inst in instances:
            seen = system_view(self.task, inst, oracle)
            done: dict[str, Completion] = {}
            for part, request in requests_of(_prepared(self.task, reader), seen):
                answer = self._answer(sample_id(inst.id, part), request)
                completion = reader.client.completion(
                    (answer.text, answer.usage, answer.latency_s, answer.finish_reason), request, cached=False
                )
                if part is None:
                    prediction = reader.to_prediction(seen, completion)
                    self._log(request, completion, prediction)
                    yield prediction
                    continue
                done[part] = completion
                self._log(request, completion, joined_prediction(seen, reader.name, (part,), done))
            if done:
                yield joined_prediction(seen, reader.name, reader.parts, done)
        stats = reader.client.stats
        self.fit_summary = {
            "harness": self.harness,
            "model": self.loaded.model,
            "parse_failures": stats.parse_failures,
            **({"truncated": dict(stats.truncated)} if stats.truncated else {}),
            "tokens": stats.tokens.summary(None),
            **getattr(reader, "fit_summary", {}),
        }

    def _answer(self, sid: str, request: ChatRequest) -> Answer:
        answer = self.loaded.answers[sid]
        if not _same_prompt(answer.sent, request.messages):
            raise UsageError(
                f"{self.loaded.path}: sample {sid} was sent another prompt than the export of this dataset "
                f"renders ({_difference(answer.sent, request.messages)})",
                hint="run the exported task as exported (lm-eval: --apply_chat_template "
                "--fewshot_as_multiturn, "
                "no --system_instruction)",
            )
        return answer

    def _log(self, request: ChatRequest, completion: Completion, prediction: Prediction) -> None:
        if self.samples is not None:
            self.samples.write(request, completion, prediction)


def _prepared(task: TaskSpec, reader: LLMPredictor) -> Prepared:
    """The little of :class:`Prepared` that :func:`requests_of` reads."""
    return Prepared(task, reader, [], {}, {}, False)


def _same_prompt(sent: list[dict[str, str]] | str | None, messages: list[dict[str, str]]) -> bool:
    """Exactly the messages; for a prompt a local model's chat template rendered into one string,
    every message's content in order (what a string can show)."""
    if isinstance(sent, list):
        return sent == messages
    if isinstance(sent, str):
        at = 0
        for m in messages:
            at = sent.find(m["content"], at)
            if at < 0:
                return False
            at += len(m["content"])
        return True
    return False


def _difference(sent: list[dict[str, str]] | str | None, messages: list[dict[str, str]]) -> str:
    if not isinstance(sent, list):
        return "the logged prompt does not hold the exported messages in order"
    if len(sent) != len(messages):
        return f"{len(sent)} messages sent, {len(messages)} exported"
    i = next(i for i, (a, b) in enumerate(zip(sent, messages, strict=True)) if a != b)
    return f"message {i + 1} ({messages[i]['role']}) differs"


@register(
    INSPECT,
    "an Inspect AI log of a task `admitdx export inspect` wrote (option `log: PATH`), read as predict reads "
    "a server's answers",
    answers=ANSWER_KINDS,  # whatever the exported llm system answered
)
class InspectReplay(HarnessReplay):
    harness = INSPECT


@register(
    LM_EVAL,
    "the samples file of an lm-evaluation-harness run of a task `admitdx export lm-eval` wrote (option "
    "`log: PATH`), read as predict reads a server's answers",
    answers=ANSWER_KINDS,
)
class LMEvalReplay(HarnessReplay):
    harness = LM_EVAL
