"""``--set KEY=VALUE`` checked against the typed options it sets, before any work (issue 23):
a wrong type or an unknown key is exit 2 naming the key, the expected type and the closest valid
names. The dataset and MIMIC paths below do not exist: the check must come first."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.errors import AdmitdxError
from admitdx.systems.options import checked_options


def _run(*args: object) -> tuple[int, str]:
    """The exit code and message `admitdx` gives (its main turns an AdmitdxError into exit 2)."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    error = result.exception
    if isinstance(error, AdmitdxError):
        return error.exit_code, " ".join(str(error).split())
    return result.exit_code, " ".join(result.output.split())


@pytest.mark.parametrize(
    ("system", "setting", "expected"),
    [
        ("frequency", "k=three", "system kind frequency expects an integer for 'k'"),
        ("knn-bm25", "neighbours=two", "system kind knn-bm25 expects an integer for 'neighbours'"),
        ("local", "temperature=hot", "system 'local' (kind llm) expects a number for 'temperature'"),
        ("local", "promt=cot", "has no option 'promt'; did you mean prompt or prompt_file"),
        ("llm", "prompt=fewshot", "the closest valid values: few-shot, zero-shot"),
        ("knn", "train_labels=some", "expects one of 'retained', 'all' for 'train_labels'"),
    ],
)
def test_a_wrong_system_setting_stops_before_any_work(
    tmp_path: Path, system: str, setting: str, expected: str
) -> None:
    code, text = _run("predict", "--dataset", tmp_path / "absent", "--system", system, "--set", setting,
                      "--out", tmp_path / "out")  # fmt: skip
    assert code == 2 and expected in text, text
    assert "Traceback" not in text and not (tmp_path / "out").exists()


def test_a_wrong_task_setting_names_the_key_and_the_closest_parameter(tmp_path: Path) -> None:
    code, text = _run("build", "earlydx", "--mimic", tmp_path / "absent", "--out", tmp_path / "ds",
                      "--set", "test_fraction=half")  # fmt: skip
    assert code == 2 and "task earlydx expects a number for 'test_fraction'" in text, text
    code, text = _run("build", "earlydx", "--mimic", tmp_path / "absent", "--out", tmp_path / "ds",
                      "--set", "test_fractoin=0.5")  # fmt: skip
    assert code == 2 and "has no option 'test_fractoin'; did you mean test_fraction?" in text, text


def test_values_are_converted_to_the_option_type() -> None:
    """YAML reads `temperature=1` as an integer and `model=7` as one too: each becomes what its
    option holds (LLMConfig: temperature float, model text; the llm kind: exemplar_classes a list)."""
    options = checked_options(
        "llm", "llm", {"temperature": 1, "model": 7, "k": 3, "exemplar_classes": ["supported"], "seed": None}
    )
    assert options == {
        "temperature": 1.0,
        "model": "7",
        "k": 3,
        "exemplar_classes": ["supported"],
        "seed": None,
    }
    assert isinstance(options["temperature"], float)
