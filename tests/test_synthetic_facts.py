"""The generator against its facts file: every real marginal and layout fact, within its tolerance.

``admitdx.synthetic.facts`` names each fact's source. The demo's facts are re-measured on the real
demo here with the same SQL (so the file cannot drift from the demo), then on the session's
300-patient synthetic root; the note facts (no open MIMIC-IV-Note demo) are measured on the note
text and ``_truth/discharge_sections``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from statistics import mean

import pytest

from admitdx.sources.mimic import open_mimic
from admitdx.synthetic.facts import BY_NAME, DEMO, FACTS, measure_sql
from admitdx.synthetic.headings import DISCHARGE_EXAM, TOP
from admitdx.synthetic.notes import LEAKAGE_SECTIONS
from admitdx.synthetic.truth import read_note_sections
from admitdx.tasks.clinibench.stats import tokens


def test_demo_facts_are_what_the_real_demo_says(demo_dir: Path) -> None:
    with open_mimic(demo_dir) as src:
        measured = measure_sql(src)
    from_demo = [f for f in FACTS if f.source.startswith(DEMO)]
    assert len(from_demo) >= 20
    wrong = {
        f.name: (measured[f.name], f.value) for f in from_demo if not math.isclose(measured[f.name], f.value)
    }
    assert not wrong


def test_generated_tables_hold_every_fact(synthetic_root: Path) -> None:
    with open_mimic(synthetic_root) as src:
        measured = measure_sql(src)
    off = {
        name: (round(v, 4), BY_NAME[name].value) for name, v in measured.items() if not BY_NAME[name].holds(v)
    }
    assert not off, off
    # the demo's tasks are not trivial: the majority disposition stays under 0.75
    assert measured["ed_admitted"] <= 0.75 and measured["esi_levels"] == 5


@pytest.fixture(scope="module")
def notes(synthetic_root: Path) -> list[tuple[dict, str, set[str]]]:
    """(_truth record, note text, billed codes) per discharge note."""
    with open_mimic(synthetic_root) as src:
        texts = dict(src.execute("SELECT hadm_id, text FROM note.discharge").fetchall())
        billed: dict[int, set[str]] = defaultdict(set)
        for hadm, code in src.execute("SELECT hadm_id, icd_code FROM hosp.diagnoses_icd").fetchall():
            billed[hadm].add(code)
    return [
        (rec, texts[rec["hadm_id"]], billed[rec["hadm_id"]]) for rec in read_note_sections(synthetic_root)
    ]


def _admission_part(rec: dict) -> str:
    return "\n".join(body for name, body in rec["sections"].items() if name not in LEAKAGE_SECTIONS)


def test_admission_text_is_as_long_as_clinibench_notes(notes: list) -> None:
    """Each admission-time section with its heading: what CliniBench's admission note holds (its
    builder writes "HEADER: text"; on the 300-patient root the two counts differ by 2-3 tokens)."""

    def length(rec: dict) -> int:
        headings = " ".join(
            rec["headings"].get(name, "") for name in rec["sections"] if name not in LEAKAGE_SECTIONS
        )
        return len(tokens(_admission_part(rec))) + len(tokens(headings))

    assert BY_NAME["admission_tokens"].holds(mean(length(rec) for rec, _, _ in notes))


def test_every_note_holds_the_template_sections_under_drawn_spellings(notes: list) -> None:
    complete = [
        all(body.strip() for body in rec["sections"].values())
        and all(f"\n{rec['headings'][name]}\n" in text for name in TOP)
        for rec, text, _ in notes
    ]
    assert BY_NAME["section_inventory"].holds(mean(complete))
    spellings = {rec["headings"]["physical_exam_discharge"] for rec, _, _ in notes}
    assert spellings <= set(DISCHARGE_EXAM)
    assert BY_NAME["discharge_exam_spellings"].holds(len(spellings))
    for name in ("social_history", "family_history", "physical_exam_admission"):  # one in 1,260 before
        assert len({rec["sections"][name] for rec, _, _ in notes}) > len(notes) // 4, name


def test_labels_the_admission_text_supports(notes: list) -> None:
    """A code _truth says the admission text names is billed, and its words are in that text."""
    supported = total = 0
    for rec, _, billed in notes:
        admission = _admission_part(rec)
        for code, words in rec["mentions"].items():
            assert code in billed and words in admission, (rec["note_id"], code, words)
        supported += len(billed & set(rec["mentions"]))
        total += len(billed)
    assert BY_NAME["label_support"].holds(supported / total)
