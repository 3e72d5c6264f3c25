"""Which model inputs a change to the note cutters changes, on a synthetic MIMIC root and release.

Run ``dump`` once with the old code on ``PYTHONPATH`` and once with the new, then ``compare``:

    PYTHONPATH=/tmp/old/src python bench/bench_heading_cut_changes.py dump ROOT RELEASE old.json
    PYTHONPATH=src          python bench/bench_heading_cut_changes.py dump ROOT RELEASE new.json
    python bench/bench_heading_cut_changes.py compare old.json new.json

``dump`` cuts every discharge summary of ``ROOT/note/discharge.csv.gz`` into CliniBench's
admission note (the build's input text) and every current ED note of ``RELEASE/er_reason.csv``
into ER-Reason's presentation; ``compare`` counts the notes whose output changed, by section (and
whether text was lost or gained), and the ED notes that changed, were newly left out or newly kept.
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

csv.field_size_limit(sys.maxsize)


def dump(root: Path, release: Path, out: Path) -> None:
    from admitdx.tasks.clinibench.note import admission_note
    from admitdx.tasks.erreason.release_notes import presentation

    result: dict[str, dict[str, object]] = {"clinibench": {}, "erreason": {}}
    with gzip.open(root / "note" / "discharge.csv.gz", "rt", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            result["clinibench"][row["note_id"]] = admission_note(row["text"] or "").sections
    with (release / "er_reason.csv").open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            result["erreason"][row["encounterkey"]] = presentation(row["ED_Provider_Notes_Text"])
    out.write_text(json.dumps(result), encoding="utf-8")


def compare(old_path: Path, new_path: Path) -> None:
    old, new = (json.loads(p.read_text(encoding="utf-8")) for p in (old_path, new_path))
    changes: Counter[str] = Counter()
    notes = 0
    for note_id, before in old["clinibench"].items():
        after = new["clinibench"][note_id]
        diff = [name for name in before if before[name] != after.get(name)]
        notes += bool(diff)
        for name in diff:
            a, b = before[name] or "", after.get(name) or ""
            changes[f"{name}: {'shorter' if len(b) < len(a) else 'longer'}"] += 1
    print(f"CliniBench: {notes} of {len(old['clinibench'])} admission notes changed")
    for key, n in changes.most_common():
        print(f"  {key}: {n}")
    er: Counter[str] = Counter()
    for key, before in old["erreason"].items():
        after = new["erreason"][key]
        if before == after:
            continue
        er["newly left out" if after is None else "newly kept" if before is None else "text changed"] += 1
    print(f"ER-Reason release: {sum(er.values())} of {len(old['erreason'])} presentations changed", dict(er))


def main(argv: list[str]) -> int:
    if len(argv) == 5 and argv[1] == "dump":
        dump(Path(argv[2]), Path(argv[3]), Path(argv[4]))
    elif len(argv) == 4 and argv[1] == "compare":
        compare(Path(argv[2]), Path(argv[3]))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
