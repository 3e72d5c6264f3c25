"""A synthetic ER-Reason release: ``er_reason.csv`` and ``icd_10_codes.csv`` written to the
release's data card (columns, note types, values), and ``_truth/truth.csv`` recording what was
meant, so every ER-Reason task can be built and tested without credentials. See :mod:`.generate`
and, for what each layout and share rests on, :mod:`.facts`."""

from admitdx.synthetic.erreason.generate import TRUTH_FILE, generate_release

__all__ = ["TRUTH_FILE", "generate_release"]
