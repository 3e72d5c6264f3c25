"""What the synthetic ER-Reason release is drawn from, each fact with its source. Values marked
"admitdx's choice" are not published anywhere: they exist to exercise a code path and say so.

The release itself is credentialed; its published description is the data card
(``ER-Reason_Column_Descriptions.md``) and README of github.com/AlaaLab/ER-Reason, and the paper
(Mehandru et al. 2025, arXiv 2505.22919).
"""

from __future__ import annotations

#: File names and columns: the data card and the README's "Key dataset files" table.
FILES = {"encounters": "er_reason.csv", "codes": "icd_10_codes.csv"}
#: 3,984 encounters, 72 with the three physician rationales (paper §3; README): 72 / 3,984 ≈ 1.8 %.
#: The generator's default is 10 % so that a small synthetic release has some (admitdx's choice).
RATIONALE_SHARE_RELEASE = 72 / 3984
RATIONALE_SHARE_DEFAULT = 0.10
#: note_count: "minimum 2: ED and discharge summary, increases based on availability" (data card);
#: every encounter has a current ED note and a previous discharge summary in the release. The
#: synthetic release keeps 20 % without one so the one-liner's exclusion is exercised (admitdx's choice).
DISCHARGE_SUMMARY_SHARE = 0.8
OTHER_PREVIOUS_NOTE_SHARE = 0.3  # admitdx's choice
#: Returning patients (a durable key reused): admitdx's choice (the paper gives encounters only).
RETURNING_SHARE = 0.1

#: ED provider note layouts (admitdx's choice of shares). ``epic``: Epic's ED provider note —
#: HPI, ROS, Physical Exam, "Medical Decision Making", "ED Course", "Final Disposition" with
#: "Clinical Impression" and "ED Disposition" (the layout the issue and a public pipeline on the
#: real file describe; the authors' scripts cut at "Final Disposition and ED Course" and, in V1, at
#: "Medical Decision"). ``legacy``: admitdx's earlier synthetic layout, "Assessment and Plan" then
#: "Final Disposition and ED Course". ``no_heading``: none of the cut headings (must be left out).
NOTE_LAYOUTS = {"epic": 0.6, "legacy": 0.37, "no_heading": 0.03}
#: Spelling variants of the MDM heading in Epic notes (templates differ between departments).
MDM_HEADINGS = (
    "Medical Decision Making:",
    "MEDICAL DECISION MAKING",
    "**Medical Decision Making**",
    "MDM:",
    "Medical Decision Making / ED Course:",
)
#: Triage vitals layouts (admitdx's choice of shares). ``one_line``: admitdx's earlier line;
#: ``epic_flags``: Epic's flowsheet line with "(!)" abnormal flags and °C (°F) temperatures;
#: ``per_line``: one vital per line under "Triage Vital Signs:" (the block the authors' acuity
#: script extracts); ``flowsheet``: Epic's "ED Triage Vitals" table, names over values.
VITALS_LAYOUTS = {"one_line": 0.25, "epic_flags": 0.25, "per_line": 0.25, "flowsheet": 0.25}
#: icd_10_codes.csv has no order column (README: "one row per code, multiple rows per
#: encounter"); the paper's gold is ``primaryeddiagnosisname``. The share of encounters whose main
#: code is not the file's first row is admitdx's choice (exercises the matching).
MAIN_NOT_FIRST_SHARE = 0.3
#: acuitylevel / eddisposition values: the data card's examples and the paper's tables 8 and 15.
#: Arrival, departure, disposition and note years: admitdx's choice (the card gives no range).
YEAR = 2023
