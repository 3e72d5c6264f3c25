"""EarlyDx registered as a task: a ranked free-text diagnosis list, judged one-to-one (§3.3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from admitdx.tasks.build_notes import absent_sections_note, split_size_warning
from admitdx.tasks.earlydx.build import SCHEMA, build_earlydx
from admitdx.tasks.earlydx.params import DEMO_CC_ONLY, DROPPABLE, EarlyDxParams
from admitdx.tasks.registry import register
from admitdx.tasks.spec import ExtraOption, TaskSpec


def _report(outputs: dict[str, Any], params: EarlyDxParams) -> list[str]:
    counts = outputs["counts"]
    train, test = counts.get("train_encounters", 0), counts.get("test_encounters", 0)
    lab = outputs["lab_coverage_by_scope"]
    lines = [
        f"[green]EarlyDx[/] {counts['cohort_stays']} cohort stays → {counts['encounters_with_labels']} "
        f"encounters with labels ({train} train / {test} test), {counts['labels_per_encounter']} labels "
        f"per encounter, {counts['explicit_fraction']:.0%} explicit.",
        f"lab coverage: ed-stay {lab['ed-stay']['fraction']:.0%}, admission "
        f"{lab['admission']['fraction']:.0%} (this build: {params.lab_scope})",
    ]
    if params.drop_sections == DEMO_CC_ONLY:
        lines.append("input restricted to demographics + chief complaint (the paper's demo+CC ablation)")
    notes = (
        split_size_warning(test, counts.get("test_subjects", 0)),
        absent_sections_note(outputs.get("sections_absent_source") or ()),
    )
    return lines + [n for n in notes if n]


SPEC = register(
    TaskSpec(
        name="earlydx",
        summary="EarlyDx (Fang et al., KDD 2026): ED-encounter diagnoses from what is charted by admission",
        params=EarlyDxParams,
        build=build_earlydx,
        answer="diagnoses",
        suite="earlydx",
        schema=SCHEMA,
        # Recorded at ED departure, i.e. the admission decision itself; never model input.
        leaky_meta=("ed_disposition",),
        prompt_dir=Path(__file__).parent / "prompts",
        prompt="predict.v1",
        matcher="llm_judge",
        example="admitdx build earlydx --mimic ../shared/data/mimic-iv-demo --out data/earlydx",
        extra_options=(
            ExtraOption(
                "keep_sections",
                f"Keep only these sections (comma-separated), e.g. demographics,chief_complaint "
                f"(the paper's demo+CC); the rest of {', '.join(DROPPABLE)} are dropped.",
            ),
        ),
        report_build=_report,
    )
)
