"""How an ED stay ends, and how urgent it looked at triage when it did not end in an admission.

EarlyDx's cohort is ED stays that end in an admission, so a generator written for it admits almost
everyone (94.9 % before issue 21), which leaves ER-Reason's disposition task trivial. Real EDs send
most patients home: on the open MIMIC-IV-ED demo 150 of 222 stays (68 %) end ADMITTED, 60 HOME and
the rest TRANSFER, OTHER, LEFT AGAINST MEDICAL ADVICE, LEFT WITHOUT BEING SEEN and ELOPED
(``facts.py``). Admitted stays keep their scenario's ESI split (calibrated to EarlyDx's 57 % ESI
1–2); stays that end otherwise draw from :data:`RELEASE_ESI`, the demo's split among its 72
non-admitted stays (1 : 22 : 43 : 2 of those with an acuity) with ESI 5 added — the demo has none,
but ESI is a five-level scale (ER-Reason task 1) and a reader must meet level 5.
"""

from __future__ import annotations

ADMITTED = "ADMITTED"
#: Dispositions of stays that do not end in an admission, weighted by their count on the demo.
RELEASE_DISPOSITIONS: tuple[tuple[str, float], ...] = (
    ("HOME", 60),
    ("TRANSFER", 5),
    ("OTHER", 2),
    ("LEFT AGAINST MEDICAL ADVICE", 2),
    ("LEFT WITHOUT BEING SEEN", 2),
    ("ELOPED", 1),
)
#: ESI of a stay that does not end in an admission: the demo's non-admitted split (ESI 1–4: 1, 22,
#: 43, 2 of 68) with 4 % moved to ESI 5 (our choice: rare, as in the demo, but present).
RELEASE_ESI: tuple[tuple[int, float], ...] = ((1, 0.015), (2, 0.32), (3, 0.60), (4, 0.025), (5, 0.04))
