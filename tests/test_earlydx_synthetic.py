"""The EarlyDx builder against the synthetic generator's ground truth (``_truth/``)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from admitdx.contracts import Instance, load_instances
from admitdx.sources.mimic import open_mimic
from admitdx.synthetic.truth import read_truth
from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx
from admitdx.tasks.earlydx.labels import label_verdict
from admitdx.tasks.earlydx.params import SECTION_NAMES
from admitdx.tasks.sections.radiology import summarize_report

WIDE = 10**6  # a lab budget that never cuts, so presence tests see every result


@pytest.fixture(scope="module")
def truth(synthetic_root: Path) -> list[dict[str, Any]]:
    return [r for r in read_truth(synthetic_root) if r["hadm_id"] is not None]


@pytest.fixture(scope="module")
def builds(synthetic_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[int, Instance]]:
    out: dict[str, dict[int, Instance]] = {}
    for name, params in {
        "w0": EarlyDxParams(lab_char_budget=WIDE),
        "w24": EarlyDxParams(window_hours=24, lab_char_budget=WIDE),
        "store": EarlyDxParams(timestamps="storetime", lab_char_budget=WIDE),
    }.items():
        d = tmp_path_factory.mktemp(name)
        build_earlydx(synthetic_root, d, params)
        out[name] = {i.stay_id: i for i in load_instances(d)}
    return out


def _evidence(truth: list[dict[str, Any]], table: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(r, e) for r in truth for c in r["conditions"] for e in c["evidence"] if e["table"] == table]


def _t(s: str) -> datetime:
    return datetime.fromisoformat(s)


def test_every_section_is_exercised(synthetic_dataset: Path) -> None:
    instances = load_instances(synthetic_dataset)
    for name in SECTION_NAMES:
        assert any(i.sections[name] for i in instances), name
    assert any(i.history for i in instances)
    assert any("Past medical history (from prior discharge note): " in (i.history or "") for i in instances)


def test_radiology_after_t0_is_absent_at_w0_and_present_at_w24(
    synthetic_root: Path, truth: list[dict[str, Any]], builds: dict[str, dict[int, Instance]]
) -> None:
    with open_mimic(synthetic_root) as src:
        texts = dict(src.con.execute("SELECT note_id, text FROM note.radiology").fetchall())
    checked = 0
    for rec, ev in _evidence(truth, "note.radiology"):
        w0, w24 = builds["w0"].get(rec["stay_id"]), builds["w24"].get(rec["stay_id"])
        if w0 is None:
            continue  # no label survived the filter: not in the dataset
        _, body = summarize_report(texts[ev["key"]], EarlyDxParams())
        if ev["after_t0"]:
            assert body not in (w0.sections["radiology"] or ""), ev["key"]
            shown = int((w24.sections["radiology"] or "(0)")[1:].split(")")[0])
            if _t(ev["time"]) <= _t(rec["t0"]) + timedelta(hours=24) and shown < 8:
                assert body in w24.sections["radiology"], ev["key"]
                checked += 1
        elif _t(ev["time"]) >= _t(rec["ed_intime"]):
            assert body in w0.sections["radiology"], ev["key"]
            store = builds["store"][rec["stay_id"]].sections["radiology"] or ""
            assert (body in store) is not ev["stored_after_t0"], ev["key"]
    assert checked > 0


def test_labs_after_t0_are_absent_at_w0_and_present_at_w24(
    synthetic_root: Path, truth: list[dict[str, Any]], builds: dict[str, dict[int, Instance]]
) -> None:
    with open_mimic(synthetic_root) as src:
        rows = src.con.execute(
            "SELECT l.labevent_id, l.subject_id, l.itemid, l.charttime, d.label "
            "FROM hosp.labevents l JOIN hosp.d_labitems d USING (itemid)"
        ).fetchall()
    by_id = {r[0]: r for r in rows}
    draws: dict[tuple[int, int], list[datetime]] = {}
    for _, subject, item, charttime, _ in rows:
        draws.setdefault((subject, item), []).append(charttime)

    def shown(inst: Instance, label: str) -> bool:
        labs = inst.sections["labs"] or ""
        items = labs.split(") ", 1)[1].split("; ") if labs else []
        return any(i.startswith(label + " ") for i in items)

    checked = 0
    for rec, ev in _evidence(truth, "hosp.labevents"):
        if rec["stay_id"] not in builds["w0"] or not ev["after_t0"]:
            continue
        _, subject, item, charttime, label = by_id[int(ev["key"])]
        ed_in, t0 = _t(rec["ed_intime"]), _t(rec["t0"])
        if any(ed_in <= t <= t0 for t in draws[(subject, item)]):
            continue  # the test was also drawn before t0: its label is rightly shown at W = 0
        assert not shown(builds["w0"][rec["stay_id"]], label), (ev["key"], label)
        if charttime <= t0 + timedelta(hours=24):
            assert shown(builds["w24"][rec["stay_id"]], label), (ev["key"], label)
            checked += 1
    assert checked > 0


def test_label_filter_agrees_with_the_generators_intent(truth: list[dict[str, Any]]) -> None:
    conditions = [c for r in truth for c in r["conditions"] if c.get("ed_seq_num") is not None]
    agree = sum(
        (label_verdict(c["icd_code"], c["icd_version"], c["ed_title"], "paper") is None)
        == c["label_expected"]
        for c in conditions
    )
    assert agree == len(conditions)
    for c in conditions:
        if c["role"] in ("external_cause", "status", "generic"):
            assert label_verdict(c["icd_code"], c["icd_version"], c["ed_title"], "paper") is not None, c[
                "ed_title"
            ]


def test_explicit_tags_match_where_the_generator_named_the_diagnosis(
    synthetic_dataset: Path, truth: list[dict[str, Any]]
) -> None:
    by_stay = {r["stay_id"]: {c["icd_code"]: c for c in r["conditions"]} for r in truth}
    pairs = []
    for inst in load_instances(synthetic_dataset):
        for ref in inst.references:
            cond = by_stay[inst.stay_id][ref.code]
            named = any(e["named"] and not e["after_t0"] for e in cond["evidence"])
            pairs.append((named, ref.explicit))
    agree = sum(a == b for a, b in pairs) / len(pairs)
    assert agree >= 0.97, agree
    assert any(b for _, b in pairs) and not all(b for _, b in pairs)
