"""Triage (one row per stay, no timestamp) and serial ED vital signs.

Vitals start from a healthy baseline shifted by the scenario (a septic patient is febrile,
tachycardic, hypotensive). A diagnosis confirmed by vital signs (respiratory failure by hypoxaemia,
septic shock by hypotension) shifts them further and is placed as direct triage evidence; one only
suggested by them is placed as indirect evidence.

Gaps follow the open MIMIC-IV-ED demo (``facts.py``): a triage row is complete in 190 of 222 stays,
empty but for the chief complaint in 15 (no acuity either), without vitals in 8, without pain or a
temperature in a few (:data:`TRIAGE_GAPS`); 16 of 222 stays have no ``vitalsign`` row, and a
``vitalsign`` row lacks its temperature 44 % of the time, its pain 29 %, its rhythm 97 %. Pain is
free text there ("unable", "UA", "Critical", "uta", "ett"), and so it is here. A row whose vitals
confirm or suggest a diagnosis keeps them, so the ``_truth`` evidence stays true.
"""

from __future__ import annotations

from admitdx.synthetic.condition import Condition
from admitdx.synthetic.disposition import RELEASE_ESI
from admitdx.synthetic.patient import Patient, minutes, weighted
from admitdx.synthetic.scenarios import Scenario
from admitdx.synthetic.stay import Stay

BASELINE = {
    "temp": (98.1, 0.5),
    "hr": (82, 12),
    "rr": (17, 1.5),
    "o2": (97.5, 1.5),
    "sbp": (134, 18),
    "dbp": (76, 10),
}
# Extra shifts a vitals-confirmed diagnosis brings.
CONFIRMING_SHIFTS = {
    "resp_failure": {"o2": -10, "rr": 8},
    "severe_sepsis": {"sbp": -25, "hr": 15},
    "septic_shock": {"sbp": -40, "hr": 20},
    "htn_urgency": {"sbp": 30},
    "asthma_exacerbation": {"o2": -4, "rr": 6},
    "heroin_overdose": {"rr": -5, "o2": -6},
    "alcohol_withdrawal": {"hr": 15},
    "cellulitis": {"temp": 1.0},
}
LIMITS = {
    "temp": (95.0, 104.5),
    "hr": (32, 190),
    "rr": (6, 44),
    "o2": (72, 100),
    "sbp": (62, 240),
    "dbp": (32, 140),
}
VITALS = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp")
#: Fields left empty in a triage row, weighted by how often the demo's 222 rows show the pattern.
TRIAGE_GAPS: tuple[tuple[tuple[str, ...], float], ...] = (
    ((), 190),
    ((*VITALS, "pain", "acuity"), 15),
    (VITALS, 6),
    (("pain",), 4),
    (("temperature",), 3),
    ((*VITALS, "pain"), 2),
    (("o2sat",), 1),
    (("heartrate",), 1),
)
#: Triage pain as the demo writes it (numbers, and the free text nurses type), weighted by count.
PAIN: tuple[tuple[str, float], ...] = (
    ("0", 82), ("8", 22), ("10", 20), ("5", 19), ("7", 15), ("9", 8), ("13", 7), ("4", 5), ("3", 4),
    ("unable", 4), ("UA", 3), ("2", 3), ("6", 3), ("Critical", 2), ("1", 1), ("o", 1), ("uta", 1),
    ("ett", 1),
)  # fmt: skip
P_NO_VITALSIGN = 16 / 222  # stays without any ed/vitalsign row on the demo
#: P(empty) per ed/vitalsign field on the demo's 1,038 rows (sbp and dbp go together).
VITALSIGN_EMPTY = {"temp": 459 / 1038, "hr": 30 / 1038, "rr": 48 / 1038, "o2": 67 / 1038, "bp": 40 / 1038}
P_VITALSIGN_PAIN_EMPTY = 302 / 1038
P_RHYTHM = 33 / 1038  # a rhythm is charted (afib patients: their rhythm, others a sinus one)


def _clamp(name: str, v: float) -> float:
    lo, hi = LIMITS[name]
    return max(lo, min(hi, v))


def write_triage_and_vitals(
    p: Patient, sc: Scenario, stay: Stay, conds: list[Condition]
) -> tuple[int, str, bool]:
    """Write ed.triage and ed.vitalsign rows.

    Returns (ESI acuity, arrival transport, whether serial vitals precede t0).
    """
    rng, k = p.rng, p.knobs
    primary = conds[0]
    scale = 1.0 if primary.klass != "unsupported" else 0.25
    shift = {name: scale * delta for name, delta in sc.vitals}
    confirmed = [c for c in conds if c.dx and c.dx.confirm == "vitals" and c.klass == "supported"]
    hinted = [c for c in conds if c.dx and c.klass == "partial" and c.role == "secondary"]
    for c in confirmed:
        for name, delta in CONFIRMING_SHIFTS.get(c.key, {}).items():
            shift[name] = shift.get(name, 0) + delta
    vitals = {n: _clamp(n, rng.gauss(m, s) + shift.get(n, 0)) for n, (m, s) in BASELINE.items()}
    if stay.hadm_id is None:
        acuity = weighted(rng, RELEASE_ESI)
    else:
        p1, p2, p3 = sc.esi
        u = rng.random()
        acuity = 1 if u < p1 else 2 if u < p1 + p2 + k.esi_shift else 3 if u < p1 + p2 + p3 else 4
    arrival = (
        "AMBULANCE"
        if rng.random() < sc.ambulance + k.ambulance_shift
        else rng.choice(("WALK IN", "WALK IN", "WALK IN", "UNKNOWN", "OTHER"))
    )
    line = (
        f"T{vitals['temp']:.1f} HR{vitals['hr']:.0f} RR{vitals['rr']:.0f} SpO2{vitals['o2']:.0f} "
        f"BP{vitals['sbp']:.0f}/{vitals['dbp']:.0f}"
    )
    row = {
        "temperature": f"{vitals['temp']:.1f}",
        "heartrate": round(vitals["hr"]),
        "resprate": round(vitals["rr"]),
        "o2sat": round(vitals["o2"]),
        "sbp": round(vitals["sbp"]),
        "dbp": round(vitals["dbp"]),
        "pain": weighted(rng, PAIN),
        "acuity": acuity,
    }
    gaps = weighted(rng, TRIAGE_GAPS)
    if not (confirmed or hinted):
        row.update(dict.fromkeys(gaps))
    p.sink.add("ed.triage", (p.subject_id, stay.stay_id, *row.values(), stay.cc))
    for c in confirmed:
        c.place("triage", "ed.triage", stay.stay_id, stay.intime, stay.t0, line, direct=True)
    for c in hinted:
        c.place("triage", "ed.triage", stay.stay_id, stay.intime, stay.t0, line, direct=False)
    serial = _serial_vitals(
        p, stay, vitals, "Atrial Fibrillation" if p.has("afib") or primary.key == "afib" else None
    )
    return row["acuity"], arrival, serial


def _serial_vitals(p: Patient, stay: Stay, start: dict[str, float], rhythm: str | None) -> bool:
    """Readings every 1-3 h from arrival to departure, drifting back toward baseline with treatment."""
    rng = p.rng
    if rng.random() < P_NO_VITALSIGN:
        return False
    t = stay.intime + minutes(rng.uniform(8, 35))
    n = 0
    while t < stay.outtime and n < 8:
        frac = 0.5**n
        v = {
            name: _clamp(name, BASELINE[name][0] + (start[name] - BASELINE[name][0]) * frac + rng.gauss(0, 2))
            for name in start
        }
        empty = {name for name, share in VITALSIGN_EMPTY.items() if rng.random() < share}
        bp = (None, None) if "bp" in empty else (round(v["sbp"]), round(v["dbp"]))
        p.sink.add(
            "ed.vitalsign",
            (
                p.subject_id,
                stay.stay_id,
                t,
                None if "temp" in empty else f"{v['temp']:.1f}",
                None if "hr" in empty else round(v["hr"]),
                None if "rr" in empty else round(v["rr"]),
                None if "o2" in empty else round(v["o2"]),
                *bp,
                _rhythm(rhythm, v["hr"]) if rng.random() < P_RHYTHM else None,
                None if rng.random() < P_VITALSIGN_PAIN_EMPTY else rng.choice(("0", "0", "3", "5", "8")),
            ),
        )
        t += minutes(rng.uniform(50, 180))
        n += 1
    return n > 0 and stay.intime + minutes(35) <= stay.t0


def _rhythm(afib: str | None, hr: float) -> str:
    """A charted rhythm in the demo's spellings ("Atrial Fibrillation", "Sinus Tachycardia" ...)."""
    if afib:
        return afib
    return "Sinus Tachycardia" if hr > 100 else "Sinus Bradycardia" if hr < 60 else "Sinus Rhythm"
