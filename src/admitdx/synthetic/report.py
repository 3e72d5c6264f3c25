"""The calibration report: what a synthetic root achieves next to EarlyDx's published figures.

Everything is computed with DuckDB from the written tables and ``_truth`` (never from the
generator's memory), over the EarlyDx cohort — ED stays whose ``hadm_id`` is in ``admissions`` —
with t0 = ``admittime``. Section coverage counts a section when it holds a record with event time
in [ED arrival, t0]; "labs (admission scope)" is the published builder's rule (``hadm_id`` of the
admission, charted by t0), "labs (ED-stay scope)" any result of the patient charted in the ED
before t0. Label figures use the intended evidence class and the generator's naming rule
(``naming.py``), so they describe the data, not an auditor's or a builder's reading of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import duckdb

from admitdx.synthetic.calibration import TARGETS
from admitdx.synthetic.tables import FILES
from admitdx.synthetic.truth import ENCOUNTERS_FILE, TRUTH_DIR


class Figure(NamedTuple):
    name: str
    target: float | None
    achieved: float
    description: str


def _csv(root: Path, table: str) -> str:
    return (
        f"read_csv('{root / FILES[table]}', header=true, nullstr='', types={{'icd_code': 'VARCHAR'}})"
        if table in ("ed.diagnosis", "hosp.diagnoses_icd")
        else f"read_csv('{root / FILES[table]}', header=true)"
    )


_COVERAGE_SQL = """
WITH cohort AS (
  SELECT e.subject_id, e.stay_id, e.hadm_id, e.intime, a.admittime AS t0, e.arrival_transport
  FROM {edstays} e JOIN {admissions} a USING (hadm_id)
)
SELECT
  count(*) AS n,
  avg((SELECT count(*) > 0 FROM {triage} t
       WHERE t.stay_id = c.stay_id AND t.chiefcomplaint IS NOT NULL)::INT),
  avg((SELECT count(*) > 0 FROM {ecg} g WHERE g.subject_id = c.subject_id
       AND g.ecg_time BETWEEN c.intime AND c.t0)::INT),
  avg((SELECT count(*) > 0 FROM {radiology} r WHERE r.subject_id = c.subject_id
       AND r.charttime BETWEEN c.intime AND c.t0)::INT),
  avg((SELECT count(*) > 0 FROM {echo} s WHERE s.subject_id = c.subject_id
       AND s.study_datetime BETWEEN c.intime AND c.t0)::INT),
  avg((SELECT count(*) > 0 FROM {labs} l WHERE l.hadm_id = c.hadm_id AND l.charttime <= c.t0)::INT),
  avg((SELECT count(*) > 0 FROM {labs} l WHERE l.subject_id = c.subject_id
       AND l.charttime BETWEEN c.intime AND c.t0)::INT),
  avg((SELECT max(acuity) <= 2 FROM {triage} t WHERE t.stay_id = c.stay_id)::INT),
  avg((c.arrival_transport = 'AMBULANCE')::INT),
  (SELECT avg((l.storetime > c2.t0)::INT) FROM {labs} l JOIN cohort c2 ON l.subject_id = c2.subject_id
   WHERE l.charttime BETWEEN c2.intime AND c2.t0),
  (SELECT avg((r.storetime > c2.t0)::INT) FROM {radiology} r JOIN cohort c2 ON r.subject_id = c2.subject_id
   WHERE r.charttime BETWEEN c2.intime AND c2.t0)
FROM cohort c
"""

_LABEL_SQL = """
WITH cond AS (
  SELECT stay_id, unnest(conditions) AS c FROM read_json('{truth}', format='newline_delimited')
  WHERE hadm_id IN (SELECT hadm_id FROM {admissions})
), labels AS (
  SELECT stay_id, lower(c.ed_title) AS title, any_value(c.evidence_class) AS klass,
         bool_or(list_bool_or([e.named AND NOT e.after_t0 FOR e IN c.evidence])) AS named
  FROM cond WHERE c.label_expected GROUP BY stay_id, lower(c.ed_title)
)
SELECT count(*) / count(DISTINCT stay_id),
       avg((klass = 'supported')::INT), avg((klass = 'partial')::INT), avg((klass = 'unsupported')::INT),
       avg(CASE WHEN klass = 'supported' THEN named::INT END),
       count(DISTINCT stay_id)
FROM labels
"""


def calibration_report(root: Path) -> list[Figure]:
    root = Path(root)
    con = duckdb.connect()
    views = {
        "edstays": _csv(root, "ed.edstays"),
        "admissions": _csv(root, "hosp.admissions"),
        "triage": _csv(root, "ed.triage"),
        "ecg": _csv(root, "ecg.record_list"),
        "radiology": _csv(root, "note.radiology"),
        "echo": _csv(root, "echo.echo_study_list"),
        "labs": _csv(root, "hosp.labevents"),
    }
    cov = con.execute(_COVERAGE_SQL.format(**views)).fetchone()
    lab = con.execute(_LABEL_SQL.format(truth=root / TRUTH_DIR / ENCOUNTERS_FILE, **views)).fetchone()
    n = cov[0]
    achieved = {
        "labels_per_encounter": lab[0],
        "supported": lab[1],
        "partial": lab[2],
        "unsupported": lab[3],
        "verbatim_supported": lab[4],
        "cc_triage": cov[1],
        "ecg": cov[2],
        "radiology": cov[3],
        "echo": cov[4],
        "labs_admission": cov[5],
        "esi_1_2": cov[7],
        "ambulance": cov[8],
        "lab_storetime_drop": cov[9],
        "radiology_storetime_drop": cov[10],
    }
    figures = [
        Figure("cohort_encounters", None, float(n), "ED stays whose hadm_id is in admissions"),
        Figure("encounters_with_labels", None, float(lab[5] or 0), "cohort stays keeping ≥1 label"),
    ]
    figures += [
        Figure(name, TARGETS[name][0], float(achieved[name] or 0.0), TARGETS[name][1]) for name in TARGETS
    ]
    figures.append(
        Figure(
            "labs_ed_stay",
            None,
            float(cov[6] or 0.0),
            "stays with any lab result charted between ED arrival and t0 (ED-stay scope)",
        )
    )
    return figures
