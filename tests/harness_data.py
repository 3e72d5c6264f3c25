"""Small datasets of every answer kind for the harness tests, the answers a test model gives, and the
reference run: ``admitdx predict`` on the same answers, served from its response cache."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import INSTANCES_FILE, Instance, Reference
from admitdx.harness.calls import Scope, prepare, requests_of
from admitdx.jsonl import write_jsonl
from admitdx.llm.cache import ResponseCache, cache_key
from admitdx.sources.erreason import ACUITY_LEVELS
from admitdx.systems.config import SystemChoice
from admitdx.systems.runner import run_predictions

RUNNER = CliRunner()
#: Written into every test instance's gold answer and leaky meta, never into its input: an export
#: whose model input holds either has leaked.
GOLD_MARK, LEAK_MARK = "Zqgold", "Zqleak"
WORDS = ["chest", "pain", "fever", "cough", "dyspnea", "syncope", "abdominal", "headache", "trauma"]
DIAGNOSES = ["Pneumonia", "Sepsis", "Acute kidney failure", "Heart failure", "Syncope and collapse"]
CODES = {"Pneumonia": "J18", "Sepsis": "A41", "Acute kidney failure": "N17", "Heart failure": "I50",
         "Syncope and collapse": "R55"}  # fmt: skip


def _text(i: int) -> str:
    return " ".join(WORDS[(i + j) % len(WORDS)] for j in range(6)) + f" encounter {i}"


def _instance(task: str, i: int, split: str, **kw: Any) -> Instance:
    iid = f"{split}-{i}"
    return Instance(
        id=iid,
        subject_id=zlib.crc32(iid.encode()) % 100_000,
        task=task,
        split=split,
        sections={"chief_complaint": _text(i)},
        text=_text(i),
        **kw,
    )


def diagnosis_dataset(root: Path, task: str = "earlydx", n_train: int = 8, n_test: int = 6) -> Path:
    """Instances whose labels are two of :data:`DIAGNOSES`; a test instance's gold also names
    :data:`GOLD_MARK` and its meta holds the leaky field with :data:`LEAK_MARK`."""
    leaky = "ed_disposition" if task == "earlydx" else "excluded_codes"
    rows = []
    for split, n in (("train", n_train), ("test", n_test)):
        for i in range(n):
            names = [DIAGNOSES[i % 5], DIAGNOSES[(i + 2) % 5]]
            if split == "test":
                names.append(f"{GOLD_MARK} disease {i}")
            refs = [Reference(text=t, code=CODES.get(t), code_system="ICD-10-CM") for t in names]
            meta = {"age": 50 + i, leaky: f"{LEAK_MARK}-{i}"}
            rows.append(_instance(task, i, split, references=refs, meta=meta))
    return _write(root, rows)


def category_dataset(root: Path, n_train: int = 8, n_test: int = 6) -> Path:
    rows = []
    for split, n in (("train", n_train), ("test", n_test)):
        for i in range(n):
            meta = {"age": 40 + i, "acuity": f"{LEAK_MARK}-{i}", "disposition": f"{LEAK_MARK}-d{i}"}
            target = ACUITY_LEVELS[i % len(ACUITY_LEVELS)]
            rows.append(_instance("er-reason-acuity", i, split, references=[], target=target, meta=meta))
    return _write(root, rows)


def text_dataset(root: Path, n_train: int = 6, n_test: int = 5) -> Path:
    rows = []
    for split, n in (("train", n_train), ("test", n_test)):
        for i in range(n):
            target = f"{GOLD_MARK} one-liner {i}" if split == "test" else f"patient with {WORDS[i % 9]}"
            rows.append(_instance("er-reason-one-liner", i, split, references=[], target=target))
    return _write(root, rows)


def _write(root: Path, rows: list[Instance]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    write_jsonl(root / INSTANCES_FILE, (r.to_dict() for r in rows))
    return root


def planning_dataset(root: Path) -> Path:
    """ER-Reason planning (three calls an encounter) built from a small synthetic release."""
    from admitdx.synthetic.erreason import generate_release

    release = generate_release(root / "release", encounters=30, seed=2, rationale_share=0.6)
    out = root / "planning"
    args = ["build", "er-reason", "--task", "planning", "--erreason", str(release), "--out", str(out)]
    result = RUNNER.invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out


# ---------------------------------------------------------------------------- the test model's answers
def answer_for(header: dict[str, Any], n: int, target: Any) -> str:
    """Call number ``n``'s output: right, wrong, wrapped in thinking, or unreadable, in turn."""
    kind = n % 4
    if kind == 3:
        return "I cannot tell from this record."  # unparseable: predict counts it
    if header["answer"] == "diagnoses":
        gold = [t["text"] for t in target]
        listed = gold[:2] if kind != 1 else ["Migraine", "Fracture of femur"]
        body = json.dumps({"diagnoses": listed})
    elif header["answer"] == "category":
        cats = header["categories"]
        body = json.dumps({"answer": target if kind != 1 else cats[(cats.index(target) + 1) % len(cats)]})
    else:
        body = json.dumps({"answer": target if kind != 1 else "stable, discharge"})
    return f"<think>the record shows {n}</think>{body}" if kind == 2 else body


def answers_by_messages(out: Path) -> dict[str, str]:
    """An export's answers keyed by the messages sent (JSON), as a test model looks them up."""
    header = json.loads((out / "admitdx_export.json").read_text())
    answers = {}
    for n, line in enumerate((out / "calls.jsonl").read_text().splitlines()):
        call = json.loads(line)
        answers[json.dumps(call["messages"])] = answer_for(header, n, call["target"])
    return answers


def canned_inspect(answers: dict[str, str]) -> Callable[..., Any]:
    """Inspect's ``mockllm`` answers from the table, with a reasoning block where the answer thinks
    first (as Inspect records a reasoning model's output) and token usage (``mockllm`` would count
    it with a tokenizer it downloads)."""
    from inspect_ai.model import ChatMessageAssistant, ContentReasoning, ContentText, ModelOutput, ModelUsage

    def respond(messages: list[Any], *_: Any) -> ModelOutput:
        text = answers[json.dumps([{"role": m.role, "content": m.text} for m in messages])]
        output = ModelOutput.from_content(model="mockllm", content=text)
        if text.startswith("<think>"):
            thinking, answer = text[len("<think>") :].split("</think>")
            content = [ContentReasoning(reasoning=thinking), ContentText(text=answer)]
            output.choices[0].message = ChatMessageAssistant(content=content, model="mockllm")
        output.usage = ModelUsage(input_tokens=10 * len(messages), output_tokens=len(text) // 4,
                                  total_tokens=10 * len(messages) + len(text) // 4)  # fmt: skip
        return output

    return respond


def export(harness: str, dataset: Path, out: Path, *args: str) -> CliRunner:
    result = RUNNER.invoke(app, ["export", harness, "--dataset", str(dataset), "--out", str(out), *args])
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def predict_on_answers(
    dataset: Path,
    choice: SystemChoice,
    answer: Callable[[list[dict[str, str]]], str | tuple[str, str]],
    out: Path,
) -> Path:
    """``admitdx predict``'s own run on the given answers (a text, or a text and its finish reason):
    each request's answer is put in a fresh response cache under the key the client looks up, then
    the system predicts with ``cache_only``."""
    cache_path = out.parent / f"{out.name}-cache.sqlite"
    choice = SystemChoice(
        choice.name, choice.kind, {**choice.options, "cache_path": str(cache_path), "cache_only": True}
    )
    prepared = prepare(dataset, choice, Scope(), full_fit=False)
    cache = ResponseCache(cache_path)
    client = prepared.predictor.client
    for inst in prepared.seen:
        for _, request in requests_of(prepared, inst):
            identity = client.request_identity(request)
            given = answer(request.messages)
            text, finish = given if isinstance(given, tuple) else (given, "stop")
            cache.put(cache_key(identity), identity, text, usage=None, latency_s=0.1, finish_reason=finish)
    run_predictions(dataset, choice, out, show_progress=False)
    return out


def scored(dataset: Path, predictions: Path, out: Path, matcher: str | None) -> dict[str, Any]:
    """``admitdx match`` (diagnosis tasks) then ``admitdx score``: the one system's results entry."""
    if matcher:
        args = ["match", "--dataset", str(dataset), "--predictions", str(predictions), "--matcher", matcher]
        result = RUNNER.invoke(app, args)
        assert result.exit_code == 0, result.output
    args = ["score", "--dataset", str(dataset), "--predictions", str(predictions), "--out", str(out)]
    result = RUNNER.invoke(app, [*args, *(["--matcher", matcher] if matcher else [])])
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text())
