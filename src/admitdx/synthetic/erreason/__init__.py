"""A synthetic ER-Reason release: ``er_reason.csv`` and ``icd_10_codes.csv`` with the release's
columns, note types and values, and ``_truth/truth.csv`` recording what was meant, so every
ER-Reason task can be built and tested without credentials. See :mod:`.generate`."""

from admitdx.synthetic.erreason.generate import TRUTH_FILE, generate_release

__all__ = ["TRUTH_FILE", "generate_release"]
