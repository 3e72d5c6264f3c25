"""Synthetic MIMIC-IV: the project's embedded default data (see ``generate.py`` and ``truth.py``)."""

from admitdx.sources.synthetic.calibration import TARGETS, Knobs
from admitdx.sources.synthetic.generate import SynthSummary, generate_synthetic
from admitdx.sources.synthetic.truth import read_truth, read_truth_meta, truth_by_stay

__all__ = [
    "TARGETS",
    "Knobs",
    "SynthSummary",
    "generate_synthetic",
    "read_truth",
    "read_truth_meta",
    "truth_by_stay",
]
