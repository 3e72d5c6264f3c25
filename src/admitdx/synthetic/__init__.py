"""Synthetic MIMIC-IV: the project's embedded default data.

``generate_synthetic(out_dir, patients, seed)`` writes a MIMIC-IV root in PhysioNet's layout and
column conventions (gzip CSV): hosp (patients, admissions, transfers, diagnoses_icd,
d_icd_diagnoses, labevents, d_labitems, omr), ed (edstays, triage, vitalsign, medrecon, pyxis,
diagnosis), note (discharge, radiology and their detail tables), ecg (record_list,
machine_measurements) and echo (echo-study-list, echo-record-list, structured-measurement — the last
one's columns follow ``admitdx.sources.schema``, as MIMIC-IV-ECHO v1.0's measurement table is not
documented in the schema notes). Beside them, ``_truth/`` records what the generator meant (see
``truth.py``), and ``report.calibration_report`` compares the result with EarlyDx's cohort figures.

Module map: ``scenarios/`` (ED presentations by organ system) and ``comorbidities`` are the clinical
library; ``timeline`` → ``encounter`` → ``triage``/``workup``/``admission`` write one patient;
``condition`` and ``naming`` keep the truth; ``chunk`` and ``generate`` parallelise and write.
``disposition`` (how ED stays end), ``headings`` (real section-heading spellings) and ``note_prose``
(admission-time note text) make the data vary as real data does; ``facts`` lists every real marginal
and layout the generator follows, with its source and tolerance (issue 21).
"""

from admitdx.synthetic.calibration import TARGETS, Knobs
from admitdx.synthetic.generate import SynthSummary, generate_synthetic
from admitdx.synthetic.truth import read_truth, read_truth_meta, truth_by_stay

__all__ = [
    "TARGETS",
    "Knobs",
    "SynthSummary",
    "generate_synthetic",
    "read_truth",
    "read_truth_meta",
    "truth_by_stay",
]
