"""The note texts of the synthetic release. The current ED provider note has the headings the
ER-Reason tasks cut at: the triage line (vitals), "Assessment and Plan" (the planning and
diagnosis inputs stop before it) and "Final Disposition and ED Course" (the disposition input
stops before it)."""

from __future__ import annotations


def triage_line(t: float, hr: int, rr: int, spo2: int, sbp: int, dbp: int) -> str:
    return f"Triage Vitals: T {t:.1f} F, HR {hr}, RR {rr}, BP {sbp}/{dbp}, SpO2 {spo2}%"


def provider_note(
    *, one_liner: str, complaint: str, vitals: str, exam: str, assessment: str, course: str, disposition: str
) -> str:
    return (
        "ED Provider Note\n"
        f"Chief Complaint: {complaint}\n"
        f"History of Present Illness: {one_liner} Symptoms began earlier today.\n"
        f"{vitals}\n"
        f"Physical Exam: {exam}\n"
        f"Assessment and Plan: {assessment}\n"
        f"Final Disposition and ED Course: {course} Disposition: {disposition}.\n"
    )


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
