"""Metric suites: pure functions over references, predictions and one-to-one match pairs.

Every headline number in admitdx is a *ratio of sums* over encounters (micro precision is
Σtp / Σ|Ŷ|, example-based recall is Σrecall_i / Σscored_i, R@k is Σtp@k / Σ|Y|, …). Each family
module therefore does two things: it turns one encounter into a row of additive counts
(``*_columns``), and it names the ratios of those counts that make its metrics (``*_ratios``).
Aggregation (:mod:`admitdx.metrics.ratios`) and the patient-level bootstrap
(:mod:`admitdx.metrics.bootstrap`) then work on any metric alike, vectorised over columns.

Families: :mod:`earlydx` (tracks, micro/example P/R/F1, R@k, cardinality, explicit vs implicit,
appendix C, figure 8), :mod:`timecritical` (section 5.5 operating points, per-condition F1 for
appendix P), :mod:`graded` (suspected predictions), :mod:`subgroups` (appendix F),
:mod:`clinibench` (macro top-n, MAP, main-diagnosis accuracy, tertiles) and :mod:`erreason`.
"""
