"""What a reported number rests on: the encounters and patients it was computed over, whether its
interval says anything, and whether a significance mark may be printed beside it.

Every renderer (terminal, ``table.md``, ``report.html``, LaTeX) asks these functions, so no output
can print a significance mark the others would suppress.
"""

from __future__ import annotations

from typing import Any

from admitdx.report.counts import predicted_of, scored_of
from admitdx.scoring.params import MIN_PATIENTS_FOR_SIGNIFICANCE

ALPHA = 0.05
UNINFORMATIVE_MARK = "†"
UNINFORMATIVE_NOTE = (
    f"{UNINFORMATIVE_MARK} uninformative interval: zero width (every resample gave the same value, "
    "typically too few encounters or a constant score) or the whole range [0, 1]."
)


def sample_size(results: dict[str, Any], metric: str) -> tuple[int, int]:
    """(encounters, patients) a metric was computed over.

    EarlyDx names a metric ``<track>.<name>``: a track scores only the encounters with a label on it
    (``sample_size`` of the suite's entry); time-critical metrics (``tc``, ``tc_graded``) score every
    evaluated encounter; the graded views score the primary track's encounters. Other suites score
    every evaluated encounter (a missing answer counts as wrong).
    """
    sizes = (results["systems"][0].get("sample_size") if results.get("systems") else None) or {}
    prefix = metric.split(".", 1)[0]
    if prefix == "tc_graded":
        prefix = "tc"
    elif prefix == "graded":
        prefix = results.get("primary_track") or prefix
    if prefix in sizes:
        return sizes[prefix]["n_encounters"], sizes[prefix]["n_patients"]
    return results["n_instances"], results["n_patients"]


def sample_text(results: dict[str, Any], metric: str) -> str:
    n_enc, n_pat = sample_size(results, metric)
    return f"{n_enc} encounter{'s' * (n_enc != 1)}, {n_pat} patient{'s' * (n_pat != 1)}"


def min_patients(results: dict[str, Any]) -> int:
    return int(results["params"].get("min_patients_for_significance", MIN_PATIENTS_FOR_SIGNIFICANCE))


def significance_allowed(results: dict[str, Any], metric: str) -> bool:
    """A mark may be printed only when the metric rests on at least the run's patient minimum."""
    return sample_size(results, metric)[1] >= min_patients(results)


def trial(results: dict[str, Any]) -> tuple[int, int] | None:
    """(n, N) when the run is a trial rather than a result: scored on a dataset cut to its first n
    of N test instances (``subset_trial``), or with a system that predicted only n of the N
    evaluated encounters (a ``--limit`` run; the rest are scored as empty). None for a full run."""
    cut = results.get("subset_trial")
    if cut:
        return int(cut["n"]), int(cut["of"])
    total = int(results["n_instances"])
    predicted = min(
        (total - s["counts"].get("missing", 0) for s in results.get("systems") or []), default=total
    )
    return (predicted, total) if predicted < total else None


def trial_text(results: dict[str, Any]) -> str | None:
    """``trial: n scored of N in the benchmark set`` for a subset, ``trial: n predicted of N …`` for a
    run a system did not finish (every card, plot title, table and caption shows it;
    :mod:`admitdx.report.counts`)."""
    found = trial(results)
    if not found:
        return None
    return f"trial: {(scored_of if results.get('subset_trial') else predicted_of)(*found)}"


def system_trial_text(results: dict[str, Any], system: dict[str, Any]) -> str | None:
    """The trial mark of one system's card: its own predictions when it left some out, else the
    run's cut (a subset marks every system)."""
    missing = system["counts"].get("missing", 0)
    if missing:
        return f"trial: {predicted_of(results['n_instances'] - missing, results['n_instances'])}"
    return trial_text(results) if results.get("subset_trial") else None


TRIAL_NOTE = (
    "No significance marks: a trial compares systems on part of the benchmark (missing predictions "
    "are scored as empty), so its p-values describe the trial, not the systems."
)


#: Metrics that describe what a system answered rather than how well (shares, counts, rates):
#: their p-values say two systems answer differently, not that one is better, so no mark.
DESCRIPTIVE_PREFIXES = ("predicted_share.", "recorded_share.")
DESCRIPTIVE_SUFFIXES = ("mean_predictions", "mean_references", "alert_rate", "recorded_rate")


def descriptive(metric: str) -> bool:
    return metric.startswith(DESCRIPTIVE_PREFIXES) or metric.endswith(DESCRIPTIVE_SUFFIXES)


def significant(results: dict[str, Any], system: dict[str, Any], metric: str) -> bool:
    """True when the paired bootstrap p-value against the baseline is under 0.05, the run is not a
    trial (:func:`trial`), the metric measures quality (not :func:`descriptive`), and it rests on
    enough patients for the mark to mean something."""
    if trial(results) or descriptive(metric):
        return False
    versus = system.get("vs_baseline") or {}
    p = (versus.get("p_values") or {}).get(metric)
    return p is not None and p < ALPHA and significance_allowed(results, metric)


def suppressed_note(results: dict[str, Any], metrics: list[str]) -> str | None:
    """The sentence a renderer prints when some of ``metrics`` lost their marks to the minimum."""
    if len(results.get("systems") or []) < 2:
        return None
    if trial(results):
        return TRIAL_NOTE
    low = sorted({sample_size(results, m) for m in metrics if not significance_allowed(results, m)})
    if not low:
        return None
    sizes = ", ".join(f"{p} patients" for _, p in low)
    return (
        f"No significance marks where a metric rests on fewer than {min_patients(results)} patients "
        f"({sizes} here): a paired bootstrap over so few patients has too few distinct resamples "
        "(set with `admitdx score --min-patients`)."
    )


UNBOUNDED = ("mean_predictions", "mean_references")  # counts per encounter, not shares: [0, 1] is a range


def uninformative(metric: dict[str, Any] | None, name: str = "") -> bool:
    """A zero-width interval, or one spanning all of [0, 1] for a share, tells the reader nothing."""
    ci = (metric or {}).get("ci")
    if not ci or None in ci:
        return False
    lo, hi = float(ci[0]), float(ci[1])
    if hi - lo <= 1e-12:
        return True
    return not name.endswith(UNBOUNDED) and lo <= 1e-12 and hi >= 1 - 1e-12


def any_uninformative(results: dict[str, Any], metrics: list[str]) -> bool:
    return any(uninformative(s["metrics"].get(m), m) for s in results["systems"] for m in metrics)
