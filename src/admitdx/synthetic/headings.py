"""Section headings of a synthetic discharge summary, each drawn from real spellings and variants.

MIMIC-IV-Note's template writes its top-level headings one way ("Physical Exam:", "Brief Hospital
Course:"; schema notes §4.4), but what sits inside a section is typed by clinicians: the admission
and discharge exams under "Physical Exam:" come as "ADMISSION PHYSICAL EXAM:", "PE on discharge:",
"*DISCHARGE EXAM*", "DISCHARGE PHYSICAL EXAMINATION:" and many more. A generator that writes one
spelling lets a section detector pass that cuts only that spelling (issue 21: 15 of 30 real
discharge-exam spellings were not cut). So every heading is drawn from a list that varies along the
axes a detector must normalise — case, colon or none, asterisks and rules, "exam"/"examination"/
"PE", "on"/"at"/"upon" discharge — and the discharge-exam list holds more than 30 spellings.

Top-level headings vary only in case and in the alternatives the template itself has ("Hospital
Course:", "Discharge Diagnoses:", "Followup"/"Follow-up Instructions:") and always keep their
colon: a reader that could not find "Brief Hospital Course" at all would be wrong on the real
release too, but the colon is part of the template. "Past Medical History:" keeps its colon and its
words, as EarlyDx's prior-history reader matches exactly that (any case).
"""

from __future__ import annotations


def _cases(*spellings: str) -> tuple[str, ...]:
    """Each spelling as written and in upper case (the two cases the template's headings come in)."""
    return tuple(dict.fromkeys(v for s in spellings for v in (s, s.upper())))


#: Top-level headings by section name (CliniBench's names, ``synthetic.notes``).
TOP: dict[str, tuple[str, ...]] = {
    "chief_complaint": _cases("Chief Complaint:"),
    "major_surgical_or_invasive_procedure": _cases("Major Surgical or Invasive Procedure:"),
    "history_of_present_illness": _cases("History of Present Illness:"),
    "past_medical_history": _cases("Past Medical History:"),
    "social_history": _cases("Social History:"),
    "family_history": _cases("Family History:"),
    "physical_exam": _cases("Physical Exam:", "Physical Examination:"),
    "pertinent_results": _cases("Pertinent Results:"),
    "brief_hospital_course": _cases("Brief Hospital Course:", "Hospital Course:"),
    "medications_on_admission": _cases("Medications on Admission:"),
    "discharge_medications": _cases("Discharge Medications:"),
    "discharge_disposition": _cases("Discharge Disposition:"),
    "facility": _cases("Facility:"),
    "discharge_diagnosis": _cases("Discharge Diagnosis:", "Discharge Diagnoses:"),
    "discharge_condition": _cases("Discharge Condition:"),
    "discharge_instructions": _cases("Discharge Instructions:"),
    "followup_instructions": _cases("Followup Instructions:", "Follow-up Instructions:"),
}

#: Sub-headings that open the exam at admission inside "Physical Exam:" ("" = none: the exam
#: simply starts, as in many real notes).
ADMISSION_EXAM: tuple[str, ...] = (
    "ADMISSION PHYSICAL EXAM:",
    "ADMISSION PHYSICAL EXAMINATION:",
    "Admission Physical Exam:",
    "Admission exam:",
    "ADMISSION EXAM:",
    "*ADMISSION EXAM*",
    "PE on admission:",
    "Physical exam on admission:",
    "PHYSICAL EXAM ON ADMISSION:",
    "ON ADMISSION:",
    "Admission:",
    "ADMISSION PE:",
    "====ADMISSION EXAM====",
    "",
)

#: Sub-headings that open the exam at discharge inside "Physical Exam:" (or after the admission
#: exam): the issue's examples and their variants along every axis named above.
DISCHARGE_EXAM: tuple[str, ...] = (
    "DISCHARGE PHYSICAL EXAM:",
    "Discharge Physical Exam:",
    "discharge physical exam:",
    "DISCHARGE PHYSICAL EXAM",
    "DISCHARGE PHYSICAL EXAMINATION:",
    "Discharge Physical Examination:",
    "DISCHARGE EXAM:",
    "Discharge Exam:",
    "Discharge exam:",
    "DISCHARGE EXAM",
    "*DISCHARGE EXAM*",
    "**DISCHARGE EXAM**",
    "***DISCHARGE PHYSICAL EXAM***",
    "====DISCHARGE EXAM====",
    "PE on discharge:",
    "PE at discharge:",
    "PE ON DISCHARGE:",
    "Discharge PE:",
    "DISCHARGE PE:",
    "Physical exam on discharge:",
    "Physical Exam on Discharge:",
    "PHYSICAL EXAM ON DISCHARGE:",
    "PHYSICAL EXAMINATION ON DISCHARGE:",
    "Physical examination at discharge:",
    "PHYSICAL EXAM AT DISCHARGE:",
    "Exam on discharge:",
    "EXAM AT DISCHARGE:",
    "Exam upon discharge:",
    "Examination on discharge:",
    "ON DISCHARGE:",
    "On discharge:",
    "At discharge:",
    "AT DISCHARGE:",
    "Upon discharge:",
    "DISCHARGE:",
    "Discharge:",
    "DISCHARGE VITALS/EXAM:",
    "Day of discharge exam:",
)

#: Sub-headings inside "Pertinent Results:" (leakage either way: the section is cut whole).
RESULTS: dict[str, tuple[str, ...]] = {
    "admission": ("ADMISSION LABS:", "Admission labs:", "LABS ON ADMISSION:", "ADMISSION LABS"),
    "discharge": ("DISCHARGE LABS:", "Discharge labs:", "LABS ON DISCHARGE:", "DISCHARGE LABS"),
    "imaging": ("IMAGING:", "Imaging:", "MICRO/IMAGING:", "STUDIES:"),
}

#: "Past Surgical History" inside "Past Medical History:" (EarlyDx's reader ends PMH there).
SURGICAL: tuple[str, ...] = ("PAST SURGICAL HISTORY:", "Past Surgical History:", "PSH:")
