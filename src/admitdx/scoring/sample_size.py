"""How many encounters and patients each reported number was computed over.

A run's header counts the evaluated split; a track's metric is computed only over the encounters
the track scores (with ``skip_empty``, those with at least one label on the track), and the
patient bootstrap resamples only the patients who have such an encounter. A report that states
the split's size beside a track's number overstates the evidence, so each track states its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def track_sample_sizes(
    names: Sequence[str], matrix: np.ndarray, subjects: Sequence[int], tracks: Sequence[str]
) -> dict[str, dict[str, int]]:
    """``{track: {"n_encounters", "n_patients"}}`` from the ``<track>.scored`` column of the
    per-encounter count matrix (rows follow ``subjects``); ``"tc"`` (time-critical, scored on every
    evaluated encounter) is added with the split's counts."""
    subject_arr = np.asarray(subjects)
    out: dict[str, dict[str, int]] = {}
    for track in tracks:
        scored = matrix[:, list(names).index(f"{track}.scored")] > 0
        out[track] = {
            "n_encounters": int(scored.sum()),
            "n_patients": int(np.unique(subject_arr[scored]).size),
        }
    out["tc"] = {"n_encounters": len(subject_arr), "n_patients": int(np.unique(subject_arr).size)}
    return out
