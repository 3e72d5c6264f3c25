"""The EarlyDx builder on the real MIMIC-IV demo (hosp + ed; no note, ECG measurements or echo)."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from admitdx.contracts import load_instances
from admitdx.tasks.earlydx import DEMO_CC_ONLY, EarlyDxParams, build_earlydx, drop_sections
from admitdx.tasks.earlydx.params import SECTION_NAMES
from admitdx.tasks.earlydx.serialize import ACUTE


@pytest.fixture(scope="module")
def demo_build(demo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("earlydx-demo")
    return out, build_earlydx(demo_dir, out, EarlyDxParams())


def test_cohort_is_the_172_stays_with_an_admission(demo_build: tuple[Path, dict[str, Any]]) -> None:
    _, result = demo_build
    c = result["counts"]
    assert (c["ed_stays"], c["cohort_stays"], c["cohort_disposition_admitted"]) == (222, 172, 150)
    assert c["encounters_with_labels"] + c["encounters_excluded_no_label"] == 172
    assert c["labels_kept"] == c["labels_explicit"] + c["labels_implicit"]
    removed = sum(v for k, v in c.items() if k.startswith("labels_removed"))
    assert c["labels_raw"] == c["labels_kept"] + removed
    assert c["train_encounters"] + c["test_encounters"] == c["encounters_with_labels"]


def test_lab_coverage_under_both_scopes_shows_the_trap(demo_build: tuple[Path, dict[str, Any]]) -> None:
    out, result = demo_build
    lab = result["lab_coverage_by_scope"]
    assert lab["ed-stay"]["stays"] == 165 and lab["admission"]["stays"] == 36
    assert result["coverage"]["labs"]["cohort_present"] == 165  # the section agrees with the count
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["outputs"]["lab_coverage_by_scope"]["admission"]["fraction"] == round(36 / 172, 4)
    assert manifest["inputs"]["params"]["lab_scope"] == "ed-stay"
    assert "hosp/labevents.csv.gz" in manifest["inputs"]["source_files"]


def test_absent_modules_are_none_and_coverage_csv_matches(demo_build: tuple[Path, dict[str, Any]]) -> None:
    out, result = demo_build
    assert {"ecg", "echo", "radiology"} <= set(result["sections_absent_source"])
    instances = load_instances(out)
    assert all(i.sections[s] is None for i in instances for s in ("ecg", "echo", "radiology"))
    assert all(list(i.sections) == list(SECTION_NAMES) for i in instances)
    with (out / "coverage.csv").open() as f:
        rows = {r["section"]: r for r in csv.DictReader(f)}
    for name in SECTION_NAMES:
        present = sum(1 for i in instances if i.sections[name] is not None)
        assert int(rows[name]["dataset_present"]) == present
    assert int(rows["history"]["dataset_present"]) == sum(1 for i in instances if i.history)
    assert [s.name for s in ACUTE] == list(SECTION_NAMES)


def test_references_are_ordered_filtered_and_deduplicated(demo_build: tuple[Path, dict[str, Any]]) -> None:
    out, _ = demo_build
    for inst in load_instances(out):
        seqs = [r.seq_num for r in inst.references]
        assert seqs == sorted(seqs)
        texts = [r.text.lower() for r in inst.references]
        assert len(texts) == len(set(texts))
        for r in inst.references:
            assert r.code_system in ("ICD-9-CM", "ICD-10-CM") and r.ed_title == r.text
            assert not r.code.startswith(
                ("R", "V", "W", "X", "Y", "Z") if r.code_system == "ICD-10-CM" else ("E", "V")
            )


def test_split_is_by_patient(demo_build: tuple[Path, dict[str, Any]]) -> None:
    out, result = demo_build
    splits: dict[int, set[str]] = defaultdict(set)
    for inst in load_instances(out):
        splits[inst.subject_id].add(inst.split)
    assert all(len(s) == 1 for s in splits.values())
    assert {"train", "test"} == set().union(*splits.values())
    with (out / "split.csv").open() as f:
        from_file = {int(r["subject_id"]): r["split"] for r in csv.DictReader(f)}
    assert from_file == {s: next(iter(v)) for s, v in splits.items()}
    assert result["counts"]["test_subjects"] == sum(1 for v in from_file.values() if v == "test")


def test_same_inputs_and_seed_give_byte_identical_instances(
    demo_dir: Path, tmp_path: Path, demo_build: tuple[Path, dict[str, Any]]
) -> None:
    out, _ = demo_build
    build_earlydx(demo_dir, tmp_path / "again", EarlyDxParams())
    assert (tmp_path / "again" / "instances.jsonl").read_bytes() == (out / "instances.jsonl").read_bytes()
    build_earlydx(demo_dir, tmp_path / "seed1", EarlyDxParams(seed=1))
    assert (tmp_path / "seed1" / "split.csv").read_bytes() != (out / "split.csv").read_bytes()


def test_split_file_pins_the_split_across_windows(
    demo_dir: Path, tmp_path: Path, demo_build: tuple[Path, dict[str, Any]]
) -> None:
    out, _ = demo_build
    pinned = tmp_path / "pinned.csv"
    rows = list(csv.DictReader((out / "split.csv").open()))
    moved = int(rows[0]["subject_id"])
    rows[0]["split"] = "test" if rows[0]["split"] == "train" else "train"
    with pinned.open("w", newline="") as f:
        w = csv.DictWriter(f, ["subject_id", "split"])
        w.writeheader()
        w.writerows(rows)
    result = build_earlydx(
        demo_dir, tmp_path / "w24", EarlyDxParams(window_hours=24, seed=99), split_file=pinned
    )
    got = {i.subject_id: i.split for i in load_instances(tmp_path / "w24")}
    assert got == {int(r["subject_id"]): r["split"] for r in rows}
    assert got[moved] == rows[0]["split"] and result["counts"]["split_subjects_not_in_file"] == 0


def test_drop_sections_ablates_at_build_and_at_prompt_time(
    demo_dir: Path, tmp_path: Path, demo_build: tuple[Path, dict[str, Any]]
) -> None:
    out, _ = demo_build
    build_earlydx(demo_dir, tmp_path / "abl", EarlyDxParams(drop_sections=("labs", "history")))
    full = {i.id: i for i in load_instances(out)}
    ablated = load_instances(tmp_path / "abl")
    assert any(full[i.id].sections["labs"] for i in ablated)
    for inst in ablated:
        assert inst.sections["labs"] is None and inst.history is None
        assert inst.text.endswith("\nInitial labs: None")  # appendix I: the labs come last
        assert "\nPast ED diagnoses: None\n" in inst.text and "Prior history" not in inst.text
        assert inst.sections["triage"] == full[inst.id].sections["triage"]
        # the prompt-time ablation of the full instance gives exactly the build-time text
        assert drop_sections(full[inst.id], ("labs", "history")).text == inst.text
    demo_cc = drop_sections(next(iter(full.values())), DEMO_CC_ONLY)
    assert [k for k, v in demo_cc.sections.items() if v] == ["demographics", "chief_complaint"]


def test_rebuild_with_same_inputs_is_skipped_unless_forced(demo_dir: Path, tmp_path: Path) -> None:
    first = build_earlydx(demo_dir, tmp_path, EarlyDxParams())
    assert "skipped" not in first
    before = (tmp_path / "instances.jsonl").stat().st_mtime_ns
    again = build_earlydx(demo_dir, tmp_path, EarlyDxParams())
    assert again["skipped"] is True and again["counts"] == first["counts"]
    assert (tmp_path / "instances.jsonl").stat().st_mtime_ns == before
    changed = build_earlydx(demo_dir, tmp_path, EarlyDxParams(window_hours=6))
    assert "skipped" not in changed
    assert json.loads((tmp_path / "manifest.json").read_text())["inputs"]["params"]["window_hours"] == 6
    assert "skipped" not in build_earlydx(demo_dir, tmp_path, EarlyDxParams(window_hours=6), force=True)
    assert not (tmp_path / ".building").exists() and not (tmp_path / ".duckdb_tmp").exists()


def test_an_interrupted_duckdb_query_surfaces_as_keyboard_interrupt() -> None:
    import threading

    import duckdb

    from admitdx.tasks.earlydx.build import _interruptible

    con = duckdb.connect()
    threading.Timer(0.3, con.interrupt).start()
    with pytest.raises(KeyboardInterrupt), _interruptible():
        con.execute("SELECT count(*) FROM range(100000000000) t(i) WHERE i % 7 = 3").fetchall()


def test_label_text_dictionary_scores_long_titles_with_the_same_labels(
    demo_dir: Path, tmp_path: Path, demo_build: tuple[Path, dict[str, Any]]
) -> None:
    out, result = demo_build
    d = build_earlydx(demo_dir, tmp_path, EarlyDxParams(label_text="dictionary"))
    assert d["counts"]["labels_kept"] == result["counts"]["labels_kept"]
    ed = {i.id: i for i in load_instances(out)}
    for inst in load_instances(tmp_path):
        assert [r.code for r in inst.references] == [r.code for r in ed[inst.id].references]
        for r in inst.references:
            assert r.text == (r.dictionary_title or r.ed_title)
    septicemia = [r for i in load_instances(tmp_path) for r in i.references if r.ed_title == "SEPTICEMIA NOS"]
    assert septicemia and all(r.text == "Unspecified septicemia" for r in septicemia)


def test_an_interrupted_rebuild_leaves_the_previous_dataset_untouched(demo_dir: Path, tmp_path: Path) -> None:
    build_earlydx(demo_dir, tmp_path, EarlyDxParams())
    kept = ("instances.jsonl", "manifest.json", "split.csv", "leak_audit.jsonl")
    before = {f: (tmp_path / f).read_bytes() for f in kept}

    def stop_midway(stage: str, done: int, total: int) -> None:
        if stage == "encounters":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_earlydx(demo_dir, tmp_path, EarlyDxParams(window_hours=24), progress=stop_midway)
    assert {f: (tmp_path / f).read_bytes() for f in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [
            "instances.jsonl",
            "instances.parquet",
            "manifest.json",
            "leak_audit.jsonl",
            "coverage.csv",
            "split.csv",
            "README.md",
            "data",
        ]
    )
