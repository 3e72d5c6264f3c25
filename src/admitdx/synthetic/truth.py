"""The ``_truth/`` sidecar of a synthetic MIMIC-IV root: what the generator meant, for checking later stages.

The generator writes MIMIC-IV tables that look like the real thing; this sidecar records the
latent facts behind them, so a builder, an auditor or a scorer can be tested against ground truth
instead of against itself. It sits beside the module folders (``hosp/``, ``ed/`` …) in a folder
whose name starts with ``_``, so :func:`admitdx.sources.mimic.discover_tables` never mistakes it
for a MIMIC module.

Layout::

    <root>/_truth/encounters.jsonl.gz   one JSON object per ED stay (gzip, concatenated members)
    <root>/_truth/discharge_sections.jsonl.gz   one JSON object per discharge note: which text
                                        belongs to which section (CliniBench's leakage checks)
    <root>/_truth/meta.json             generator version, seed, patient count, row counts per table

``discharge_sections.jsonl.gz`` — ``{"note_id": "10234567-DS-1", "hadm_id": 21234567, "sections":
{"chief_complaint": "...", "physical_exam_admission": "...", "physical_exam_discharge": "...",
"brief_hospital_course": "...", ...}, "headings": {"physical_exam_discharge": "PE on discharge:", ...},
"mentions": {"I10": "HTN", ...}}``; the section names are CliniBench's (``synthetic.notes``), the
leakage ones listed in ``synthetic.notes.LEAKAGE_SECTIONS``; ``headings`` holds the spelling each
section was written under (``synthetic.headings``; "" for an admission exam without one) and
``mentions`` each billed code the admission-time text names, with the words that name it (in the
Past Medical History).

``encounters.jsonl.gz`` — one line per ED stay, in subject order then time order::

    {
      "subject_id": 10234567, "stay_id": 31234567, "hadm_id": 21234567 | null,
      "ed_intime": "2150-03-02 10:14:00",       # edstays.intime
      "t0": "2150-03-02 14:40:00" | null,        # admissions.admittime (null: not admitted)
      "ed_outtime": "2150-03-02 17:02:00",
      "scenario": "pneumonia",                   # key in the scenario library
      "acuity": 2, "arrival_transport": "AMBULANCE", "disposition": "ADMITTED",
      "icd_version": 10,                         # version the ED coders used for this stay
      "sections_at_t0": ["chief_complaint", "triage", "ed_vitals", "labs_ed", ...],
      "conditions": [
        {
          "key": "pneumonia",                      # condition identity across stays ("htn", "afib", ...)
          "icd_code": "J189", "icd_version": 10,
          "ed_title": "Pneumonia, unspecified organism",   # ed.diagnosis.icd_title as written
          "long_title": "Pneumonia, unspecified organism", # hosp.d_icd_diagnoses.long_title
          "role": "primary" | "secondary" | "comorbidity" | "symptom" | "external_cause"
                  | "status" | "generic",
          "ed_seq_num": 1,                         # its ed.diagnosis.seq_num
          "label_expected": true,                  # survives the EarlyDx label filter (R, V-Z,
                                                   # ICD-9 E/V/780-799, over-generic titles)
          "evidence_class": "supported" | "partial" | "unsupported",
          "evidence": [
            {"section": "radiology", "table": "note.radiology", "key": "10234567-RR-3",
             "time": "2150-03-02 11:30:00",        # event time (charttime / ecg_time / chartdate)
             "storetime": "2150-03-02 13:05:00" | null,
             "after_t0": false,                    # time > t0: invisible at W = 0
             "stored_after_t0": false,             # storetime > t0: dropped by storetime semantics
             "named": true,                        # the text names the ED title (see naming.py)
             "direct": true}                       # a confirming finding, not a suggestive one
          ]
        }
      ]
    }

Evidence sections (``SECTIONS``): ``chief_complaint`` (ed.triage.chiefcomplaint), ``triage``
(ed.triage vitals), ``ed_vitals`` (ed.vitalsign), ``medrecon`` (ed.medrecon), ``omr``
(hosp.omr), ``labs_ed`` (hosp.labevents drawn in the ED with an empty hadm_id, as most real ED
draws are), ``labs_admission`` (hosp.labevents carrying the admission's hadm_id), ``ecg``
(ecg.machine_measurements), ``echo`` (echo.structured_measurement, keyed by the study in
echo.echo_study_list), ``radiology``
(note.radiology) and ``prior_history`` (hosp.diagnoses_icd and ed.diagnosis of earlier
stays, and the "Past Medical History" of an earlier note.discharge).

The intended evidence class follows EarlyDx §3.3: *supported* — a direct finding charted at or
before t0 (lab, imaging, ECG, echo or vitals) establishes the condition; *partial* — only
indirect evidence at t0 (prior history, a home medication, a suggestive sign); *unsupported* —
nothing at t0 establishes it, its confirming evidence (if any) is charted only after t0. It is what
the generator *intended*; an LLM auditor may disagree at the margin.

``sections_at_t0`` lists the sections that hold at least one record of this stay with event time in
[ED arrival, t0] (``omr`` and ``prior_history``: on or before t0), the same rule the calibration
report uses. For non-admitted stays (``hadm_id`` null) the ED departure stands in for t0.

Evidence ``key`` (always text): ``labevent_id`` (hosp.labevents), ``note_id`` (note.radiology, and
note.discharge for a prior Past Medical History), ``study_id`` (ECG and echo), ``hadm_id``
(hosp.diagnoses_icd of an earlier admission), ``stay_id`` (ed.triage of this stay, ed.diagnosis of
an earlier stay), ``"medrecon <charttime>"`` (ed.medrecon). Placements exist only for the sections
that bear on a condition: vital signs appear as ``triage`` placements (direct when a vitals-confirmed
diagnosis such as hypoxaemic respiratory failure, indirect when suggestive); ``ed_vitals`` and
``omr`` appear only in ``sections_at_t0``.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

TRUTH_DIR = "_truth"
ENCOUNTERS_FILE = "encounters.jsonl.gz"
NOTES_FILE = "discharge_sections.jsonl.gz"
TRUTH_FILES = (ENCOUNTERS_FILE, NOTES_FILE)
META_FILE = "meta.json"

SECTIONS = (
    "chief_complaint",
    "triage",
    "ed_vitals",
    "medrecon",
    "omr",
    "labs_ed",
    "labs_admission",
    "ecg",
    "echo",
    "radiology",
    "prior_history",
)
ROLES = ("primary", "secondary", "comorbidity", "symptom", "external_cause", "status", "generic")
EvidenceClass = Literal["supported", "partial", "unsupported"]


def truth_dir(root: Path) -> Path:
    return Path(root) / TRUTH_DIR


def _read_jsonl_gz(root: Path, name: str, hint: str) -> Iterator[dict[str, Any]]:
    path = truth_dir(root) / name
    if not path.exists():
        from admitdx.errors import InputError

        raise InputError(f"{root} has no {TRUTH_DIR}/{name}", hint=hint)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def read_truth(root: Path) -> Iterator[dict[str, Any]]:
    """Yield the encounter records of a synthetic root's ``_truth/encounters.jsonl.gz`` in file order."""
    return _read_jsonl_gz(
        root, ENCOUNTERS_FILE, "only roots written by `admitdx data synth` carry ground truth"
    )


def read_truth_meta(root: Path) -> dict[str, Any]:
    """The generator's ``meta.json`` (version, seed, patients, row counts per table)."""
    return json.loads((truth_dir(root) / META_FILE).read_text(encoding="utf-8"))


def read_note_sections(root: Path) -> Iterator[dict[str, Any]]:
    """Yield the discharge-note section records of a synthetic root (``discharge_sections.jsonl.gz``)."""
    return _read_jsonl_gz(root, NOTES_FILE, "regenerate the root with this version of `admitdx data synth`")


def truth_by_stay(root: Path) -> dict[int, dict[str, Any]]:
    """Encounter records keyed by ``stay_id`` (fine for test-sized roots; stream for large ones)."""
    return {rec["stay_id"]: rec for rec in read_truth(root)}
