"""EarlyDx (Fang et al., KDD 2026): admission-anchored, open-ended ED-encounter diagnosis.

``build_earlydx(mimic_dir, out_dir, EarlyDxParams())`` writes a dataset directory (instances.jsonl
and .parquet, manifest.json, coverage.csv, split.csv); ``export_sft`` turns one into chat-format
fine-tuning data; ``drop_sections`` ablates an instance's input at prompt time.
"""

from admitdx.tasks.earlydx.build import build_earlydx
from admitdx.tasks.earlydx.export import export_sft
from admitdx.tasks.earlydx.params import DEMO_CC_ONLY, DROPPABLE, SECTION_NAMES, EarlyDxParams
from admitdx.tasks.earlydx.serialize import drop_sections, serialize

__all__ = [
    "DEMO_CC_ONLY",
    "DROPPABLE",
    "SECTION_NAMES",
    "EarlyDxParams",
    "build_earlydx",
    "drop_sections",
    "export_sft",
    "serialize",
]
