"""Command-line verbs for building task sets and exporting them: ``admitdx build earlydx`` and
``admitdx export sft``. Thin wrappers: the work is in :mod:`admitdx.tasks`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    TaskID,
)

from admitdx.errors import UsageError
from admitdx.progress import progress_bar
from admitdx.tasks.earlydx.params import DEMO_CC_ONLY, DROPPABLE, PAPER_TEST_FRACTION, EarlyDxParams

build_app = typer.Typer(
    help="Build a benchmark's task set from a MIMIC-IV root.\n\n"
    "Example: admitdx build earlydx --mimic ~/mimic-iv --out data/earlydx",
    no_args_is_help=True,
)
export_app = typer.Typer(
    help="Export a built dataset for other tools.\n\n"
    "Example: admitdx export sft --dataset data/earlydx --out data/sft",
    no_args_is_help=True,
)


def _names(value: str | None) -> tuple[str, ...]:
    return tuple(s.strip() for s in value.split(",") if s.strip()) if value else ()


_LAB_SCOPE_HELP = (
    "ed-stay: results from ED arrival on, whatever their hadm_id; admission: the authors' builder."
)
_DROP_HELP = f"Comma-separated sections to ablate (appendix P): {', '.join(DROPPABLE)}."
_KEEP_HELP = "Keep only these sections, e.g. demographics,chief_complaint (the paper's demo+CC)."
_Opt = typer.Option


@build_app.command("earlydx")
def earlydx(
    mimic: Annotated[
        Path, _Opt("--mimic", help="MIMIC-IV root: hosp/, ed/ (note/, ecg/, echo/ if present).")
    ],
    out: Annotated[Path, _Opt("--out", help="Dataset directory to write.")],
    window_hours: Annotated[float, _Opt(help="W: keep evidence charted by t0 + W hours (paper: 0).")] = 0.0,
    timestamps: Annotated[
        str, _Opt(help="charttime (paper) or storetime, for labs and radiology.")
    ] = "charttime",
    lab_scope: Annotated[str, _Opt(help=_LAB_SCOPE_HELP)] = "ed-stay",
    label_text: Annotated[str, _Opt(help="ed: ED table title (paper); dictionary: ICD long title.")] = "ed",
    test_fraction: Annotated[
        float, _Opt(help="Share of patients in test (paper: 6975/120789).")
    ] = PAPER_TEST_FRACTION,
    seed: Annotated[int, _Opt(help="Seed of the patient-level split.")] = 0,
    split_file: Annotated[Path | None, _Opt(help="Reuse the split.csv of an earlier build.")] = None,
    drop_sections: Annotated[str | None, _Opt(help=_DROP_HELP)] = None,
    keep_sections: Annotated[str | None, _Opt(help=_KEEP_HELP)] = None,
    lab_char_budget: Annotated[int, _Opt(help="Characters of the lab line (authors: 700).")] = 700,
    memory_limit: Annotated[str, _Opt(help="DuckDB memory cap; larger work spills to --out.")] = "3GB",
    force: Annotated[bool, _Opt(help="Rebuild even if --out holds a build of the same inputs.")] = False,
) -> None:
    """Build the EarlyDx task set: admission-anchored inputs, filtered ED-diagnosis labels, patient split.

    Example: admitdx build earlydx --mimic ../shared/data/mimic-iv-demo --out data/earlydx --window-hours 0
    """
    from admitdx.tasks.earlydx import build_earlydx

    if drop_sections and keep_sections:
        raise UsageError("give --drop-sections or --keep-sections, not both")
    dropped = _names(drop_sections)
    if keep_sections:
        keep = _names(keep_sections)
        unknown = [k for k in keep if k not in DROPPABLE]
        if unknown:
            raise UsageError(
                f"unknown section(s): {', '.join(unknown)}", hint=f"choose from {', '.join(DROPPABLE)}"
            )
        dropped = tuple(s for s in DROPPABLE if s not in keep)
    params = EarlyDxParams(
        window_hours=window_hours,
        timestamps=timestamps,  # type: ignore[arg-type]
        lab_scope=lab_scope,  # type: ignore[arg-type]
        label_text=label_text,  # type: ignore[arg-type]
        test_fraction=test_fraction,
        seed=seed,
        drop_sections=dropped,
        lab_char_budget=lab_char_budget,
    )
    console = Console(stderr=True)
    try:
        with progress_bar(console) as bar:
            tasks: dict[str, TaskID] = {}

            def report(stage: str, done: int, total: int) -> None:
                if stage not in tasks:
                    label = "building evidence tables" if stage == "sections" else "writing encounters"
                    tasks[stage] = bar.add_task(label, total=total)
                bar.update(tasks[stage], completed=done, total=total)

            result = build_earlydx(
                mimic,
                out,
                params,
                split_file=split_file,
                progress=report,
                memory_limit=memory_limit,
                force=force,
            )
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]: nothing was written; rerun the same command to build again.")
        raise typer.Exit(130) from None
    if result.get("skipped"):
        console.print(f"{out} already holds this build (same inputs and parameters); use --force to rebuild.")
    counts = result["counts"]
    train, test = counts.get("train_encounters", 0), counts.get("test_encounters", 0)
    console.print(
        f"[green]EarlyDx[/] {counts['cohort_stays']} cohort stays → {counts['encounters_with_labels']} "
        f"encounters with labels ({train} train / {test} test), {counts['labels_per_encounter']} labels "
        f"per encounter, {counts['explicit_fraction']:.0%} explicit."
    )
    lab = result["lab_coverage_by_scope"]
    console.print(
        f"lab coverage: ed-stay {lab['ed-stay']['fraction']:.0%}, admission "
        f"{lab['admission']['fraction']:.0%} (this build: {params.lab_scope}); "
        f"see {out / 'coverage.csv'} and {out / 'manifest.json'}"
    )
    if dropped == DEMO_CC_ONLY:
        console.print("input restricted to demographics + chief complaint (the paper's demo+CC ablation)")


_RATIONALES_HELP = "rationales.jsonl of `admitdx rationale`: reasoning before the diagnoses (CoT SFT)."
_EVIDENCE_HELP = "Keep only labels of these evidence classes, e.g. supported,partial (audited datasets)."


@export_app.command("sft")
def sft(
    dataset: Annotated[Path, _Opt("--dataset", help="A built EarlyDx dataset directory.")],
    out: Annotated[Path, _Opt("--out", help="Directory for <split>.jsonl and <split>.parquet.")],
    splits: Annotated[str, _Opt(help="Comma-separated splits to export.")] = "train,test",
    evidence: Annotated[str | None, _Opt(help=_EVIDENCE_HELP)] = None,
    system_prompt: Annotated[
        Path | None, _Opt(help="File with a system prompt replacing the default.")
    ] = None,
    rationales: Annotated[Path | None, _Opt(help=_RATIONALES_HELP)] = None,
) -> None:
    """Write chat-format (system/user/assistant) JSONL and Parquet for supervised fine-tuning.

    Example: admitdx export sft --dataset data/earlydx --out data/earlydx-sft --splits train
    """
    from admitdx.tasks.earlydx.export import DEFAULT_SYSTEM_PROMPT, export_sft

    prompt = system_prompt.read_text(encoding="utf-8").strip() if system_prompt else DEFAULT_SYSTEM_PROMPT
    counts = export_sft(
        dataset,
        out,
        splits=_names(splits),
        evidence=_names(evidence) or None,
        system_prompt=prompt,
        rationales=rationales,
    )
    for split, c in counts.items():
        typer.echo(f"{split}: {c['examples']} examples → {out / f'{split}.jsonl'}")


def register(app: typer.Typer) -> None:
    """Add ``build`` (task builders) and ``export`` to the root app."""
    app.add_typer(build_app, name="build")
    app.add_typer(export_app, name="export")
