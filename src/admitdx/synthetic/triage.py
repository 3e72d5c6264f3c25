"""Triage (one row per stay, no timestamp) and serial ED vital signs.

Vitals start from a healthy baseline shifted by the scenario (a septic patient is febrile,
tachycardic, hypotensive). A diagnosis confirmed by vital signs (respiratory failure by hypoxaemia,
septic shock by hypotension) shifts them further and is placed as direct triage evidence; one only
suggested by them is placed as indirect evidence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from admitdx.synthetic.condition import Condition
from admitdx.synthetic.patient import Patient, minutes
from admitdx.synthetic.scenarios import Scenario

if TYPE_CHECKING:
    from admitdx.synthetic.encounter import Stay

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
PAIN = ("0", "0", "2", "4", "5", "6", "7", "8", "10", "unable", "UA")


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
    p.sink.add(
        "ed.triage",
        (
            p.subject_id,
            stay.stay_id,
            f"{vitals['temp']:.1f}",
            round(vitals["hr"]),
            round(vitals["rr"]),
            round(vitals["o2"]),
            round(vitals["sbp"]),
            round(vitals["dbp"]),
            rng.choice(PAIN),
            acuity,
            stay.cc,
        ),
    )
    for c in confirmed:
        c.place("triage", "ed.triage", stay.stay_id, stay.intime, stay.t0, line, direct=True)
    for c in hinted:
        c.place("triage", "ed.triage", stay.stay_id, stay.intime, stay.t0, line, direct=False)
    serial = _serial_vitals(
        p, stay, vitals, "Atrial Fibrillation" if p.has("afib") or primary.key == "afib" else None
    )
    return acuity, arrival, serial


def _serial_vitals(p: Patient, stay: Stay, start: dict[str, float], rhythm: str | None) -> bool:
    """Readings every 1-3 h from arrival to departure, drifting back toward baseline with treatment."""
    rng = p.rng
    t = stay.intime + minutes(rng.uniform(8, 35))
    n = 0
    while t < stay.outtime and n < 8:
        frac = 0.5**n
        v = {
            name: _clamp(name, BASELINE[name][0] + (start[name] - BASELINE[name][0]) * frac + rng.gauss(0, 2))
            for name in start
        }
        p.sink.add(
            "ed.vitalsign",
            (
                p.subject_id,
                stay.stay_id,
                t,
                f"{v['temp']:.1f}" if rng.random() < 0.6 else None,
                round(v["hr"]),
                round(v["rr"]),
                round(v["o2"]),
                round(v["sbp"]),
                round(v["dbp"]),
                rhythm if rhythm and rng.random() < 0.5 else None,
                rng.choice(("0", "0", "3", "5", None)),
            ),
        )
        t += minutes(rng.uniform(50, 180))
        n += 1
    return n > 0 and stay.intime + minutes(35) <= stay.t0
