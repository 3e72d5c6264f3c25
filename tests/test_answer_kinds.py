"""A system kind declares the answer kinds it can produce, and a pairing with a task of another
kind is refused before any work (issue 34: `frequency` on ER-Reason acuity was scored 0.000 and
ranked #2, with no missing answer and no parse error to say why). `subset: yes` is not a count.

The study is refused at loading (nothing built), `predict` before the system is built or fitted;
both exit 2 naming the system, its kind, the task and its answer kind.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from admitdx.errors import UsageError
from admitdx.study.spec import load_study
from admitdx.systems import registered, require_answer
from admitdx.tasks.registry import get_task
from data_roots import run_cli

STUDY = """\
data:
  mimic: {root}
tasks:
  er-reason-acuity:
    systems: [{systems}]
{extra}systems:
  top-three: {{kind: frequency}}
  majority: {{kind: majority}}
  chat: {{kind: llm, base_url: "http://127.0.0.1:9/v1", model: m}}
"""


def write(tmp_path: Path, systems: str, extra: str = "") -> Path:
    (tmp_path / "root").mkdir(exist_ok=True)
    path = tmp_path / "study.yaml"
    path.write_text(STUDY.format(root=tmp_path / "root", systems=systems, extra=extra), encoding="utf-8")
    return path


def test_every_kind_declares_what_it_answers() -> None:
    kinds = registered()
    assert kinds["frequency"].answers == ("diagnoses",)
    assert kinds["majority"].answers == ("category",) and kinds["triage-classifier"].answers == ("category",)
    assert kinds["knn-text"].answers == ("text",)
    assert set(kinds["llm"].answers) == {"diagnoses", "category", "text"}
    require_answer("llm", get_task("er-reason-acuity"))  # a prompted model answers any kind: no error
    with pytest.raises(
        UsageError, match="system kind frequency answers diagnoses; task er-reason-acuity asks for a category"
    ):
        require_answer("frequency", get_task("er-reason-acuity"))


def test_a_study_pairing_a_list_system_with_a_category_task_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, "majority, top-three, chat")
    code, _, err = run_cli(["study", str(path)], capsys, monkeypatch)
    message = " ".join(err.split())
    assert code == 2
    assert (
        f"{path}: tasks.er-reason-acuity.systems: system 'top-three' (kind frequency) answers diagnoses; "
        "task er-reason-acuity asks for a category" in message
    )
    assert not (tmp_path / "study").exists()  # nothing was built
    load_study(write(tmp_path, "majority, chat"))  # the same study without it loads


@pytest.mark.parametrize(("value", "shown"), [("yes", "True"), ("0", "0"), ("2.5", "2.5")])
def test_subset_must_be_a_count_and_never_a_boolean(tmp_path: Path, value: str, shown: str) -> None:
    path = write(tmp_path, "majority", extra=f"    subset: {value}\n")
    with pytest.raises(
        UsageError,
        match=rf"tasks.er-reason-acuity.subset: {shown} is not a positive number of test instances",
    ):
        load_study(path)
    assert load_study(write(tmp_path, "majority", extra="    subset: 3\n")).tasks[0].subset == 3


def test_predict_refuses_the_pairing_before_building_the_system(
    synthetic_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = tmp_path / "acuity"
    code, _, err = run_cli(
        ["build", "er-reason", "--task", "acuity", "--mimic", str(synthetic_root), "--out", str(dataset)],
        capsys, monkeypatch,
    )  # fmt: skip
    assert code == 0, err
    out = tmp_path / "pred"
    code, _, err = run_cli(
        ["predict", "--dataset", str(dataset), "--system", "frequency", "--out", str(out)],
        capsys,
        monkeypatch,
    )
    assert code == 2
    assert "system kind frequency answers diagnoses; task er-reason-acuity asks for a category" in " ".join(
        err.split()
    )
    assert not (out / "predictions.jsonl").exists() and not (out / "manifest.json").exists()
