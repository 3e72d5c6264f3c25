"""The facts the synthetic generator follows: each real marginal or layout fact, its source and a tolerance.

A generator written from the project's own assumptions cannot catch a reader's failures on real
data (issue 21). So every marginal the generator imitates is written down here with where it comes
from, and ``tests/test_synthetic_facts.py`` measures a generated root against each one within
``tolerance`` (absolute, on the 300-patient test root). Facts taken from the open MIMIC-IV demo carry
the SQL that measures them; ``bench/measure_demo_facts.py`` runs that same SQL on the demo
(``../shared/data/mimic-iv-demo``) and shows that ``value`` is what the demo says, so the file cannot
drift from its source. Facts about notes (there is no open MIMIC-IV-Note demo) come from the
CliniBench paper and the MIMIC-IV documentation; the test measures them on the note text and
``_truth/discharge_sections``.

Where the generator departs from the demo on purpose, the fact says so: the demo has no ESI 5 and
no unit-less OMR names, which real releases have and readers must meet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from admitdx.sources.mimic import MimicSource

DEMO = "open MIMIC-IV demo v2.2 (ed, hosp), measured by bench/measure_demo_facts.py"
DOCS_OMR = "MIMIC-IV v2.2 hosp/omr documentation (result_name values; schema notes §2.8)"
CLINIBENCH = "CliniBench paper, table 1 (avg. tokens per admission note 624.9-687.5)"
ISSUE = "issue 21 (the generator's own rate, stated where the sources are silent)"


@dataclass(frozen=True)
class Fact:
    """One figure the generator must reproduce."""

    name: str
    value: float
    tolerance: float
    source: str
    what: str
    sql: str | None = None  # one number, over the root's DuckDB views; None: see synthetic.measure

    def holds(self, measured: float) -> bool:
        return abs(measured - self.value) <= self.tolerance + 1e-12


def _share(table: str, condition: str) -> str:
    return f"SELECT avg(CASE WHEN {condition} THEN 1.0 ELSE 0.0 END) FROM {table}"


def _disposition(value: str) -> str:
    return _share("ed.edstays", f"disposition = '{value}'")


FACTS: tuple[Fact, ...] = (
    # --- how ED stays end (150 / 60 / 5 / 2 / 2 / 2 / 1 of 222) -----------------------------------
    Fact("ed_admitted", 150 / 222, 0.05, DEMO, "ED stays ending ADMITTED", _disposition("ADMITTED")),
    Fact("ed_home", 60 / 222, 0.05, DEMO, "ED stays ending HOME", _disposition("HOME")),
    Fact("ed_transfer", 5 / 222, 0.02, DEMO, "ED stays ending TRANSFER", _disposition("TRANSFER")),
    Fact("ed_other", 2 / 222, 0.015, DEMO, "ED stays ending OTHER", _disposition("OTHER")),
    Fact(
        "ed_ama",
        2 / 222,
        0.015,
        DEMO,
        "ED stays ending LEFT AGAINST MEDICAL ADVICE",
        _disposition("LEFT AGAINST MEDICAL ADVICE"),
    ),
    Fact(
        "ed_lwbs",
        2 / 222,
        0.015,
        DEMO,
        "ED stays ending LEFT WITHOUT BEING SEEN",
        _disposition("LEFT WITHOUT BEING SEEN"),
    ),
    Fact("ed_eloped", 1 / 222, 0.015, DEMO, "ED stays ending ELOPED", _disposition("ELOPED")),
    Fact(
        "ed_dispositions",
        7,
        0,
        DEMO,
        "distinct dispositions",
        "SELECT count(DISTINCT disposition) FROM ed.edstays",
    ),
    # --- triage: acuity and gaps (acuity 18 / 97 / 90 / 2 / 0, 15 empty) ---------------------------
    Fact("esi_1", 18 / 222, 0.04, DEMO, "triage rows with acuity 1", _share("ed.triage", "acuity = 1")),
    Fact("esi_2", 97 / 222, 0.08, DEMO, "triage rows with acuity 2", _share("ed.triage", "acuity = 2")),
    Fact("esi_3", 90 / 222, 0.08, DEMO, "triage rows with acuity 3", _share("ed.triage", "acuity = 3")),
    Fact(
        "esi_4_5",
        2 / 222,
        0.02,
        DEMO + "; ESI 5 added (the demo has none, the scale has five levels)",
        "triage rows with acuity 4 or 5",
        _share("ed.triage", "acuity >= 4"),
    ),
    Fact(
        "esi_levels",
        5,
        0,
        ISSUE + ": the demo's tasks need all five ESI levels",
        "distinct acuity levels",
        "SELECT count(DISTINCT acuity) FROM ed.triage",
    ),
    Fact(
        "triage_no_acuity",
        15 / 222,
        0.03,
        DEMO,
        "triage rows without acuity",
        _share("ed.triage", "acuity IS NULL"),
    ),
    Fact(
        "triage_no_temperature",
        26 / 222,
        0.04,
        DEMO,
        "triage rows without a temperature",
        _share("ed.triage", "temperature IS NULL"),
    ),
    Fact(
        "triage_no_pain",
        21 / 222,
        0.04,
        DEMO,
        "triage rows without pain",
        _share("ed.triage", "pain IS NULL"),
    ),
    Fact(
        "triage_pain_text",
        12 / 201,
        0.04,
        DEMO,
        "triage pains that are not a number ('unable', 'UA', …)",
        "SELECT avg(CASE WHEN TRY_CAST(pain AS DOUBLE) IS NULL THEN 1.0 ELSE 0.0 END) FROM ed.triage "
        "WHERE pain IS NOT NULL",
    ),
    # --- serial ED vitals (1,038 rows over 206 of 222 stays) ---------------------------------------
    Fact(
        "stays_with_vitalsign",
        206 / 222,
        0.04,
        DEMO,
        "ED stays with an ed/vitalsign row",
        "SELECT avg(CASE WHEN stay_id IN (SELECT stay_id FROM ed.vitalsign) THEN 1.0 ELSE 0.0 END) "
        "FROM ed.edstays",
    ),
    Fact(
        "vitalsign_no_temperature",
        459 / 1038,
        0.05,
        DEMO,
        "vitalsign rows without a temperature",
        _share("ed.vitalsign", "temperature IS NULL"),
    ),
    Fact(
        "vitalsign_no_o2sat",
        67 / 1038,
        0.03,
        DEMO,
        "vitalsign rows without SpO2",
        _share("ed.vitalsign", "o2sat IS NULL"),
    ),
    Fact(
        "vitalsign_no_sbp",
        40 / 1038,
        0.03,
        DEMO,
        "vitalsign rows without a blood pressure",
        _share("ed.vitalsign", "sbp IS NULL"),
    ),
    Fact(
        "vitalsign_no_rhythm",
        1005 / 1038,
        0.02,
        DEMO,
        "vitalsign rows without a rhythm",
        _share("ed.vitalsign", "rhythm IS NULL"),
    ),
    Fact(
        "vitalsign_no_pain",
        302 / 1038,
        0.05,
        DEMO,
        "vitalsign rows without pain",
        _share("ed.vitalsign", "pain IS NULL"),
    ),
    # --- OMR spellings -----------------------------------------------------------------------------
    Fact(
        "omr_demo_names",
        8,
        0,
        DEMO,
        "of the demo's 8 result_name spellings, how many occur",
        "SELECT count(DISTINCT result_name) FROM hosp.omr WHERE result_name IN ('Blood Pressure', "
        "'Weight (Lbs)', 'BMI (kg/m2)', 'Height (Inches)', 'Blood Pressure Sitting', "
        "'Blood Pressure Lying', 'Blood Pressure Standing (1 min)', 'Blood Pressure Standing (3 mins)')",
    ),
    Fact(
        "omr_unitless_weight",
        0.15,
        0.08,
        DOCS_OMR + "; the share is ours, Knobs.omr_unitless (the demo has none)",
        "weight rows spelled 'Weight' rather than 'Weight (Lbs)'",
        "SELECT avg(CASE WHEN result_name = 'Weight' THEN 1.0 ELSE 0.0 END) FROM hosp.omr "
        "WHERE result_name IN ('Weight', 'Weight (Lbs)')",
    ),
    Fact(
        "omr_repeat",
        192 / 2964,
        0.03,
        DEMO,
        "OMR rows with seq_num > 1 (same-day repeats)",
        _share("hosp.omr", "seq_num > 1"),
    ),
    # --- discharge summaries (no open note demo: papers, documentation and our stated rates) ------
    Fact(
        "admission_tokens",
        656.0,
        32.0,
        CLINIBENCH + "; tokens as admitdx counts them (\\w+|[^\\w\\s])",
        "mean tokens of a discharge note's admission-time sections with their headings (the admission note)",
    ),
    Fact(
        "section_inventory",
        1.0,
        0.0,
        "MIMIC-IV-Note discharge template (schema notes §4.4)",
        "notes holding every section of the template, each non-empty",
    ),
    Fact(
        "discharge_exam_spellings",
        38,
        8,
        ISSUE + ": the real spellings of synthetic.headings",
        "distinct discharge-exam headings over the root's notes",
    ),
    Fact(
        "label_support",
        0.57,
        0.08,
        ISSUE + ": a chronic condition's code always (Past Medical History), an added secondary code "
        "at Knobs.coded_in_history (0.6), the stay's acute and status codes never (they are the answer)",
        "billed codes the admission-time text names",
    ),
)
BY_NAME = {f.name: f for f in FACTS}


def measure_sql(src: MimicSource) -> dict[str, float]:
    """Every fact that has SQL, measured on an open MIMIC-IV root (the demo or a synthetic one)."""
    return {f.name: float(src.execute(f.sql).fetchone()[0] or 0.0) for f in FACTS if f.sql}
