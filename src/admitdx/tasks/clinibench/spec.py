"""CliniBench registered as a task: a ranked list of 3-character ICD codes (section 4), scored by the
``clinibench`` suite over ``PredictionItem.code`` (systems map their own text to codes, §4.2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from admitdx.tasks.build_notes import split_size_warning
from admitdx.tasks.clinibench.build import SCHEMA, build_clinibench
from admitdx.tasks.clinibench.params import CliniBenchParams
from admitdx.tasks.registry import register
from admitdx.tasks.spec import TaskSpec


def _one(name: str, out: dict[str, Any]) -> str:
    c = out["counts"]
    t = c["tertile_thresholds"]
    n = c["notes_per_split"]
    dropped = ", ".join(f"{k} {v}" for k, v in c["dropped"].items()) or "none"
    return (
        f"[green]CliniBench {name}[/] {c['notes']} notes ({n['train']} train / {n['val']} val / "
        f"{n['test']} test), {c['full_codes']} full / {c['short_codes']} short codes "
        f"({c['evaluated_labels']} evaluated), {c['codes_per_note']} codes and {c['tokens_per_note']} "
        f"tokens per note, tertile thresholds tail {t['tail']} / head {t['head']}; discharge exam cut "
        f"from {c.get('discharge_exam_cut', 0)} notes; dropped: {dropped}"
    )


def _small_split(name: str, out: dict[str, Any]) -> str | None:
    """The shared small-test-split warning, naming the dataset (a build may write four)."""
    c = out["counts"]
    warning = split_size_warning(c["notes_per_split"]["test"], c.get("test_subjects", 0))
    return warning.replace("the test split", f"the test split of {name}", 1) if warning else None


def _report(outputs: dict[str, Any], params: CliniBenchParams) -> list[str]:
    datasets = outputs["datasets"] if "datasets" in outputs else {outputs["dataset"]: outputs}
    lines = [_one(name, out) for name, out in datasets.items()]
    warnings = [_small_split(name, out) for name, out in datasets.items()]
    return lines + [_withheld(datasets)] + [w for w in warnings if w]


def _withheld(datasets: dict[str, Any]) -> str:
    """One line: what the fail-closed reader withheld, and the unrecognised heading spellings."""
    spellings: dict[str, int] = {}
    sections = unrecognised = 0
    for out in datasets.values():
        w = out.get("withheld_headings") or {}
        sections += w.get("sections", 0)
        unrecognised += w.get("unrecognised", 0)
        for k, v in (w.get("unrecognised_spellings") or {}).items():
            spellings[k] = spellings.get(k, 0) + v
    top = ", ".join(f"{k!r} {v}" for k, v in sorted(spellings.items(), key=lambda kv: (-kv[1], kv[0]))[:10])
    return f"withheld {sections} sections, {unrecognised} under unrecognised headings" + (
        f" (manifest withheld_headings; top: {top}; allow one with --keep-heading)" if top else ""
    )


SPEC = register(
    TaskSpec(
        name="clinibench",
        summary="CliniBench (Grundmann et al.): discharge ICD categories from the admission part of the "
        "discharge summary, per module and ICD version",
        params=CliniBenchParams,
        build=build_clinibench,
        answer="diagnoses",
        suite="clinibench",
        schema=SCHEMA,
        source_help="MIMIC-IV root with hosp/ and note/ (MIMIC-IV-Note); icu/ for --module icu.",
        # The labels left out of evaluation name part of the gold answer; whether the main
        # diagnosis is among them gives that away too.
        leaky_meta=("excluded_codes", "main_scored_as_miss"),
        prompt_dir=Path(__file__).parent / "prompts",
        prompt="predict.v1",
        matcher=None,
        example="admitdx build clinibench --mimic ROOT --out data/clinibench --module hosp --icd-version 10",
        report_build=_report,
    )
)
