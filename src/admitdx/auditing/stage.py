"""An output directory filled one JSON line at a time, resumable after a kill.

Both LLM-driven auditing stages (evidence audit, rationales) append a record per finished item and
flush it; a rerun with the same inputs cuts a half-written last line, skips finished items and
does the rest; a rerun with different inputs (another auditor, prompt or dataset) is refused
rather than mixed in (``runs.check_resumable``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from admitdx.jsonl import append_jsonl, drop_partial_tail, read_jsonl
from admitdx.runs import check_resumable, write_manifest


class JsonlStage:
    def __init__(
        self,
        out_dir: Path,
        file_name: str,
        *,
        stage: str,
        inputs: dict[str, Any],
        key: Callable[[dict[str, Any]], Hashable],
    ) -> None:
        self.out_dir = Path(out_dir)
        self.path = self.out_dir / file_name
        self.stage = stage
        self.inputs = inputs
        self.key = key
        check_resumable(self.out_dir, inputs)
        write_manifest(self.out_dir, stage=stage, inputs=inputs, outputs={"complete": False})
        drop_partial_tail(self.path)
        self.done = {key(r) for r in self.records()}

    def records(self) -> list[dict[str, Any]]:
        return list(read_jsonl(self.path)) if self.path.exists() else []

    def append(self, record: dict[str, Any]) -> None:
        append_jsonl(self.path, record)
        self.done.add(self.key(record))

    def finish(self, outputs: dict[str, Any]) -> None:
        write_manifest(
            self.out_dir, stage=self.stage, inputs=self.inputs, outputs={"complete": True, **outputs}
        )
