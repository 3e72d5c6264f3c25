"""The system runner: train-only fitting, test references withheld, append, resume, refusals."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from admitdx.contracts import PREDICTIONS_FILE, Instance, Prediction, PredictionItem, load_predictions
from admitdx.errors import InputError, UsageError
from admitdx.llm.egress import AllowedHost
from admitdx.runs import read_manifest
from admitdx.systems import register
from admitdx.systems.config import SystemChoice, load_config
from admitdx.systems.runner import run_predictions
from systems_data import instance, write_dataset

SEEN: dict[str, list] = {}
INTERRUPT = {"after": None}  # a process-wide switch, not an option, so a resumed run has equal inputs


@register("test-spy", "test only: records what it is given")
class Spy:
    name = "spy"

    def __init__(
        self,
        *,
        extra: str | None = None,
        duplicate: bool = False,
        allow_hosts: list[AllowedHost] | None = None,
    ) -> None:
        self.duplicate = duplicate
        SEEN["allow_hosts"] = allow_hosts
        self.fit_summary = {"fitted_on": None}

    def fit(self, train: list[Instance]) -> None:
        SEEN["fit"] = [(i.id, i.split, [r.text for r in i.references]) for i in train]
        self.fit_summary = {"fitted_on": len(train)}

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        SEEN["predict"] = []
        for n, inst in enumerate(instances):
            if n == INTERRUPT["after"]:
                raise KeyboardInterrupt
            SEEN["predict"].append((inst.id, list(inst.references)))
            yield Prediction(inst.id, self.name, [PredictionItem(f"dx of {inst.id}", score=1.0)])
            if self.duplicate:
                yield Prediction(inst.id, self.name, [])


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    train = [instance(f"tr{i}", "train", f"train text {i}", [f"train label {i}"]) for i in range(3)]
    test = [instance(f"te{i}", "test", f"test text {i}", [f"SECRET {i}"]) for i in range(5)]
    return write_dataset(tmp_path / "ds", train + test)


def test_fit_sees_train_with_labels_and_predict_sees_test_without(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = run_predictions(dataset, SystemChoice("spy-run", "test-spy"), out, show_progress=False)
    assert SEEN["fit"] == [(f"tr{i}", "train", [f"train label {i}"]) for i in range(3)]
    assert SEEN["predict"] == [(f"te{i}", []) for i in range(5)]
    preds = load_predictions(tmp_path / "out")
    assert [p.instance_id for p in preds] == [f"te{i}" for i in range(5)]
    assert {p.system for p in preds} == {"spy-run"}  # filed under the run's name, not the object's
    assert (summary.total, summary.resumed, summary.predicted) == (5, 0, 5)
    manifest = read_manifest(tmp_path / "out")
    assert manifest["outputs"] == {
        "complete": True,
        "predictions": 5,
        "predictions_sha256": hashlib.sha256((out / PREDICTIONS_FILE).read_bytes()).hexdigest(),
        "parse_errors": 0,
        "fit": {"fitted_on": 3},
    }


def test_interrupted_run_resumes_each_instance_exactly_once(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    INTERRUPT["after"] = 2
    try:
        with pytest.raises(KeyboardInterrupt):
            run_predictions(dataset, SystemChoice("spy", "test-spy"), out, show_progress=False)
    finally:
        INTERRUPT["after"] = None
    assert len(load_predictions(out)) == 2
    assert read_manifest(out)["outputs"] == {"complete": False}
    # a kill in the middle of the third write left half a line behind
    with (out / PREDICTIONS_FILE).open("a") as f:
        f.write('{"instance_id":"te2","sys')
    # other options are other inputs: appending is refused
    with pytest.raises(UsageError, match="different inputs"):
        run_predictions(dataset, SystemChoice("spy", "test-spy", {"extra": "x"}), out, show_progress=False)
    summary = run_predictions(dataset, SystemChoice("spy", "test-spy"), out, show_progress=False)
    assert SEEN["predict"] == [(f"te{i}", []) for i in (2, 3, 4)]
    ids = [json.loads(line)["instance_id"] for line in (out / PREDICTIONS_FILE).read_text().splitlines()]
    assert ids == [f"te{i}" for i in range(5)]
    assert (summary.resumed, summary.predicted) == (2, 3)
    # the fit summary of the run that fitted is kept when a later rerun has nothing left to do
    again = run_predictions(dataset, SystemChoice("spy", "test-spy"), out, show_progress=False)
    assert (again.resumed, again.predicted) == (5, 0)
    assert read_manifest(out)["outputs"]["fit"] == {"fitted_on": 3}


def test_changed_dataset_is_refused(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_predictions(dataset, SystemChoice("spy", "test-spy"), out, limit=2, show_progress=False)
    # a --limit trial is extended, not refused: the full run predicts only the rest
    extended = run_predictions(dataset, SystemChoice("spy", "test-spy"), out, show_progress=False)
    assert (extended.resumed, extended.predicted) == (2, extended.total - 2)
    with (dataset / "instances.jsonl").open("a") as f:
        f.write(json.dumps(instance("te9", "test", "late", []).to_dict()) + "\n")
    with pytest.raises(UsageError, match="changed: dataset"):
        run_predictions(dataset, SystemChoice("spy", "test-spy"), out, limit=2, show_progress=False)


def test_predictions_without_a_manifest_are_not_appended_to(dataset: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / PREDICTIONS_FILE).write_text("{}\n")
    with pytest.raises(UsageError, match="without a manifest"):
        run_predictions(dataset, SystemChoice("spy", "test-spy"), tmp_path / "out", show_progress=False)


def test_a_system_answering_twice_is_stopped(dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="'te0' twice"):
        run_predictions(
            dataset, SystemChoice("spy", "test-spy", {"duplicate": True}), tmp_path / "o", show_progress=False
        )


def test_an_id_in_both_splits_and_an_empty_split_are_refused(tmp_path: Path) -> None:
    pair = [instance("e1", "train", "x", ["A"]), instance("e1", "test", "x", [])]
    both = write_dataset(tmp_path / "a", pair)
    with pytest.raises(InputError, match="both the 'train' and 'test' splits"):
        run_predictions(both, SystemChoice("spy", "test-spy"), tmp_path / "o", show_progress=False)
    no_test = write_dataset(tmp_path / "b", [instance("e1", "train", "x", ["A"])])
    with pytest.raises(UsageError, match=r"no instances in split 'test' \(splits present: train\)"):
        run_predictions(no_test, SystemChoice("spy", "test-spy"), tmp_path / "o", show_progress=False)


def test_unknown_option_names_the_system_and_its_options(dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="kind frequency") as e:
        run_predictions(
            dataset, SystemChoice("f", "frequency", {"top": 3}), tmp_path / "o", show_progress=False
        )
    assert "options of frequency: k" in str(e.value)


def test_config_file_names_systems_and_passes_allow_hosts(dataset: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "run.yaml"
    cfg.write_text(
        "allow_hosts:\n  - {host: api.example.org, attestation: zero retention}\n"
        "systems:\n  top1:\n    kind: frequency\n    k: 1\n  watched:\n    kind: test-spy\n"
    )
    config = load_config(cfg)
    assert config.choose("top1") == SystemChoice("top1", "frequency", {"k": 1})
    assert config.choose("knn-bm25") == SystemChoice("knn-bm25", "knn-bm25")  # a kind, default options
    run_predictions(
        dataset, config.choose("watched"), tmp_path / "o", allow_hosts=config.allow_hosts, show_progress=False
    )
    assert SEEN["allow_hosts"] == [AllowedHost("api.example.org", "zero retention")]
    assert read_manifest(tmp_path / "o")["inputs"]["allow_hosts"] == [
        {"host": "api.example.org", "attestation": "zero retention"}
    ]
    with pytest.raises(UsageError, match="no system named 'nope'"):
        config.choose("nope")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("systems:\n  a: {kind: gpt-magic}\n", "not a registered system kind"),
        ("sytems: {}\n", "unknown top-level key"),
        ("allow_hosts:\n  - {host: x.org}\nsystems: {}\n", "no attestation"),
        ("systems: [frequency]\n", "must map system names"),
    ],
)
def test_bad_config_files_are_usage_errors(tmp_path: Path, text: str, message: str) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text)
    with pytest.raises(UsageError, match=message):
        load_config(cfg)


def test_cli_predicts_and_reports_a_bad_system_without_a_traceback(dataset: Path, tmp_path: Path) -> None:
    admitdx = [sys.executable, "-c", "from admitdx.cli import main; main()"]
    ok = subprocess.run(
        [
            *admitdx,
            "predict",
            "--dataset",
            str(dataset),
            "--system",
            "frequency",
            "--out",
            str(tmp_path / "f"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert "5 predicted now, 0 earlier, 5 in all" in ok.stderr
    assert [p.items[0].text for p in load_predictions(tmp_path / "f")] == ["train label 0"] * 5
    bad = subprocess.run(
        [*admitdx, "predict", "--dataset", str(dataset), "--system", "nope", "--out", str(tmp_path / "g")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert "no system named 'nope'" in bad.stderr and "Traceback" not in bad.stderr
    listing = subprocess.run([*admitdx, "systems"], capture_output=True, text=True, check=True)
    assert "knn-vote" in listing.stdout and "frequency prior" in listing.stdout


def test_cli_set_overrides_system_options_without_a_config(dataset: Path, tmp_path: Path) -> None:
    """`--set k=1` reaches the frequency prior: one item instead of its default three."""
    admitdx = [sys.executable, "-c", "from admitdx.cli import main; main()"]
    args = ["predict", "--dataset", str(dataset), "--system", "frequency", "--out"]
    default = subprocess.run([*admitdx, *args, str(tmp_path / "k3")], capture_output=True, text=True)
    one = subprocess.run(
        [*admitdx, *args, str(tmp_path / "k1"), "--set", "k=1"], capture_output=True, text=True
    )
    assert default.returncode == 0 and one.returncode == 0, one.stderr
    assert {len(p.items) for p in load_predictions(tmp_path / "k3")} == {3}
    assert {len(p.items) for p in load_predictions(tmp_path / "k1")} == {1}
    assert read_manifest(tmp_path / "k1")["inputs"]["system"]["options"] == {"k": 1}
    bad = subprocess.run([*admitdx, *args, str(tmp_path / "x"), "--set", "k"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--set 'k' is not KEY=VALUE" in bad.stderr


def test_scientific_notation_is_a_number_on_the_command_line_and_in_config_files(tmp_path: Path) -> None:
    """PyYAML (YAML 1.1) reads `1e-4` as a string; a learning rate must arrive as a float."""
    from admitdx.cli.options import parse_key_values

    assert parse_key_values(["learning_rate=1e-4", "n=5E3", "name=1e5x"]) == {
        "learning_rate": 1e-4,
        "n": 5000.0,
        "name": "1e5x",
    }
    config = tmp_path / "c.yaml"
    config.write_text("systems:\n  t: {kind: tfidf, C: 1e1}\n")
    assert load_config(config).systems["t"].options == {"C": 10.0}
    config.write_text("systems: [unclosed\n")
    with pytest.raises(UsageError, match=r"c\.yaml is not valid YAML"):
        load_config(config)
