"""What ``admitdx demo`` runs beyond its study file (``demo_study.yaml``): the synthetic root, the
options it sets in the file, and which runs it keeps (the CLI's defaults come from here)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DemoParams:
    """Defaults finish in under five minutes on two cores (see :mod:`admitdx.demo` for the figures)."""

    out: Path = Path("admitdx-demo")
    patients: int = 800
    seed: int = 7
    test_fraction: float = 0.15  # EarlyDx: ≥ 100 test encounters from ≥ 60 patients at 800 patients
    use_llm: bool = True  # only if llama-cpp-python is installed (admitdx[local])
    # CliniBench (hosp, ICD-10) and the MIMIC-IV-ED ER-Reason acuity and disposition tasks
    other_tasks: bool = True
