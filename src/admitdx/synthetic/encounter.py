"""One ED visit: triage, vitals, workup, diagnosis list, the admission that follows, and its truth.

The order of decisions mirrors how the record comes to be. First the coded diagnoses of the stay
are drawn (the scenario's, a few chronic ones, symptom / external-cause / status codes). Then each
acute diagnosis draws whether its confirming finding is charted by t0 (→ supported), only hinted at
(→ partial) or charted later or never (→ unsupported), with probabilities from ``Knobs``. The
workup is then written to match, and every record that bears on a diagnosis is placed in
``_truth``; the evidence class is derived from those placements (``condition.py``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime, timedelta

from admitdx.synthetic import ids
from admitdx.synthetic.admission import AdmissionRequest, write_admission
from admitdx.synthetic.comorbidities import BY_KEY as COMORBIDITY
from admitdx.synthetic.comorbidities import HOME_MEDS
from admitdx.synthetic.condition import Condition
from admitdx.synthetic.disposition import ADMITTED
from admitdx.synthetic.evidence_history import place_prior_history
from admitdx.synthetic.patient import Patient, PriorEdStay, minutes
from admitdx.synthetic.scenarios import GENERIC_CODES, Dx, Scenario
from admitdx.synthetic.stay import Stay
from admitdx.synthetic.triage import write_triage_and_vitals
from admitdx.synthetic.truth import SECTIONS
from admitdx.synthetic.vocab import CBC, CHEM
from admitdx.synthetic.workup import LabPanel, draw_labs, write_ecg, write_echo, write_radiology

NONSPECIFIC_CC = (
    "Weakness",
    "Abnormal labs",
    "Lethargy",
    "Fatigue",
    "s/p Fall",
    "Malaise",
    "Generalized weakness",
)
PYXIS_GSN = {
    "Aspirin 81mg TAB": "004380",
    "Morphine Sulfat 4mg/1mL 1mL VIAL": "074851",
    "Vancomycin": "009329",
    "Ondansetron": "015869",
    "Acetaminophen": "004490",
    "Insulin Human Regular": "001723",
    "Lactulose": "003067",
    "CefTRIAXone": "009162",
    "Diazepam": "003766",
    "Thiamine": "002451",
    "FoLIC Acid": "002366",
    "Dextrose 50%": "001989",
    "Metoprolol Tartrate": "019808",
    "Furosemide 40mg/4mL 4mL VIAL": "008205",
    "Pantoprazole Sodium": "052194",
    "HYDROmorphone (Dilaudid)": "062823",
    "MetRONIDAZOLE (Flagyl)": "009588",
    "Nitrofurantoin Monohy (MacroBID)": "016598",
    "Fentanyl Citrate": "041385",
}


def ed_visit(p: Patient, sc: Scenario, intime: datetime, disposition: str) -> datetime:
    """Write one ED stay ending in ``disposition`` (and its admission when that is ``ADMITTED``);
    returns when the patient left hospital."""
    rng, k = p.rng, p.knobs
    admitted = disposition == ADMITTED
    version = p.icd_version(intime)
    to_decision = minutes(max(100.0, math.exp(math.log(262) + rng.gauss(0, 0.45))))
    decision = intime + to_decision
    outtime = decision + minutes(rng.uniform(20, 320)) if admitted else decision
    stay_id = ids.stay_id(p.index, p.next("stay"))
    hadm_id = ids.hadm_id(p.index, p.next("hadm")) if admitted else None

    conds = _coded_conditions(p, sc, version)
    primary = conds[0]
    late = {id(c): c.klass != "supported" and rng.random() < k.late_confirmation for c in conds}
    transfer = primary.klass == "unsupported" and rng.random() < k.transfer
    if primary.klass == "unsupported" and not transfer:
        cc = rng.choice(NONSPECIFIC_CC)
    else:
        cc = rng.choice(sc.cc) + (", Transfer" if transfer and "Transfer" not in sc.cc[0] else "")
    stay = Stay(stay_id, hadm_id, intime, decision, outtime, version, cc)

    for c in conds:
        if c.role in ("symptom", "external_cause") or (c is primary and c.klass != "unsupported"):
            c.place("chief_complaint", "ed.triage", stay_id, intime, stay.t0, cc, direct=False)
    acuity, arrival, serial_vitals = write_triage_and_vitals(p, sc, stay, conds)
    sections = {"chief_complaint", "triage"} | ({"ed_vitals"} if serial_vitals else set())
    sections |= _labs(p, sc, stay, conds, late)
    sections |= _ecg(p, sc, stay, conds, late)
    sections |= _radiology(p, sc, stay, conds, late)
    sections |= _echo(p, sc, stay, conds)
    sections |= _medications(p, sc, stay, conds)
    if place_prior_history(p, conds, stay.t0):
        sections.add("prior_history")

    for seq, c in enumerate(conds, 1):
        p.sink.add("ed.diagnosis", (p.subject_id, stay_id, seq, c.code, version, c.ed_title))
    p.sink.add(
        "ed.edstays",
        (p.subject_id, hadm_id, stay_id, intime, outtime, p.gender, p.race, arrival, disposition),
    )
    p.sink.truth.append(
        {
            "subject_id": p.subject_id,
            "stay_id": stay_id,
            "hadm_id": hadm_id,
            "ed_intime": intime.isoformat(sep=" "),
            "t0": stay.t0.isoformat(sep=" ") if admitted else None,
            "ed_outtime": outtime.isoformat(sep=" "),
            "scenario": sc.key,
            "acuity": acuity,
            "arrival_transport": arrival,
            "disposition": disposition,
            "icd_version": version,
            "sections_at_t0": [s for s in SECTIONS if s in sections],
            "conditions": [c.to_truth(seq) for seq, c in enumerate(conds, 1)],
        }
    )
    p.ed_stays.append(PriorEdStay(stay_id, intime, [(c.key, c.code, version, c.ed_title) for c in conds]))
    if not admitted:
        p.sink.add(
            "hosp.transfers", (p.subject_id, None, stay_id, "ED", "Emergency Department", intime, outtime)
        )
        return outtime
    billed = [(c.key, c.code) for c in conds if c.role in ("primary", "secondary", "external_cause")]
    return write_admission(
        p,
        AdmissionRequest(
            hadm_id=hadm_id,
            admittime=stay.t0,
            admission_type=rng.choice(
                ("EW EMER.", "EW EMER.", "EW EMER.", "OBSERVATION ADMIT", "EU OBSERVATION")
            )
            if not transfer
            else "URGENT",
            admission_location="TRANSFER FROM HOSPITAL" if transfer else "EMERGENCY ROOM",
            unit=sc.unit,
            los_days=sc.los_days,
            version=version,
            billed=billed,
            chief_complaint=cc,
            ed_stay=(stay_id, intime, outtime),
        ),
    )


def _coded_conditions(p: Patient, sc: Scenario, version: int) -> list[Condition]:
    rng, k = p.rng, p.knobs
    conds: list[Condition] = []

    def add(key: str, codes: tuple[str, str], role: str, dx: Dx | None = None) -> None:
        code = codes[0] if version == 10 else codes[1]
        if all(c.code != code for c in conds):
            cond = Condition(key, code, version, role, dx)
            if dx is not None:
                cond.klass = _draw_class(p, dx)
            conds.append(cond)

    add(sc.primary.key, (sc.primary.icd10, sc.primary.icd9), "primary", sc.primary)
    for dx in sc.secondary:
        if rng.random() < dx.p:
            add(dx.key, (dx.icd10, dx.icd9), "secondary", dx)
    for codes in sc.symptoms:
        if rng.random() < k.symptom_coded:
            add("symptom", codes, "symptom")
    for c in p.comorbidities:
        if rng.random() < k.comorbidity_coded:
            add(c.key, (c.icd10, c.icd9), "comorbidity")
    for c in p.comorbidities:
        if c.status and rng.random() < k.status_coded:
            add(c.key + "_status", c.status, "status")
    for codes in sc.external:
        add("external", codes, "external_cause")
    if rng.random() < k.generic_coded:
        add("generic", rng.choice(GENERIC_CODES), "generic")
    return conds


def _draw_class(p: Patient, dx: Dx) -> str:
    k, u = p.knobs, p.rng.random()
    if dx.confirm == "none":
        return "partial" if u < k.unconfirmed_partial else "unsupported"
    supported = {
        "radiology": k.supported_radiology,
        "ecg": k.supported_ecg,
        "labs": k.supported_labs,
        "vitals": k.supported_vitals,
    }.get(dx.confirm, k.supported_labs)
    if u < supported:
        return "supported"
    return "partial" if u < supported + k.acute_partial else "unsupported"


def _labs(p: Patient, sc: Scenario, stay: Stay, conds: list[Condition], late: dict[int, bool]) -> set[str]:
    rng, k = p.rng, p.knobs
    pre: dict[str, tuple[float, float]] = {}
    post: dict[str, tuple[float, float]] = {}
    by_lab: dict[str, list[Condition]] = defaultdict(list)
    for c in conds:
        for key, lo, hi in c.dx.labs if c.dx else ():
            if c.klass == "supported":
                pre[key] = post[key] = (lo, hi)
                by_lab[key].append(c)
            elif late[id(c)]:
                post[key] = (lo, hi)
                by_lab[key].append(c)
    panel = LabPanel(p, pre, post)
    extra = [key for c in conds if c.dx for key, _, _ in c.dx.labs]
    keys = [*CBC, *CHEM, *sc.labs, *extra]
    sections: set[str] = set()
    window = (stay.t0 - stay.intime).total_seconds() / 60
    if rng.random() < 0.96:
        when = stay.intime + minutes(min(rng.uniform(10, 50), max(3.0, window - 5)))
        draw_labs(p, panel, keys, when, stay.t0, None, by_lab, "labs_ed")
        sections.add("labs_ed")
    if stay.hadm_id is None:
        return sections
    if rng.random() < k.labs_admission and window > 60:
        when = stay.t0 - minutes(rng.uniform(10, min(180.0, window - 30)))
        draw_labs(
            p, panel, [*extra, "k", "glu", "hgb"], when, stay.t0, stay.hadm_id, by_lab, "labs_admission"
        )
        sections.add("labs_admission")
    evening = stay.t0 + minutes(rng.uniform(120, 420))
    draw_labs(p, panel, [*extra, *CHEM[:6]], evening, stay.t0, stay.hadm_id, by_lab, "labs_admission")
    morning = (stay.t0 + timedelta(days=1)).replace(hour=5, minute=rng.randint(0, 59), second=0)
    draw_labs(
        p,
        panel,
        [*CBC, *CHEM, *extra],
        morning,
        stay.t0,
        stay.hadm_id,
        by_lab,
        "labs_admission",
        priority="ROUTINE",
    )
    return sections


def _ecg(p: Patient, sc: Scenario, stay: Stay, conds: list[Condition], late: dict[int, bool]) -> set[str]:
    rng, k = p.rng, p.knobs
    ecg_conds = [c for c in conds if c.dx and c.dx.confirm == "ecg"]
    confirmed = [c for c in ecg_conds if c.klass == "supported"]
    chance = 0.97 if sc.system == "cardiac" else (k.ecg if sc.ecg else k.ecg_rare)
    sections: set[str] = set()
    if confirmed or rng.random() < chance:
        placed: list[Condition] = []
        statements: list[str] = []
        for c in confirmed:
            statements.append(c.dx.named if rng.random() < k.named or not c.dx.implied else c.dx.implied)
            placed.append(c)
        if not statements and p.has("afib") and rng.random() < 0.75:
            statements.append("Atrial fibrillation")
            placed += [c for c in conds if c.key == "afib"]
        statements = [*statements, "Abnormal ECG"] if statements else list(sc.ecg or ("Sinus rhythm",))
        when = stay.intime + minutes(
            min(rng.uniform(3, 40), max(1.0, (stay.t0 - stay.intime).seconds / 60 - 1))
        )
        hr = (
            120.0
            if any("rapid" in s or "tachycardia" in s.lower() for s in statements)
            else rng.gauss(80, 12)
        )
        study = write_ecg(p, when, hr, statements)
        for c in placed:
            c.place(
                "ecg", "ecg.machine_measurements", study, when, stay.t0, "; ".join(statements), direct=True
            )
        sections.add("ecg")
    for c in ecg_conds:
        if c.klass != "supported" and late[id(c)] and stay.hadm_id is not None:
            when = stay.t0 + minutes(rng.uniform(60, 1080))
            statement = c.dx.named if rng.random() < k.named or not c.dx.implied else c.dx.implied
            study = write_ecg(p, when, rng.gauss(85, 15), [statement, "Abnormal ECG"])
            c.place("ecg", "ecg.machine_measurements", study, when, stay.t0, statement, direct=True)
    return sections


def _radiology(
    p: Patient, sc: Scenario, stay: Stay, conds: list[Condition], late: dict[int, bool]
) -> set[str]:
    rng, k = p.rng, p.knobs
    before: dict[str, list[tuple[Condition, str]]] = defaultdict(list)
    after: dict[str, list[tuple[Condition, str]]] = defaultdict(list)
    for c in conds:
        if not c.dx or c.dx.confirm != "radiology":
            continue
        text = c.dx.named if rng.random() < k.named else c.dx.implied
        if c.klass == "supported":
            before[c.dx.exam].append((c, text))
        elif late[id(c)] and stay.hadm_id is not None:
            after[c.dx.exam].append((c, text))
    if not before and sc.exam and rng.random() < k.radiology:
        before[sc.exam] = []
    window = (stay.t0 - stay.intime).total_seconds() / 60
    for exam, found in before.items():
        _report(p, stay, exam, found, stay.intime + minutes(rng.uniform(15, max(20.0, 0.5 * window))))
    for exam, found in after.items():
        _report(p, stay, exam, found, stay.t0 + minutes(rng.uniform(60, 960)))
    return {"radiology"} if before else set()


def _report(p: Patient, stay: Stay, exam: str, found: list[tuple[Condition, str]], when: datetime) -> None:
    finding = " ".join(c.dx.implied + "." for c, _ in found) or None
    impression = " ".join(text + "." for _, text in found) or None
    note_id, stored, text = write_radiology(p, when, stay.hadm_id, exam, stay.cc, finding, impression)
    for c, _ in found:
        c.place("radiology", "note.radiology", note_id, when, stay.t0, text, direct=True, storetime=stored)


def _echo(p: Patient, sc: Scenario, stay: Stay, conds: list[Condition]) -> set[str]:
    rng, k = p.rng, p.knobs
    window = (stay.t0 - stay.intime).total_seconds() / 60
    chance = k.echo * (2.0 if sc.system == "cardiac" or p.has("chf") else 1.0)
    if window < 50 or rng.random() >= chance:
        return set()
    hf = [c for c in conds if c.key == "chf" and (c.role == "comorbidity" or c.klass == "supported")]
    low_ef = p.has("chf") or bool(hf)
    lvef = rng.uniform(20, 38) if low_ef else rng.uniform(55, 68)
    effusion = "Small" if any(c.key == "pericarditis" and c.klass == "supported" for c in conds) else "None"
    rv = "Dilated" if any(c.key == "pe" and c.klass == "supported" for c in conds) else "Normal"
    when = stay.intime + minutes(rng.uniform(40, window - 5))
    study, summary = write_echo(p, when, lvef, rv, effusion)
    for c in conds:
        if (c.key == "chf" and low_ef) or (c.key == "pericarditis" and effusion != "None"):
            c.place("echo", "echo.structured_measurement", study, when, stay.t0, summary, direct=True)
    return {"echo"}


def _medications(p: Patient, sc: Scenario, stay: Stay, conds: list[Condition]) -> set[str]:
    rng = p.rng
    stay_min = (stay.outtime - stay.intime).total_seconds() / 60
    for n, name in enumerate(sc.ed_meds, 1):
        when = stay.intime + minutes(min(rng.uniform(20, 200), stay_min - 2))
        p.sink.add("ed.pyxis", (p.subject_id, stay.stay_id, when, n, name, 1, PYXIS_GSN.get(name)))
    if not p.home_meds or rng.random() >= p.knobs.medrecon:
        return set()
    when = stay.intime + minutes(min(rng.uniform(15, 150), stay_min - 2))
    for name in p.home_meds:
        gsn, ndc, etccode, etcdescription = HOME_MEDS[name]
        p.sink.add(
            "ed.medrecon", (p.subject_id, stay.stay_id, when, name, gsn, ndc, 1, etccode, etcdescription)
        )
        for c in conds:
            base = COMORBIDITY.get(c.key.removesuffix("_status"))
            if base is not None and name in base.meds:
                c.place("medrecon", "ed.medrecon", f"medrecon {when}", when, stay.t0, name, direct=False)
    return {"medrecon"} if when <= stay.t0 else set()
