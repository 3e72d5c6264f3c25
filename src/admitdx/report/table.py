"""``table.md``: the main results as Markdown tables with intervals in brackets: one block per
evidence track for EarlyDx, one block of the suite's headline metrics for the other suites."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from admitdx.matching.quality import quality_line
from admitdx.report import evidence
from admitdx.report.cells import fmt, fmt_ci
from admitdx.report.counts import scored_of
from admitdx.report.levels import level_blocks
from admitdx.runs import write_aside

MAIN_COLUMNS: tuple[tuple[str, str], ...] = (
    ("micro_precision", "P"),
    ("micro_recall", "R"),
    ("micro_f1", "F1"),
    ("example_f1", "ex-F1"),
    ("complete_match_rate", "complete"),
    ("mean_predictions", "#pred"),
)
TRACK_TITLES = {
    "supported": "Supported labels (primary track)",
    "supported_partial": "Supported + partially supported labels",
    "partial": "Partially supported labels only",
    "all": "All labels",
}


SUITE_TITLES = {
    "clinibench": "CliniBench (3-character codes, top-n, macro over labels)",
    "category": "Categories (accuracy, under/over-triage, predicted share per class)",
    "text": "Texts (ROUGE F1, Porter stemming)",
    "final_diagnosis": "Final diagnosis (first coded answer vs main / any gold code)",
}
#: The page title of each suite's report: what the task asks, not EarlyDx's question for every task.
REPORT_TITLES = {
    "earlydx": "admission-time diagnosis report",
    "clinibench": "discharge ICD-code ranking report",
    "category": "category report",
    "text": "text report",
    "final_diagnosis": "final-diagnosis report",
}
TABLE_FILE = "table.md"
#: How a metric's own name reads as a column header (results.json keeps the full names).
_WORDS = {
    "rouge1_f1": "ROUGE-1 F1",
    "rouge2_f1": "ROUGE-2 F1",
    "rougeL_f1": "ROUGE-L F1",
    "under_triage": "under-triage",
    "over_triage": "over-triage",
    "predicted_share": "share",
    "recorded_share": "recorded share",
    "f1": "F1",
    "map": "MAP",
}


def column_label(name: str) -> str:
    """A metric's column header: ``predicted_share.Immediate`` → ``share Immediate``,
    ``clinibench.macro_f1`` → ``macro F1``, ``hpi.rouge1_f1`` → ``hpi ROUGE-1 F1``."""
    head, _, tail = name.rpartition(".")
    if head in ("predicted_share", "recorded_share", "recall"):  # a per-class measure, then its class
        return f"{_WORDS.get(head, head)} {tail}"
    words = _WORDS.get(tail, tail.replace("_f1", " F1").replace("_", " "))
    return words if head in ("", "clinibench") else f"{head.replace('_', ' ')} {words}"


OFFLINE_CONCEPTS_NOTE = (
    "Offline concepts (ICD-10-CM categories, DrugBank ids, admitdx's terms) are not comparable with "
    "ER-Reason's table 4, which counts UMLS CUIs."
)


def _cell(results: dict[str, Any], system: dict[str, Any], name: str) -> str:
    """A value with its interval and, where allowed, the significance mark against the baseline."""
    star = "\\*" if evidence.significant(results, system, name) else ""
    return fmt_ci(system["metrics"].get(name), name=name) + star


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_table(results: dict[str, Any]) -> str:
    """The Markdown text of ``table.md``: the blocks of the suite that scored the run."""
    conf = round(100 * results["params"]["confidence"])
    matcher = results["params"].get("matcher")
    lines = [
        f"# admitdx results — {results.get('task', 'earlydx')}: {results['params']['split']} split of "
        f"{results['n_instances']} encounters, {results['n_patients']} patients"
        + (f", matcher `{matcher}`" if matcher else ""),
        "",
        f"Values with {conf} % patient-level bootstrap intervals "
        f"({results['params']['n_bootstrap']} replicates); each table names the encounters and patients "
        "its metrics were computed over.",
    ]
    if results.get("matcher_quality"):
        lines += ["", quality_line(results["matcher_quality"]).capitalize() + "."]
    trial = evidence.trial_text(results)
    if trial:
        lines[0] = f"# {trial.capitalize()} — " + lines[0].removeprefix("# ")
        lines += ["", f"> **{trial.capitalize()}**, not a result. {evidence.TRIAL_NOTE}"]
    if results.get("subset"):
        cut = results.get("subset_trial")
        counts = f": {scored_of(cut['n'], cut['of'])}" if cut else ""
        lines += ["", f"> A subset: scored on {results['subset']}{counts}, not on the whole benchmark set."]
    if results.get("tracks_note"):
        lines += ["", f"> {results['tracks_note']}"]
    if results.get("concept_extractor"):  # ER-Reason planning: which extractor found the concepts
        lines += ["", f"> Concept recall: concepts by `{results['concept_extractor']}` (score option)."]
        if results["concept_extractor"] == "offline":
            lines[-1] += f" {OFFLINE_CONCEPTS_NOTE}"
    elif results.get("concept_recall_skipped"):
        lines += ["", f"> Concept recall not scored: {results['concept_recall_skipped']}."]
    suite = results.get("suite", "earlydx")
    lines += _earlydx_blocks(results) if suite == "earlydx" else _headline_block(results)
    if suite == "clinibench":
        lines += _clinibench_blocks(results)
    if suite == "final_diagnosis":
        lines += level_blocks(results)
    lines += _notes(results)
    lines += _counts_block(results["systems"])
    caveats = [f"- **{s['name']}**: {s['caveat']}" for s in results["systems"] if s.get("caveat")]
    if caveats:
        lines += ["", "## Caveats", "", *caveats]
    return "\n".join(lines) + "\n"


TIME_CRITICAL = ("tc.recall", "tc.precision", "tc.f1", "tc_graded.recall", "tc_graded.precision")


def shown_metrics(results: dict[str, Any]) -> list[str]:
    """Every metric name a results table shows (for the notes under it)."""
    if results.get("suite", "earlydx") != "earlydx":
        return list(results["headline_metrics"])
    names = [f"{t}.{key}" for t in results["tracks"] for key, _ in MAIN_COLUMNS]
    return names + list(TIME_CRITICAL)


def _earlydx_blocks(results: dict[str, Any]) -> list[str]:
    systems, lines = results["systems"], []
    for track in results["tracks"]:
        scored_on = evidence.sample_text(results, f"{track}.micro_f1")
        lines += ["", f"## {TRACK_TITLES.get(track, track)} — scored on {scored_on}", ""]
        lines.append(_row(["system", *(label for _, label in MAIN_COLUMNS), "mean #ref"]))
        lines.append(_row(["---"] * (len(MAIN_COLUMNS) + 2)))
        for s in systems:
            cells = [_cell(results, s, f"{track}.{key}") for key, _ in MAIN_COLUMNS]
            lines.append(_row([s["name"], *cells, fmt(s["metrics"][f"{track}.mean_references"]["value"], 2)]))
    scored_on = evidence.sample_text(results, "tc.recall")
    lines += ["", f"## Time-critical conditions (encounter level) — scored on {scored_on}", ""]
    lines.append(_row(["system", "recall", "precision", "F1", "graded recall", "graded precision"]))
    lines.append(_row(["---"] * 6))
    for s in systems:
        lines.append(_row([s["name"], *(_cell(results, s, k) for k in TIME_CRITICAL)]))
    return lines


def _headline_block(results: dict[str, Any]) -> list[str]:
    """One column per headline metric of the suite (CliniBench, categories, texts, codes)."""
    names = results["headline_metrics"]
    title = SUITE_TITLES.get(results["suite"], results["suite"])
    lines = ["", f"## {title} — scored on {evidence.sample_text(results, names[0])}", ""]
    lines.append(_row(["system", *(column_label(n) for n in names)]))
    lines.append(_row(["---"] * (len(names) + 1)))
    for s in results["systems"]:
        lines.append(_row([s["name"], *(_cell(results, s, n) for n in names)]))
    return lines


CLINIBENCH_MEAN_COLUMNS = ("macro_precision", "macro_recall", "macro_f1", "map", "main_diagnosis_accuracy")


def _clinibench_blocks(results: dict[str, Any]) -> list[str]:
    """Appendix A.3's answer statistics, figure 5 (micro F1 by input-length bin) and, once
    attached, table 2's ICD-9/ICD-10 mean."""
    lines: list[str] = []
    systems = results["systems"]
    if all("answers" in s["clinibench"] for s in systems):  # results.json written before they were added
        lines += ["", "## Answers (appendix A.3)", ""]
        lines += [_row(["system", "valid answers", "distinct codes / answer"]), _row(["---"] * 3)]
        for s in systems:
            answers = s["clinibench"]["answers"]
            cells = [fmt(answers["valid_rate"]), fmt(answers["mean_distinct_codes"], 1)]
            lines.append(_row([s["name"], *cells]))
    if results.get("length_bins") and systems:
        bins = systems[0]["clinibench"]["length_bins"]
        lines += ["", f"## Micro F1 by input length (figure 5; bins: {results['length_bins']['bins']})", ""]
        lines.append(_row(["system", *(f"{b['label']} tokens (n = {b['n']})" for b in bins)]))
        lines.append(_row(["---"] * (len(bins) + 1)))
        lines += [_row([s["name"], *(_bin_cell(b) for b in s["clinibench"]["length_bins"])]) for s in systems]
    mean = results.get("version_mean")
    if mean:
        v9, v10 = mean["icd_versions"]
        lines += ["", f"## Unweighted mean over ICD-{v9} and ICD-{v10} (table 2)", ""]
        lines.append(_row(["system", *CLINIBENCH_MEAN_COLUMNS]))
        lines.append(_row(["---"] * (len(CLINIBENCH_MEAN_COLUMNS) + 1)))
        lines += [
            _row(
                [
                    n,
                    *(
                        fmt_ci({"value": m[k], "ci": (m.get("ci") or {}).get(k)})
                        for k in CLINIBENCH_MEAN_COLUMNS
                    ),
                ]
            )
            for n, m in mean["systems"].items()
        ]
    return lines


def _bin_cell(entry: dict[str, Any]) -> str:
    """A length bin's micro F1 with its interval (none in results.json written before issue 20)."""
    return fmt_ci({"value": entry["micro_f1"], "ci": (entry.get("ci") or {}).get("micro_f1")})


def _notes(results: dict[str, Any]) -> list[str]:
    """What the marks mean, and which marks were withheld."""
    names, notes = shown_metrics(results), []
    if len(results["systems"]) > 1 and not evidence.trial(results):
        notes.append(f"\\* paired bootstrap p < {evidence.ALPHA} against {results['baseline']}.")
    suppressed = evidence.suppressed_note(results, names)
    if suppressed:
        notes.append(suppressed)
    if evidence.any_uninformative(results, names):
        notes.append(evidence.UNINFORMATIVE_NOTE)
    return ["", *notes] if notes else []


def _counts_block(systems: list[dict[str, Any]]) -> list[str]:
    keys = list(dict.fromkeys(k for s in systems for k in s["counts"] if k != "instances"))
    lines = ["", "## Counts", "", _row(["system", *(k.replace("_", " ") for k in keys)])]
    lines.append(_row(["---"] * (len(keys) + 1)))
    lines += [_row([s["name"], *(str(s["counts"].get(k, "–")) for k in keys)]) for s in systems]
    return lines


def write_table(results: dict[str, Any], path: Path) -> Path:
    return write_aside(path, render_table(results))
