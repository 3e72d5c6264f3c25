"""Scores by patient subgroup (EarlyDx appendix F, table 8).

Subgroups come from ``Instance.meta``: age band, sex, race, insurance, language, acuity (ESI) and
arrival mode. Groups with fewer than ``min_group_size`` scored encounters are reported with their
size but no score — the paper omits groups under 40.

Choices where the paper is silent: age bands 18–44 / 45–64 / 65–79 / 80+ (``age_edges``); MIMIC's
detailed race strings collapse to White / Black / Asian / Hispanic / Other / Unknown; language is
English vs non-English; a missing value is its own group, ``unknown``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from admitdx.metrics.memo import per_labels
from admitdx.metrics.ratios import Ratio, evaluate

AGE_EDGES: tuple[int, ...] = (18, 45, 65, 80)
MIN_GROUP_SIZE = 40
UNKNOWN = "unknown"

META_KEYS: dict[str, tuple[str, ...]] = {
    "sex": ("sex", "gender"),
    "race": ("race",),
    "insurance": ("insurance",),
    "language": ("language",),
    "acuity": ("acuity", "esi"),
    "arrival": ("arrival", "arrival_transport"),
}


def _first(meta: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for k in keys:
        if meta.get(k) not in (None, "", "?"):
            return meta[k]
    return None


def age_band(age: Any, edges: Sequence[int] = AGE_EDGES) -> str:
    if age is None:
        return UNKNOWN
    a = float(age)
    if a < edges[0]:
        return f"<{edges[0]}"
    for lo, hi in pairwise(edges):
        if lo <= a < hi:
            return f"{lo}–{hi - 1}"
    return f"{edges[-1]}+"


def race_group(race: Any) -> str:
    if race is None:
        return UNKNOWN
    r = str(race).upper()
    for needle, group in (
        ("HISPANIC", "Hispanic"),
        ("LATINO", "Hispanic"),
        ("WHITE", "White"),
        ("BLACK", "Black"),
        ("ASIAN", "Asian"),
    ):
        if needle in r:
            return group
    if any(w in r for w in ("UNKNOWN", "DECLINED", "UNABLE")):
        return UNKNOWN
    return "Other"


def _acuity(value: Any) -> str:
    try:
        return f"ESI {int(float(value))}"
    except (TypeError, ValueError):
        return UNKNOWN if value is None else str(value)


def subgroup_labels(meta: Mapping[str, Any], age_edges: Sequence[int] = AGE_EDGES) -> dict[str, str]:
    """The encounter's group on each axis (``unknown`` where the metadata lacks it)."""
    language = _first(meta, META_KEYS["language"])
    labels = {
        "age": age_band(_first(meta, ("age", "anchor_age")), age_edges),
        "race": race_group(_first(meta, META_KEYS["race"])),
        "language": UNKNOWN
        if language is None
        else ("English" if str(language).strip().upper() in {"ENGLISH", "EN"} else "non-English"),
        "acuity": _acuity(_first(meta, META_KEYS["acuity"])),
    }
    for axis in ("sex", "insurance", "arrival"):
        value = _first(meta, META_KEYS[axis])
        labels[axis] = UNKNOWN if value is None else str(value)
    return labels


def subgroup_scores(
    names: Sequence[str],
    matrix: np.ndarray,
    labels: Sequence[Mapping[str, str]],
    ratio: Ratio,
    *,
    count_column: str,
    min_group_size: int = MIN_GROUP_SIZE,
) -> dict[str, dict[str, dict[str, float | int | None]]]:
    """``{axis: {group: {"n": scored encounters, "value": ratio or None}}}``.

    ``names``/``matrix`` are the encounters' count columns (see :func:`ratios.column_matrix`), in
    the order of ``labels``. ``count_column`` marks a scored encounter (for a track,
    ``"<track>.scored"``); groups smaller than ``min_group_size`` keep their ``n`` and get ``value``
    None.
    """
    names = list(names)
    scored = matrix[:, names.index(count_column)] > 0
    read = [c for c in names if c in ratio.columns()]  # sum only the columns the ratio reads
    counts = matrix[:, [names.index(c) for c in read]]
    out: dict[str, dict[str, dict[str, float | int | None]]] = {}
    for axis, groups in _groups_by_axis(labels).items():
        cells: dict[str, dict[str, float | int | None]] = {}
        for g in sorted(set(groups[scored].tolist())):
            members = scored & (groups == g)
            n = int(members.sum())
            value = (
                evaluate([ratio], read, counts[members].sum(axis=0))[ratio.name]
                if n >= min_group_size
                else None
            )
            cells[g] = {"n": n, "value": None if value is None or np.isnan(value) else float(value)}
        out[axis] = cells
    return out


@per_labels
def _groups_by_axis(labels: Sequence[Mapping[str, str]]) -> dict[str, np.ndarray]:
    """Each axis's group per encounter, as a string array (built once per label list: every system
    of a run is split by the same encounters' metadata)."""
    axes = sorted({axis for lab in labels for axis in lab})
    return {axis: np.array([str(lab.get(axis, UNKNOWN)) for lab in labels], dtype=str) for axis in axes}
