"""The documented LLM subset of a dataset: its non-test splits and its first ``n`` test instances."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from admitdx.contracts import INSTANCES_FILE, load_instances
from admitdx.errors import InputError
from admitdx.jsonl import dumps
from admitdx.runs import read_manifest, staged_dir, write_manifest
from admitdx.systems.labels import benchmark_set


def llm_subset(dataset: Path, out: Path, n: int) -> Path:
    """The dataset cut to its non-test splits and the first ``n`` test instances of its benchmark
    set: a dataset of its own (its own fingerprint), so the LLM's run over it is complete and every
    system is scored against exactly these instances, never against missing predictions. Cut from
    the benchmark set (as ``predict --limit`` counts), so the n it records is the n scored and its N
    the benchmark set's, not the test split's (issue 34: "20 of 139" stood for 18 scored of 120)."""
    instances = load_instances(dataset)
    every_test = benchmark_set(i for i in instances if i.split == "test")
    test = every_test[:n]
    keep = [i for i in instances if i.split != "test"] + test
    text = "".join(dumps(i.to_dict()) + "\n" for i in keep)
    outputs = {
        "subset": f"the first {len(test)} benchmark-set encounters of {dataset}",
        "trial": {"n": len(test), "of": len(every_test)},
    }
    if _same(out, text, outputs):  # unchanged: runs over it resume
        return out
    # the instances and the manifest that marks them a trial land together (a folder rename)
    with staged_dir(out) as staged:
        (staged / INSTANCES_FILE).write_text(text, encoding="utf-8")
        # the report reads this and says, on the page, that its numbers describe a subset
        write_manifest(staged, stage="subset", inputs={"dataset": str(dataset)}, outputs=outputs)
    return out


def _same(out: Path, text: str, outputs: dict[str, Any]) -> bool:
    """``out`` holds this subset and the manifest that marks it a trial."""
    path = out / INSTANCES_FILE
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        return False
    try:
        manifest = read_manifest(out) or {}
    except InputError:  # a damaged manifest: the subset is cut again
        return False
    return manifest.get("stage") == "subset" and manifest.get("outputs") == outputs
