"""What ``admitdx demo`` runs: every size and bound in one place (the CLI's defaults come from here)."""

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
    llm_max_input_chars: int = 2500  # keeps SmolLM2's prompt within its 2048-token window
    llm_audit_instances: int = 8  # test encounters the LLM auditor checks against _truth
    # EarlyDx: the first test encounters the local LLM predicts (every system is scored on them); 24
    # took the demo to 5 min 11 s on a near-idle 2-core VM once the other tasks ran alongside
    llm_subset: int = 20
    # Answers in the demo are 40–100 tokens; the bound stops a looping model (the default is 1500).
    llm_max_tokens: int = 256
    # CliniBench (hosp, ICD-10) and the MIMIC-IV-ED ER-Reason acuity and disposition tasks
    other_tasks: bool = True
    clinibench_llm_subset: int = 3  # test notes the local model ranks codes for (few-shot, BM25)
    clinibench_llm_k: int = 1  # retrieved demonstrations (CliniBench §4.3 uses 1, 3 or 5)
    er_llm_subset: int = 8  # test stays per ER-Reason task the local model answers
    # {"answer": "LEFT AGAINST MEDICAL ADVICE"} is 11 SmolLM2 tokens; the enum grammar allows no more
    category_max_tokens: int = 24
