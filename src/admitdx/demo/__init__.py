"""``admitdx demo``: the whole pipeline on synthetic data as one study, with the embedded local
model when present.

The demo generates a synthetic MIMIC-IV root (``mimic/``), then runs the study file shipped beside
this module, ``demo_study.yaml`` — readable as an example of a study — as ``admitdx study`` does:
EarlyDx (build, rule-based audit + an LLM audit sample, four baselines, guarded matching,
scoring with bootstrap intervals, report), the local model on EarlyDx's first 20 test encounters
with every system scored on them and the LLM judge's agreement with guarded matching, then
CliniBench (hosp, ICD-10) and the MIMIC-IV-ED ER-Reason acuity and disposition tasks on the same
root, each with its baselines and the local model on a documented subset.

Output layout under ``out`` (``admitdx-demo``): ``mimic/``, one folder per task run of the study
(``earlydx/``, ``earlydx-llm-subset/``, ``clinibench/``, ``clinibench-llm-subset/``,
``er-reason-acuity/``, … each with ``dataset/`` or ``subset/``, ``predictions/``, ``report/``;
``earlydx/`` also ``audited/`` and ``llm-audit/``), and ``leaderboard.html`` (``.json``, ``.md``,
``.tex``) over every report: the one path the demo prints.

Every step is resumable, so a rerun after Ctrl-C picks up where it stopped and a finished demo
reruns in seconds.

LLM speed (issue 12, measured with ``bench/bench_local_server.py`` on a 2-core AMX VM): a
zero-shot EarlyDx request costs about 8.5 CPU-seconds on one core (5.6 for its ≈620 prompt tokens,
2.9 for its ≈75 answer tokens), an audit request about 6.8, so the 20 predictions and the judge
need some 200 CPU-seconds and the audit's 12–14 labels another 90. One llama.cpp server uses one
thread (more threads spin at barriers and collapse on a busy machine), so the study runs in two
lanes (``lanes: 2``): one keeps a core on EarlyDx's predictions and judge (``earlydx-llm-subset``),
the other does EarlyDx's baselines and the LLM audit on its own single-thread server, then the
other tasks (their builds, baselines, scoring and their own small local-model subsets: 3
CliniBench notes few-shot, 8 stays per ER-Reason task with an enum answer of at most 24 tokens).
Every answer is bounded by the systems' ``max_tokens``:
answers take 40–100 tokens, and SmolLM2 sometimes loops (a 717-token diagnosis list; audit
quotes of "1.0, 1.0, 1.0, …" in 4 of 14 labels of one run), which now stops at 256 tokens, costs
about 10 CPU-seconds instead of up to 60, and is counted as unparseable.

What the other tasks cost (measured 2026-11-30 on the shared 2-core VM, load 4–12, fresh LLM cache):
83 CPU-s in all (the demo used 496 CPU-s with them and 413 without, run side by side), 74 of them
the local model: CliniBench 3 few-shot answers of ≈660 prompt and ≈95 answer tokens, 37 CPU-s;
acuity 8 answers of ≈157 + 9 tokens, 13 CPU-s; disposition 8 of ≈306 + 7 tokens, 24 CPU-s (each
with its server's start, ≈2 CPU-s). Started after the LLM audit, they ended about 50 s before
EarlyDx's predictions did, and the two side-by-side demos took 13 min 48 s and 13 min 45 s. With
``--no-llm`` the three tasks take 7 s (load ≈ 4).
"""

from typing import Any

from admitdx.demo.params import DemoParams

__all__ = ["DemoParams", "run_demo"]


def __getattr__(name: str) -> Any:
    """``run_demo`` on first use: it imports every stage (2 s), which ``admitdx --version`` and
    ``--help`` (whose ``demo`` options come from :class:`DemoParams`) do not need."""
    if name == "run_demo":
        from admitdx.demo.run import run_demo

        return run_demo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
