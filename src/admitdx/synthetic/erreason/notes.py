"""The note texts of the synthetic release (layouts and their sources in :mod:`.facts`).

The current ED provider note comes in three layouts — Epic's (MDM, ED Course, Final Disposition
with Clinical Impression and ED Disposition), admitdx's earlier one ("Assessment and Plan", then
"Final Disposition and ED Course") and one with no cut heading at all — and its triage vitals in
four (one line, Epic's "(!)" flags, one per line, a flowsheet table). In every layout the text
after the cut holds the diagnosis title and the disposition, as a real note's does, so a cut
that lets any of it through fails the leakage tests.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Vitals:
    temperature: float  # °F
    heartrate: int
    resprate: int
    o2sat: int
    sbp: int
    dbp: int

    @property
    def celsius(self) -> float:
        return round((self.temperature - 32) * 5 / 9, 1)


def _flag(abnormal: bool) -> str:
    return "(!) " if abnormal else ""


def triage_vitals(v: Vitals, layout: str) -> str:
    if layout == "one_line":
        return (
            f"Triage Vitals: T {v.temperature:.1f} F, HR {v.heartrate}, RR {v.resprate}, "
            f"BP {v.sbp}/{v.dbp}, SpO2 {v.o2sat}%"
        )
    temp = f"{v.celsius:.1f} °C ({v.temperature:.1f} °F)"
    bp, hr = f"{_flag(v.sbp >= 140 or v.sbp < 90)}{v.sbp}/{v.dbp}", f"{_flag(v.heartrate > 100)}{v.heartrate}"
    spo2 = f"{_flag(v.o2sat < 94)}{v.o2sat} %"
    if layout == "epic_flags":
        return (
            f"ED Triage Vitals\nBP: {bp} | Pulse: {hr} | Temp: {temp} (Oral) | Resp: {v.resprate} "
            f"| SpO2: {spo2}"
        )
    if layout == "per_line":
        return (
            f"Triage Vital Signs:\nTemp: {v.temperature:.1f} °F\nPulse: {hr}\nResp: {v.resprate}\n"
            f"BP: {bp}\nSpO2: {spo2}"
        )
    if layout == "flowsheet":
        return (
            "ED Triage Vitals\n"
            "                 | BP | Pulse | Resp | Temp | SpO2\n"
            f"03/14/23 1402 | {bp} | {hr} | {v.resprate} | {temp} | {spo2}\n"
            f"03/14/23 1530 | {v.sbp - 6}/{v.dbp - 4} | {v.heartrate - 5} | {v.resprate} | — | {v.o2sat} %"
        )
    raise ValueError(f"unknown vitals layout {layout!r}")


@dataclass(frozen=True)
class NoteFacts:
    one_liner: str
    complaint: str
    vitals: str
    exam: str
    assessment: str  # names the diagnosis
    course: str
    diagnosis_title: str
    disposition: str
    mdm_heading: str


def provider_note(f: NoteFacts, layout: str) -> str:
    history = (
        f"Chief Complaint: {f.complaint}\n"
        f"History of Present Illness: {f.one_liner} Symptoms began earlier today. "
        "Was discharged from clinic last month without changes.\n\n"
        f"{f.vitals}\n\n"
        f"Physical Exam: {f.exam}\n"
    )
    if layout == "epic":
        return (
            "ED Provider Note\n"
            f"{history}\n"
            f"{f.mdm_heading}\n{f.assessment} Differential considered. Plan discussed with patient.\n\n"
            f"ED Course:\n{f.course} Reassessed; plan to {f.disposition.lower()}.\n\n"
            "Final Disposition\n"
            f"Clinical Impression:\n1. {f.diagnosis_title}\n"
            f"ED Disposition: {f.disposition}\n"
        )
    if layout == "legacy":
        return (
            "ED Provider Note\n"
            f"{history}"
            f"Assessment and Plan: {f.assessment}\n"
            f"Final Disposition and ED Course: {f.course} Disposition: {f.disposition}.\n"
        )
    if layout == "no_heading":
        return f"ED Provider Note\n{history}{f.assessment} {f.course} {f.diagnosis_title}. {f.disposition}.\n"
    raise ValueError(f"unknown note layout {layout!r}")


def discharge_summary(*, age: int, sex: str, history: list[str], reason: str) -> str:
    pmh = ", ".join(history) if history else "no chronic conditions"
    return (
        "Discharge Summary\n"
        f"Patient: {age} year old {sex}.\n"
        f"Past Medical History: {pmh}.\n"
        f"Reason for Admission: {reason}.\n"
        "Hospital Course: treated and improved.\n"
        "Discharge Medications: continue home medications.\n"
    )


def short_note(kind: str, history: list[str]) -> str:
    focus = history[0] if history else "routine follow-up"
    return f"{kind}: patient seen for {focus}; stable."
