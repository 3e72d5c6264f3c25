"""CliniBench (Grundmann et al.): discharge diagnoses, as 3-character ICD codes, from the admission
part of a MIMIC-IV discharge summary; one dataset per module (hosp, icu) and ICD version.

``build_clinibench(mimic_dir, out_dir, CliniBenchParams())`` writes the dataset(s) (instances.jsonl
and .parquet, labels.csv, split.csv, manifest.json); ``admission_note`` cuts one note.
"""

from admitdx.tasks.clinibench.build import build_clinibench, read_vocabulary
from admitdx.tasks.clinibench.note import admission_note
from admitdx.tasks.clinibench.params import SECTION_NAMES, CliniBenchParams

__all__ = ["SECTION_NAMES", "CliniBenchParams", "admission_note", "build_clinibench", "read_vocabulary"]
