"""Writes ``earlydx_authors_demo_orders.json``: the four lists whose order or selection the paper
leaves open, as the authors' public EarlyDx builder (``build_planA.py`` at head b79ac61, read, not
run or copied) gives them on the real MIMIC-IV demo, per encounter of ``earlydx_authors_demo.json``.

The expected side of the authors'-choice check in ``tests/test_earlydx_reproduction.py``, written
apart from admitdx's builder: the CSV files read row by row with the standard library, so "file
order" here is the order the bytes give, not anything DuckDB decides. Their rules restated —

* home meds: the stay's ``medrecon`` names in file order, without a time filter, distinct (exact
  string), the first 12;
* OMR: per kind, the rows of the first name that has any ("Weight (Lbs)" before "Weight", …) dated
  on or before the admission, sorted by chartdate, the last one. Their pandas sort is not stable;
  the stable sort taken here leaves same-day rows in file order, so the day's last row in the file
  wins, as ``omr_same_day=source`` reads it;
* prior diagnoses: ``diagnoses_icd`` rows of the patient's admissions before this one, in file
  order, their dictionary long title when it survives ``kept``, distinct, the first 8;
* past ED diagnoses: the patient's earlier ED stays (intime before this one's) oldest first, each
  stay's ``diagnosis`` rows in file order, kept titles, distinct, the first 8.

Run ``python tests/data/earlydx_authors_demo_orders.py DEMO_DIR`` to rewrite the file.
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path

from earlydx_authors_demo import kept

OMR_NAMES = {
    "BP": ("Blood Pressure",),
    "Wt": ("Weight (Lbs)", "Weight"),
    "Ht": ("Height (Inches)", "Height"),
    "BMI": ("BMI (kg/m2)", "BMI"),
}


def rows(demo: Path, path: str) -> list[dict[str, str]]:
    with gzip.open(demo / path, "rt", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def first_distinct(titles: list[str], cap: int) -> list[str]:
    return list(dict.fromkeys(titles))[:cap]


def main(demo: Path, stays: set[str]) -> dict[str, dict[str, object]]:
    edstays = rows(demo, "ed/edstays.csv.gz")
    admissions = {a["hadm_id"]: a for a in rows(demo, "hosp/admissions.csv.gz")}
    titles = {
        (d["icd_code"], d["icd_version"]): d["long_title"] for d in rows(demo, "hosp/d_icd_diagnoses.csv.gz")
    }
    meds, ed_dx, dx, omr = defaultdict(list), defaultdict(list), defaultdict(list), defaultdict(list)
    for m in rows(demo, "ed/medrecon.csv.gz"):
        meds[m["stay_id"]].append(m["name"])
    for d in rows(demo, "ed/diagnosis.csv.gz"):
        ed_dx[d["stay_id"]].append(d)
    for d in rows(demo, "hosp/diagnoses_icd.csv.gz"):
        dx[d["subject_id"]].append(d)
    for o in rows(demo, "hosp/omr.csv.gz"):
        omr[o["subject_id"]].append(o)
    out: dict[str, dict[str, object]] = {}
    for stay in edstays:
        if stay["stay_id"] not in stays:
            continue
        subject, admit = stay["subject_id"], admissions[stay["hadm_id"]]["admittime"]
        prior_hadm = {
            h for h, a in admissions.items() if a["subject_id"] == subject and a["admittime"] < admit
        }
        prior_dx = [
            titles[(d["icd_code"], d["icd_version"])]
            for d in dx[subject]
            if d["hadm_id"] in prior_hadm
            and (d["icd_code"], d["icd_version"]) in titles
            and kept(d["icd_code"], int(d["icd_version"]), titles[(d["icd_code"], d["icd_version"])])
        ]
        earlier = sorted(
            (s for s in edstays if s["subject_id"] == subject and s["intime"] < stay["intime"]),
            key=lambda s: s["intime"],
        )
        prior_ed = [
            d["icd_title"]
            for s in earlier
            for d in ed_dx[s["stay_id"]]
            if kept(d["icd_code"], int(d["icd_version"]), d["icd_title"])
        ]
        dated = sorted(
            (o for o in omr[subject] if o["chartdate"] <= admit[:10]), key=lambda o: o["chartdate"]
        )

        def latest(names: tuple[str, ...], dated: list[dict[str, str]] = dated) -> str:
            for name in names:
                values = [o["result_value"] for o in dated if o["result_name"] == name]
                if values:
                    return values[-1]
            return "None"

        out[stay["stay_id"]] = {
            "home_meds": first_distinct([n for n in meds[stay["stay_id"]] if n], 12),
            "omr": ", ".join(f"{label} {latest(names)}" for label, names in OMR_NAMES.items()),
            "prior_dx": first_distinct(prior_dx, 8),
            "prior_ed_dx": first_distinct(prior_ed, 8),
        }
    return out


if __name__ == "__main__":
    here = Path(__file__).parent
    encounters = set(json.loads((here / "earlydx_authors_demo.json").read_text(encoding="utf-8")))
    target = here / "earlydx_authors_demo_orders.json"
    data = main(Path(sys.argv[1]), encounters)
    target.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
