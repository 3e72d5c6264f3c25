"""``admitdx match`` (pair predictions with references) and ``admitdx agree`` (compare two matchers)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import TaskID
from rich.table import Table

from admitdx.cli.executor_options import (
    ExecutorOption,
    RayAddressOption,
    RayShardOption,
    RayWorkersOption,
    open_executor,
)
from admitdx.cli.options import FLAG, parse_key_values, prediction_dirs
from admitdx.errors import UsageError
from admitdx.matching import MATCHERS, create_matcher
from admitdx.progress import progress_bar
from admitdx.yaml_reader import load_yaml

if TYPE_CHECKING:  # the runner and agreement are imported by the verbs that run them (fast --help)
    from admitdx.matching.base import Matcher


def _params(config: Path | None, pairs: list[str]) -> dict[str, Any]:
    """Matcher parameters: the YAML mapping in ``config``, then each ``KEY=VALUE`` (YAML-typed) on top."""
    params: dict[str, Any] = {}
    if config is not None:
        if not config.exists():
            raise UsageError(f"config file {config} not found")
        loaded = load_yaml(config.read_text(encoding="utf-8"), str(config)) or {}
        if not isinstance(loaded, dict):
            raise UsageError(
                f"{config} must hold a mapping of matcher parameters", hint="e.g. `threshold: 0.6`"
            )
        params.update(loaded)
    params.update(parse_key_values(pairs, "--set"))
    return params


def match(
    dataset: Annotated[
        Path | None, typer.Option("--dataset", help="Dataset directory (with instances.jsonl).")
    ] = None,
    predictions: Annotated[
        list[Path] | None,
        typer.Option(
            "--predictions",
            help="Predictions directory; repeat or list several: the matcher (and its model) loads once.",
        ),
    ] = None,
    matcher: Annotated[str, typer.Option("--matcher", help=f"One of: {', '.join(MATCHERS)}.")] = "guarded",
    calibrate: Annotated[
        bool,
        typer.Option(
            "--calibrate",
            help="Choose the guarded matcher's thresholds on --pairs under --precision-floor and record "
            "them (the matcher's default from then on); no --dataset or --predictions.",
            metavar=FLAG,
        ),
    ] = False,
    pairs: Annotated[
        list[Path] | None,
        typer.Option(
            "--pairs",
            help="Adjudicated pair file (JSON lines) for --calibrate; repeat it to calibrate on several "
            "files' union.",
        ),
    ] = None,
    precision_floor: Annotated[
        float,
        typer.Option("--precision-floor", min=0.0, max=1.0, help="Least precision --calibrate accepts."),
    ] = 0.95,
    extra: Annotated[
        list[Path] | None, typer.Argument(help="More predictions directories.", show_default=False)
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="YAML mapping of matcher parameters.")
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            "--param",
            help="Matcher parameter KEY=VALUE (repeatable; overrides --config); --param is the old name.",
        ),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option("--name", help="Output name (matches/NAME.jsonl); default: the matcher name."),
    ] = None,
    allow_label_change: Annotated[
        bool,
        typer.Option(
            help="Match predictions made on the same inputs with other labels (another audit), rewriting "
            "matches made against the old labels; recorded in the summary. Other inputs are refused.",
            metavar=FLAG,
        ),
    ] = False,
    allow_no_manifest: Annotated[
        bool,
        typer.Option(
            help="Match predictions that have no manifest.json of `admitdx predict` (made outside admitdx): "
            "nothing then checks that they were made on --dataset; recorded in the summary.",
            metavar=FLAG,
        ),
    ] = False,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    ray_workers: RayWorkersOption = 2,
    ray_shard_size: RayShardOption = 8,
) -> None:
    """Pair each prediction with the references it names, one-to-one, into PREDICTIONS/matches/NAME.jsonl.

    Matchers: guarded (the default: similar wording, agreeing ICD codes and no contrast such as
    hypo/hyper, acute/chronic, left/right), exact (normalised text), embedding (calibrated cosine
    threshold), icd (text → ICD code, category or full), llm_judge (a model returns the pairs;
    `--set local=true` starts the bundled llama.cpp server), manual (a filled-in review CSV:
    `--set csv=review.csv`).
    Cached by content: a rerun recomputes nothing that has not changed; Ctrl-C keeps finished work.
    Several predictions directories are matched in one call with one matcher, so an embedding model
    or a local judge loads once.

    --calibrate chooses the guarded matcher's thresholds on adjudicated pair files (repeat --pairs:
    their union) and records them with each file's version and the precision and recall reached.
    With --matcher llm_judge, the agreement with the guarded matcher's matches (when there) is
    printed in EarlyDx's two forms.

    Example: admitdx match --dataset runs/earlydx --predictions runs/knn runs/llm --matcher guarded

    Example: admitdx match --calibrate --pairs tests/data/blind/pairs/pairs_dev.jsonl
    --pairs tests/data/blind/pairs/pairs_heldout.jsonl --pairs tests/data/blind/pairs2/pairs_heldout2.jsonl
    """
    console = Console(stderr=True)
    if calibrate:
        _calibrate(console, pairs, precision_floor, _params(config, param or []))
        return
    if dataset is None or not predictions:
        raise UsageError("match needs --dataset and --predictions", hint="or --calibrate --pairs FILE")
    if executor != "local" and matcher != "llm_judge":
        raise UsageError(
            f"--executor {executor} runs the calls of the llm_judge matcher; {matcher} makes none",
            hint="leave out --executor, or use --matcher llm_judge",
        )
    with open_executor(executor, ray_address, ray_workers, ray_shard_size) as runs_on:
        on = {"executor": runs_on} if matcher == "llm_judge" else {}
        m = create_matcher(matcher, **{**_params(config, param or []), **on})
        try:
            for directory in prediction_dirs([*predictions, *(extra or [])]):
                _match_one(console, m, dataset, directory, name, allow_label_change, allow_no_manifest)
        except KeyboardInterrupt:
            console.print(
                "[yellow]interrupted[/]: finished matches are kept; rerun the same command to continue"
            )
            raise typer.Exit(130) from None
        finally:
            m.close()


def _calibrate(console: Console, pairs: list[Path] | None, floor: float, params: dict[str, Any]) -> None:
    """``match --calibrate``: choose and record the guarded matcher's thresholds on ``pairs``."""
    from admitdx.matching.guard_calibration import calibrate, record_guard_calibration

    if not pairs:
        raise UsageError(
            "--calibrate needs --pairs FILE", hint="e.g. --pairs tests/data/blind/pairs/pairs_dev.jsonl"
        )
    for path in pairs:
        if not path.is_file():
            raise UsageError(f"no pair file {path}")
    # the thresholds are being chosen: any recorded ones only seed the matcher
    matcher = create_matcher(
        "guarded", **{"threshold": 0.5, "agree_threshold": 0.3, "near_identical": 0.9, **params}
    )
    result = calibrate(matcher, pairs, floor)
    path = record_guard_calibration(result)
    t = result.thresholds
    met = "" if result.floor_met else f" [yellow](the floor {floor} was not reached)[/]"
    console.print(
        f"guarded on {result.set_version}: threshold {t.threshold}, agree_threshold {t.agree_threshold}, "
        f"near_identical {t.near_identical} → precision {result.precision:.3f}, recall {result.recall:.3f}, "
        f"agreement {result.agreement:.3f}{met} → {path}"
    )
    for f in result.files if len(result.files) > 1 else []:
        scores = f"precision {f['precision']:.3f}, recall {f['recall']:.3f}"
        console.print(f"  {f['file']} ({f['n_pairs']} pairs): {scores}")


def _match_one(
    console: Console,
    m: Matcher,
    dataset: Path,
    predictions: Path,
    name: str | None,
    allow_label_change: bool,
    allow_no_manifest: bool,
) -> None:
    """Match one predictions directory with an already created matcher and print its summary."""
    from admitdx.matching.runner import run_matcher

    with progress_bar(console, transient=True) as progress:
        bar = progress.add_task(f"matching ({m.name})", total=None)
        if hasattr(m, "on_progress"):  # one-time steps inside a matcher (ICD titles) get their own row
            rows: dict[str, TaskID] = {}

            def step(what: str, done: int, total: int) -> None:
                if what not in rows:
                    rows[what] = progress.add_task(what, total=total)
                progress.update(rows[what], completed=done, total=total)

            m.on_progress = step
        run = run_matcher(
            m,
            dataset,
            predictions,
            label=name,
            on_progress=lambda done, total: progress.update(bar, completed=done, total=total),
            allow_label_change=allow_label_change,
            allow_no_manifest=allow_no_manifest,
        )
    extra = {
        k: v for k, v in run.summary.items() if k in ("unmapped_share", "judge_errors", "parse_failures")
    }
    console.print(
        f"{run.summary['label']}: {run.summary['instances']} instances ({run.computed} computed, "
        f"{run.cached} from cache), {run.summary['pairs']} pairs"
        + "".join(f", {k} {v:.3g}" if isinstance(v, float) else f", {k} {v}" for k, v in extra.items())
        + f" → {run.path}"
    )
    if m.name == "llm_judge":
        _judge_agreement(console, dataset, predictions, run.summary["label"])


def _judge_agreement(console: Console, dataset: Path, predictions: Path, label: str) -> None:
    """EarlyDx §3.5's two agreement forms of the judge with the offline matcher, when it has matched."""
    from admitdx.matching.agreement import write_agreement
    from admitdx.matching.runner import matches_path

    if not matches_path(predictions, "guarded").exists():
        console.print(
            "no guarded matches here to compare the judge with: run `admitdx match` (guarded) first"
        )
        return
    result, path = write_agreement(dataset, predictions, label, "guarded")
    if not result.compared:
        console.print(f"{label} vs guarded: no instance compared → {path}")
        return
    console.print(
        f"{label} vs guarded on {result.compared} instances: matched-pair count equal on "
        f"{result.exact_count_agreement:.1%}, within one pair on {result.within_one_agreement:.1%} "
        f"(EarlyDx: 89.7 % and 99.9 % between two LLM judges) → {path}"
    )


def agree(
    dataset: Annotated[Path, typer.Option("--dataset", help="Dataset directory (with instances.jsonl).")],
    predictions: Annotated[Path, typer.Option("--predictions", help="Predictions directory with matches/.")],
    a: Annotated[str, typer.Option("--a", help="First matcher's output name (matches/A.jsonl).")],
    b: Annotated[str, typer.Option("--b", help="Second matcher's output name (matches/B.jsonl).")],
    sample: Annotated[int, typer.Option("--sample", min=1, help="Rows in the manual-review export.")] = 100,
    export: Annotated[Path | None, typer.Option("--export", help="Write a review CSV sample here.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the review sample.")] = 0,
    include_empty: Annotated[
        bool,
        typer.Option(
            "--include-empty", help="Also compare instances with no prediction or no reference.", metavar=FLAG
        ),
    ] = False,
) -> None:
    """Agreement of two matchers: matched counts equal / within one, Pearson r of per-instance F1.

    Writes PREDICTIONS/matches/agreement_A_vs_B.json; with --export, a CSV sample for manual review
    (fill its manual_pairs column, then `admitdx match --matcher manual --set csv=FILE`).

    Example: admitdx agree --dataset runs/earlydx --predictions runs/pred/zs --a llm_judge --b embedding
    """
    from admitdx.matching.agreement import export_review_sample, write_agreement
    from admitdx.matching.runner import build_tasks

    result, out = write_agreement(dataset, predictions, a, b, nonempty_only=not include_empty)
    table = Table("measure", "value", box=None, title=f"{a} vs {b}")
    for key, value in result.to_dict().items():
        if key not in ("a", "b"):
            table.add_row(
                key.replace("_", " "),
                "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value),
            )
    console = Console()
    console.print(table)
    if export is not None:
        written = export_review_sample(result, build_tasks(dataset, predictions), export, n=sample, seed=seed)
        console.print(f"{written} instances for manual review → {export}")
    console.print(f"→ {out}")


def judge_concepts(
    dataset: Annotated[Path, typer.Option("--dataset", help="Dataset directory (with instances.jsonl).")],
    predictions: Annotated[
        list[Path], typer.Option("--predictions", help="Predictions directory; repeat for several.")
    ],
    config: Annotated[Path | None, typer.Option("--config", help="YAML mapping of judge parameters.")] = None,
    param: Annotated[
        list[str] | None, typer.Option("--set", help="Judge parameter KEY=VALUE (repeatable).")
    ] = None,
    allow_no_manifest: Annotated[
        bool,
        typer.Option(
            help="Judge predictions that have no manifest.json of `admitdx predict` (made outside "
            "admitdx); recorded in the summary.",
            metavar=FLAG,
        ),
    ] = False,
) -> None:
    """LLM-judged concept recall of text answers (ER-Reason planning): a model lists each physician
    rationale's concepts, then which of them the answer covers, into PREDICTIONS/concepts/llm_judge.jsonl;
    `admitdx score --concept-extractor llm_judge` reads it. Parameters: llm (LLM options), local
    (start the bundled llama.cpp server), allow_hosts, list_prompt, cover_prompt. Cached: a rerun
    asks the model nothing it has answered.

    Example: admitdx judge-concepts --dataset runs/planning --predictions runs/llm --set local=true
    """
    from admitdx.matching.concept_judge import ConceptJudge, run_concept_judge

    try:
        judge = ConceptJudge(**_params(config, param or []))
    except TypeError as e:
        raise UsageError(f"bad parameters for judge-concepts: {e}", hint="see help(ConceptJudge)") from e
    console = Console(stderr=True)
    try:
        for directory in predictions:
            s = run_concept_judge(judge, dataset, directory, allow_no_manifest=allow_no_manifest)
            console.print(
                f"{directory}: {s['parts']} rationale parts judged, {s['listing_failures']} unreadable "
                f"listings, {s['cover_failures']} unreadable judgements, {s['dropped_entries']} dropped "
                f"entries, {s['model_calls']} model calls ({s['llm_cache_hits']} from cache)"
            )
    finally:
        judge.close()


def register(app: typer.Typer) -> None:
    """Add ``match``, ``agree`` and ``judge-concepts`` to the root app."""
    app.command("match")(match)
    app.command("agree")(agree)
    app.command("judge-concepts")(judge_concepts)
