"""Small hand-made datasets for the systems tests: Instances written with the contracts."""

from __future__ import annotations

import zlib
from pathlib import Path

from admitdx.contracts import INSTANCES_FILE, Instance, Reference
from admitdx.jsonl import write_jsonl


def instance(iid: str, split: str, text: str, labels: list[str], subject_id: int | None = None) -> Instance:
    return Instance(
        id=iid,
        subject_id=subject_id if subject_id is not None else zlib.crc32(iid.encode()) % 100_000,
        task="earlydx",
        split=split,
        sections={"chief_complaint": text},
        text=text,
        references=[Reference(text=t) for t in labels],
    )


def write_dataset(directory: Path, instances: list[Instance]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    write_jsonl(directory / INSTANCES_FILE, (i.to_dict() for i in instances))
    return directory
