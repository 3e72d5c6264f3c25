"""``admitdx build clinibench`` on synthetic MIMIC-IV: leakage, labels, split, manifest, bad input."""

from __future__ import annotations

import csv
import gzip
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from admitdx.cli import app
from admitdx.contracts import load_instances
from admitdx.errors import InputError
from admitdx.ontology import icd
from admitdx.runs import read_manifest
from admitdx.sources.mimic import open_mimic
from admitdx.synthetic.notes import LEAKAGE_SECTIONS
from admitdx.synthetic.tables import header
from admitdx.synthetic.truth import read_note_sections
from admitdx.tasks.clinibench import read_vocabulary

VARIANTS = ("hosp-icd9", "hosp-icd10", "icu-icd9", "icu-icd10")


def _invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def _cli(*args: str) -> tuple[int, str]:
    """The real command line (exit codes and messages as a user sees them), whitespace collapsed."""
    cmd = [sys.executable, "-c", "from admitdx.cli import main; main()", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return done.returncode, " ".join((done.stdout + done.stderr).split())


#: Heading spellings the notes of :func:`varied_root` use instead of the template's, one per note
#: in turn (``tests/data/clinibench_headings.csv`` says where each comes from).
SPELLINGS: dict[str, tuple[str, ...]] = {
    "DISCHARGE PHYSICAL EXAM:": (
        "DISCHARGE PHYSICAL EXAMINATION:", "*DISCHARGE EXAM*", "PE on discharge:", "Discharge exam:",
        "Physical exam on discharge:", "=== DISCHARGE EXAM ===", "Exam at time of discharge:",
        "ON DISCHARGE:", "Discharge:", "Discharge PE:", "PHYSICAL EXAMINATION AT DISCHARGE:",
        "DISCHARGE PHYSICAL EXAM:",
    ),
    "ADMISSION PHYSICAL EXAM:": ("ADMISSION PHYSICAL EXAMINATION:", "*ADMISSION EXAM*", "On admission:"),
    "Physical Exam:": ("PHYSICAL EXAMINATION:", "Physical Exam:"),
    "History of Present Illness:": ("HISTORY OF THE PRESENT ILLNESS:", "History of Present Illness:"),
    "Brief Hospital Course:": ("Hospital Course:", "COURSE IN THE HOSPITAL", "___ Hospital Course:"),
    "Medications on Admission:": ("Admission Medications:", "MEDS ON ADMISSION:"),
    "Discharge Medications:": ("Medications on Discharge:", "DISCHARGE MEDS:", "discharge medication:"),
    "Discharge Diagnosis:": ("DISCHARGE DIAGNOSES:", "Final Diagnosis:", "Discharge Dx:", "___ Diagnosis:"),
    "Discharge Condition:": ("Condition at discharge:", "CONDITION UPON DISCHARGE", "___ Condition:"),
    "Followup Instructions:": ("Follow-up Instructions:", "FOLLOW UP"),
}  # fmt: skip


@pytest.fixture(scope="module")
def varied_root(synthetic_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic root with its discharge notes' headings respelt (:data:`SPELLINGS`); the
    section bodies, and so the ``_truth`` records, are unchanged. A heading already respelt by the
    generator is left as it is."""
    root = tmp_path_factory.mktemp("varied")
    for module in synthetic_root.iterdir():
        if module.name != "note":
            (root / module.name).symlink_to(module, target_is_directory=True)
    (root / "note").mkdir()
    for table in (synthetic_root / "note").iterdir():
        if table.name != "discharge.csv.gz":
            (root / "note" / table.name).symlink_to(table)
    with gzip.open(synthetic_root / "note/discharge.csv.gz", "rt", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    text = rows[0].index("text")
    for i, row in enumerate(rows[1:]):
        for template, spellings in SPELLINGS.items():
            row[text] = row[text].replace(f"\n{template}\n", f"\n{spellings[i % len(spellings)]}\n", 1)
    with gzip.open(root / "note/discharge.csv.gz", "wt", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return root


@pytest.fixture(scope="module")
def built(varied_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("clinibench")
    result = _invoke("build", "clinibench", "--mimic", str(varied_root), "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_four_datasets_each_with_its_manifest(built: Path) -> None:
    top = read_manifest(built)
    assert sorted(top["outputs"]["datasets"]) == sorted(VARIANTS)
    for name in VARIANTS:
        manifest = read_manifest(built / name)
        module, version = name.split("-icd")
        assert manifest["inputs"]["params"]["module"] == module
        assert manifest["inputs"]["params"]["icd_version"] == int(version)
        insts = load_instances(built / name)
        assert insts and {i.task for i in insts} == {"clinibench"}
        assert {r.code_system for i in insts for r in i.references} == {f"ICD-{version}-CM"}
        assert manifest["outputs"]["counts"]["notes"] == len(insts)


def test_icu_and_hosp_are_disjoint_and_together_every_admission(synthetic_root: Path, built: Path) -> None:
    """hosp holds the admissions without an ICU stay, icu those with one (issue 20: the reading
    under which the paper's table 1 sums to 99 % of MIMIC-IV-Note); the manifest counts the ICU
    admissions left out of hosp."""
    with open_mimic(synthetic_root) as src:
        icu = {r[0] for r in src.con.execute("SELECT hadm_id FROM icu.icustays").fetchall()}
    for version in (9, 10):
        hosp = {i.hadm_id for i in load_instances(built / f"hosp-icd{version}")}
        in_icu = {i.hadm_id for i in load_instances(built / f"icu-icd{version}")}
        assert in_icu <= icu and not hosp & icu and in_icu and hosp
        dropped = read_manifest(built / f"hosp-icd{version}")["outputs"]["counts"]["dropped"]
        assert dropped["icu_stay_in_icu_dataset"] == len(in_icu)


def test_no_leakage_section_text_reaches_any_instance(synthetic_root: Path, built: Path) -> None:
    """Every line of every leakage section (brief hospital course, discharge diagnosis, discharge
    exam, …) of every note, under any of the heading spellings of :data:`SPELLINGS`, is absent from
    the instance built from it, unless the admission-time sections say it too (discharge
    medications repeat the home ones); the positive control below shows the check can see a leak.
    The manifest counts the notes whose discharge exam was cut: here every note that has one."""
    truth = {rec["hadm_id"]: rec["sections"] for rec in read_note_sections(synthetic_root)}
    checked = 0
    for name in VARIANTS:
        for inst in load_instances(built / name):
            sections = truth[inst.hadm_id]
            admission = " ".join(" ".join(sections[s].split()) for s in sections if s not in LEAKAGE_SECTIONS)
            for section in LEAKAGE_SECTIONS:
                for line in sections[section].splitlines():
                    line = " ".join(line.split())
                    if len(line) >= 12 and line not in admission:
                        assert line not in inst.text, (inst.id, section, line)
                        checked += 1
            assert " ".join(sections["chief_complaint"].split()) in inst.text
            assert " ".join(sections["physical_exam_admission"].split()) in inst.text
    assert checked > 1000
    with_exam = {hadm for hadm, sections in truth.items() if sections.get("physical_exam_discharge")}
    for name in VARIANTS:
        cut = read_manifest(built / name)["outputs"]["counts"]["discharge_exam_cut"]
        assert cut == sum(i.hadm_id in with_exam for i in load_instances(built / name)) > 0


def test_leak_detector_sees_the_discharge_exam_when_not_cut(
    synthetic_root: Path, built: Path, tmp_path: Path
) -> None:
    out = tmp_path / "whole"
    args = ["--module", "hosp", "--icd-version", "10", "--physical-exam", "whole"]
    assert (
        _invoke("build", "clinibench", "--mimic", str(synthetic_root), "--out", str(out), *args).exit_code
        == 0
    )
    truth = {rec["hadm_id"]: rec["sections"] for rec in read_note_sections(synthetic_root)}
    inst = load_instances(out)[0]
    first = truth[inst.hadm_id]["physical_exam_discharge"].splitlines()[0]
    assert first in inst.text
    # one split for the build: this dataset built alone has the split it has among all four
    assert {i.id: i.split for i in load_instances(out)} == {
        i.id: i.split for i in load_instances(built / "hosp-icd10")
    }


def test_labels_are_rolled_up_deduplicated_main_first(synthetic_root: Path, built: Path) -> None:
    with open_mimic(synthetic_root) as src:
        rows = src.con.execute(
            "SELECT hadm_id, seq_num, icd_code, icd_version FROM hosp.diagnoses_icd"
        ).fetchall()
    billed: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    for hadm, seq, code, version in rows:
        billed[hadm].append((seq, code, version))
    for name in ("hosp-icd9", "hosp-icd10"):
        vocabulary = set(read_vocabulary(built / name))
        for inst in load_instances(built / name):
            codes = sorted(billed[inst.hadm_id])
            expected = list(dict.fromkeys(icd.roll_up(c, v) for _, c, v in codes))
            evaluated = [c for c in expected if c in vocabulary]
            assert [r.code for r in inst.references] == evaluated
            excluded = [c for c in expected if c not in vocabulary]
            assert inst.meta["excluded_codes"] == (",".join(excluded) or None)
            if evaluated and evaluated[0] == expected[0]:
                assert inst.references[0].seq_num == 1
            for r in inst.references:
                assert r.text and r.text != r.code  # a category title
    e_codes = [r.code for i in load_instances(built / "hosp-icd9") for r in i.references if r.code[0] == "E"]
    assert all(len(c) == 4 for c in e_codes)


def test_roll_up_of_icd9_e_and_v_codes() -> None:
    """ICD-9 E codes keep 4 characters (E888 'Other and unspecified fall', not 'E88'), V codes 3."""
    assert icd.roll_up("E8889", 9) == "E888"
    assert icd.roll_up("V5861", 9) == "V58"
    assert icd.roll_up("E119", 10) == "E11"


def test_split_grouped_by_patient_and_labels_in_all_splits(built: Path) -> None:
    across: dict[int, set[str]] = defaultdict(set)  # one split per patient over all four datasets
    for name in VARIANTS:
        for inst in load_instances(built / name):
            across[inst.subject_id].add(inst.split)
    assert len(across) > 100 and all(len(s) == 1 for s in across.values())
    for name in VARIANTS:
        insts = load_instances(built / name)
        split_of: dict[int, set[str]] = defaultdict(set)
        for inst in insts:
            split_of[inst.subject_id].add(inst.split)
        assert all(len(s) == 1 for s in split_of.values()), name
        assert {i.split for i in insts} == {"train", "val", "test"}
        vocabulary = read_vocabulary(built / name)
        per_split: dict[str, set[str]] = defaultdict(set)
        for inst in insts:
            per_split[inst.split].update(r.code for r in inst.references)
        for code in vocabulary:
            assert all(code in per_split[s] for s in ("train", "val", "test")), (name, code)
        manifest = read_manifest(built / name)["outputs"]
        with (built / name / "labels.csv").open(newline="") as f:
            excluded = sorted(r["code"] for r in csv.DictReader(f) if r["evaluated"] == "0")
        assert manifest["excluded_labels"] == excluded
        assert manifest["counts"]["evaluated_labels"] == len(vocabulary)


def test_manifest_reports_table_one(built: Path) -> None:
    counts = read_manifest(built / "hosp-icd10")["outputs"]["counts"]
    insts = load_instances(built / "hosp-icd10")
    assert counts["notes"] == len(insts)
    assert counts["short_codes"] == counts["evaluated_labels"] + counts["excluded_labels"]
    assert counts["full_codes"] >= counts["short_codes"]
    # calibrated to table 1: hosp ICD-10 12.9, icu ICD-10 18.4 codes per note
    assert 11.0 <= counts["codes_per_note"] <= 15.0
    assert 15.5 <= read_manifest(built / "icu-icd10")["outputs"]["counts"]["codes_per_note"] <= 21.5
    t = counts["tertile_thresholds"]
    assert t["head"] >= t["tail"] - 1 > 0
    assert counts["tokens_per_note"] > 50


def _root(tmp_path: Path, synthetic_root: Path, modules: tuple[str, ...]) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    for module in modules:
        (root / module).symlink_to(synthetic_root / module, target_is_directory=True)
    return root


def test_missing_note_module_is_exit_2_naming_mimic_iv_note(synthetic_root: Path, tmp_path: Path) -> None:
    root = _root(tmp_path, synthetic_root, ("hosp", "ed"))
    code, output = _cli("build", "clinibench", "--mimic", str(root), "--out", str(tmp_path / "o"))
    assert code == 2
    assert "note.discharge" in output and "CliniBench needs MIMIC-IV-Note" in output
    assert "Traceback" not in output


def test_missing_icustays_is_exit_2_unless_hosp_includes_icu(synthetic_root: Path, tmp_path: Path) -> None:
    root = _root(tmp_path, synthetic_root, ("hosp", "ed", "note"))
    out = str(tmp_path / "o")
    code, output = _cli("build", "clinibench", "--mimic", str(root), "--out", out, "--module", "hosp")
    assert (
        code == 2
        and "icu/icustays" in output
        and "--hosp-icu include" in output
        and "Traceback" not in output
    )
    with pytest.raises(InputError, match="which --module icu needs"):  # the same exit 2, in process
        _invoke("build", "clinibench", "--mimic", str(root), "--out", out, "--module", "icu")
    hosp = _invoke(
        "build", "clinibench", "--mimic", str(root), "--out", out, "--module", "hosp", "--hosp-icu", "include"
    )
    assert hosp.exit_code == 0, hosp.output


def _write(path: Path, table: str, rows: list[tuple]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header(table))
        w.writerows(rows)


def test_note_without_any_header_is_exit_2_naming_the_note(tmp_path: Path) -> None:
    root = tmp_path / "root"
    admissions = [
        (10000001, 20000001, "2150-01-01 10:00:00", "2150-01-03 10:00:00", None, "EW EMER.", "P1",
         "EMERGENCY ROOM", "HOME", "Medicare", "ENGLISH", "SINGLE", "WHITE", None, None, 0),
        (10000002, 20000002, "2150-02-01 10:00:00", "2150-02-03 10:00:00", None, "EW EMER.", "P1",
         "EMERGENCY ROOM", "HOME", "Medicare", "ENGLISH", "SINGLE", "WHITE", None, None, 0),
    ]  # fmt: skip
    _write(root / "hosp/admissions.csv.gz", "hosp.admissions", admissions)
    _write(root / "hosp/patients.csv.gz", "hosp.patients", [(10000001, "F", 60, 2150, "2014 - 2016", None)])
    _write(root / "hosp/diagnoses_icd.csv.gz", "hosp.diagnoses_icd", [(10000001, 20000001, 1, "J189", 10)])
    notes = [
        (
            "10000001-DS-1",
            10000001,
            20000001,
            "DS",
            1,
            "2150-01-03 00:00:00",
            None,
            "Chief Complaint:\ncough\n",
        ),
        ("10000002-DS-1", 10000002, 20000002, "DS", 1, "2150-02-03 00:00:00", None, "free text, no headers"),
    ]
    _write(root / "note/discharge.csv.gz", "note.discharge", notes)
    code, output = _cli(
        "build",
        "clinibench",
        "--mimic",
        str(root),
        "--out",
        str(tmp_path / "o"),
        "--module",
        "hosp",
        "--hosp-icu",
        "include",
    )
    assert code == 2, output
    assert "10000002-DS-1" in output and "no recognisable section header" in output
    assert "Traceback" not in output


def test_rebuild_with_same_inputs_is_skipped(varied_root: Path, built: Path) -> None:
    result = _invoke("build", "clinibench", "--mimic", str(varied_root), "--out", str(built))
    assert result.exit_code == 0 and "already holds this build" in result.output
    assert json.loads((built / "manifest.json").read_text())["stage"] == "build clinibench"
    # the small-split warning, per dataset that needs it (< 100 test notes or < 60 test patients)
    output = " ".join(result.output.split())
    for name in VARIANTS:
        counts = read_manifest(built / name)["outputs"]["counts"]
        test = load_instances(built / name, "test")
        assert counts["test_subjects"] == len({i.subject_id for i in test})
        small = len(test) < 100 or counts["test_subjects"] < 60
        warning = (
            f"the test split of {name} has {len(test)} encounters from {counts['test_subjects']} patients"
        )
        assert (warning in output) == small, (name, len(test), counts["test_subjects"])
    assert "warning" in output  # a 300-patient root: at least the icu datasets are small


@pytest.mark.slow
def test_split_proportions_within_one_point_on_a_large_root(tmp_path: Path) -> None:
    from admitdx.synthetic import generate_synthetic

    root = generate_synthetic(tmp_path / "root", patients=2500, seed=3).root
    out = tmp_path / "cb"
    assert (
        _invoke("build", "clinibench", "--mimic", str(root), "--out", str(out), "--module", "hosp").exit_code
        == 0
    )
    for name in ("hosp-icd9", "hosp-icd10"):
        insts = load_instances(out / name)
        assert len(insts) > 1000
        for split, fraction in (("train", 0.7), ("val", 0.1), ("test", 0.2)):
            share = sum(i.split == split for i in insts) / len(insts)
            assert abs(share - fraction) <= 0.01, (name, split, share)
        subjects: dict[int, set[str]] = defaultdict(set)
        for inst in insts:
            subjects[inst.subject_id].add(inst.split)
        assert all(len(s) == 1 for s in subjects.values())


def test_split_file_reused_and_ungrouped_split(synthetic_root: Path, built: Path, tmp_path: Path) -> None:
    one = ["--module", "hosp", "--icd-version", "10"]
    reused = tmp_path / "reused"
    split_file = str(built / "hosp-icd10" / "split.csv")
    args = [
        "--mimic",
        str(synthetic_root),
        "--out",
        str(reused),
        "--split-file",
        split_file,
        "--seed",
        "9",
        *one,
    ]
    assert _invoke("build", "clinibench", *args).exit_code == 0
    before = {i.id: i.split for i in load_instances(built / "hosp-icd10")}
    assert {i.id: i.split for i in load_instances(reused)} == before  # the file wins over the new seed
    assert read_manifest(reused)["outputs"]["counts"]["split_subjects_not_in_file"] == 0
    notes = tmp_path / "notes"
    args = ["--mimic", str(synthetic_root), "--out", str(notes), "--set", "group_by_patient=false", *one]
    assert _invoke("build", "clinibench", *args).exit_code == 0
    assert not (notes / "split.csv").exists()
    assert {i.split for i in load_instances(notes)} == {"train", "val", "test"}


def test_load_dataset_gives_one_configuration_per_dataset(built: Path, tmp_path: Path) -> None:
    """``datasets.load_dataset(DIR, NAME)`` on a four-dataset build: each dataset with its own
    splits and rows, never two datasets merged (issue 20: 671 rows of 568 notes before)."""
    datasets = pytest.importorskip("datasets")
    top = read_manifest(built)["outputs"]
    for name in VARIANTS:
        loaded = datasets.load_dataset(str(built), name, cache_dir=str(tmp_path))
        expected = {s: n for s, n in top["datasets"][name]["counts"]["notes_per_split"].items() if n}
        assert {s: loaded[s].num_rows for s in loaded} == expected
        ids = {row for s in loaded for row in loaded[s]["id"]}
        assert ids == {i.id for i in load_instances(built / name)}
        assert set(loaded["train"]["split"]) == {"train"}
    with pytest.raises(ValueError, match="available configs"):  # no name: it asks, never merges
        datasets.load_dataset(str(built), cache_dir=str(tmp_path))
    assert top["table_1"]["icu-icd9"]["notes"] == top["datasets"]["icu-icd9"]["counts"]["notes"]
