"""ER-Reason (Mehandru et al. 2025): the ER-workflow tasks — acuity, one-liner, treatment planning,
final diagnosis and disposition — on MIMIC-IV-ED (``er-reason-*``, admitdx's adaptation) and on the
credentialed ER-Reason release (``er-reason-release-*``). See README.md in this folder."""
