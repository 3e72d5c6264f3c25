"""The documented LLM subset of a dataset: its non-test splits and its first ``n`` test instances."""

from __future__ import annotations

from pathlib import Path

from admitdx.contracts import INSTANCES_FILE, load_instances
from admitdx.jsonl import dumps
from admitdx.runs import write_manifest


def llm_subset(dataset: Path, out: Path, n: int) -> Path:
    """The dataset cut to its non-test splits and its first ``n`` test instances: a dataset of its
    own (its own fingerprint), so the LLM's run over it is complete and every system is scored
    against exactly these instances, never against missing predictions."""
    instances = load_instances(dataset)
    every_test = [i for i in instances if i.split == "test"]
    test = every_test[:n]
    keep = [i for i in instances if i.split != "test"] + test
    text = "".join(dumps(i.to_dict()) + "\n" for i in keep)
    path = out / INSTANCES_FILE
    if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged: runs over it resume
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        # the report reads this and says, on the page, that its numbers describe a subset
        write_manifest(out, stage="subset", inputs={"dataset": str(dataset)},
                       outputs={"subset": f"the first {len(test)} test encounters of {dataset}",
                                "trial": {"n": len(test), "of": len(every_test)}})  # fmt: skip
    return out
