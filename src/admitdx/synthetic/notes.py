"""Note texts in MIMIC-IV-Note's layout: discharge summaries and radiology reports.

Discharge summaries use the real section headers in their real order (schema doc §4.4: each header
on its own line, PHI replaced by ``___``), so parsers written for MIMIC (MIMIC-CDM's regexes, the
EarlyDx builder's "Past Medical History" reader) work on them unchanged. Radiology reports follow
the EXAMINATION / INDICATION / TECHNIQUE / COMPARISON / FINDINGS / IMPRESSION protocol.
"""

from __future__ import annotations

# exam name → (exam_code, CPT code) for radiology_detail
EXAMS: dict[str, tuple[str, str]] = {
    "CHEST (PA AND LAT)": ("CXR12", "71046"),
    "CHEST (PORTABLE AP)": ("CXR1", "71045"),
    "CT HEAD W/O CONTRAST": ("CTHD", "70450"),
    "MR HEAD W/O CONTRAST": ("MRHD", "70551"),
    "CTA CHEST W&W/O C&RECONS": ("CTAC", "71275"),
    "CT CHEST W/O CONTRAST": ("CTCH", "71250"),
    "CT ABD & PELVIS WITH CONTRAST": ("CTAP", "74177"),
    "CT ABD & PELVIS W/O CONTRAST": ("CTAPN", "74176"),
    "CTA ABD W&W/O C & RECONS": ("CTAA", "74175"),
    "LIVER OR GALLBLADDER US (SINGLE ORGAN)": ("USGB", "76705"),
    "RENAL U.S.": ("USRE", "76770"),
    "UNILAT LOWER EXT VEINS RIGHT": ("USLE", "93971"),
    "HIP UNILAT MIN 2 VIEWS RIGHT": ("XHIP", "73502"),
    "WRIST(3 + VIEWS) RIGHT": ("XWR", "73110"),
    "ANKLE (AP, MORTISE & LAT) RIGHT": ("XANK", "73610"),
    "CT L-SPINE W/O CONTRAST": ("CTLS", "72131"),
}

NORMAL_FINDINGS = {
    "CHEST": (
        "The lungs are clear without consolidation, effusion or pneumothorax. The cardiomediastinal "
        "silhouette is within normal limits.",
        "No acute cardiopulmonary process.",
    ),
    "HEAD": (
        "There is no evidence of hemorrhage, edema, mass effect or acute large territorial infarction. "
        "The ventricles and sulci are age-appropriate.",
        "No acute intracranial process.",
    ),
    "ABD": (
        "The liver, gallbladder, pancreas, spleen and kidneys are unremarkable. No free fluid or free air.",
        "No acute abdominopelvic process.",
    ),
    "US": (
        "Normal compressibility, flow and augmentation of the imaged veins. No sonographic abnormality.",
        "No acute sonographic abnormality.",
    ),
    "BONE": (
        "No acute fracture or dislocation. Joint spaces are preserved. Soft tissues are unremarkable.",
        "No acute fracture.",
    ),
}


def _region(exam: str) -> str:
    if "CHEST" in exam:
        return "CHEST"
    if "HEAD" in exam:
        return "HEAD"
    if "ABD" in exam or "RENAL" in exam:
        return "ABD"
    if "US" in exam or "VEINS" in exam:
        return "US"
    return "BONE"


def radiology_text(exam: str, indication: str, finding: str | None, impression: str | None) -> str:
    """A radiology report; ``finding``/``impression`` None gives the region's normal report."""
    normal_findings, normal_impression = NORMAL_FINDINGS[_region(exam)]
    return (
        f"EXAMINATION:  {exam}\n\n"
        f"INDICATION:  ___ with {indication.lower()}, evaluate.\n\n"
        f"TECHNIQUE:  {exam.title()} per protocol.\n\n"
        "COMPARISON:  None.\n\n"
        f"FINDINGS: \n\n{finding or normal_findings}\n\n"
        f"IMPRESSION: \n\n{impression or normal_impression}\n"
    )


#: Sections of a synthetic discharge summary that were learnt during the stay or decided at
#: discharge (CliniBench §3.1 leakage); each names the discharge diagnoses, so a leak is detectable.
LEAKAGE_SECTIONS = (
    "physical_exam_discharge",
    "pertinent_results",
    "brief_hospital_course",
    "discharge_medications",
    "discharge_disposition",
    "facility",
    "discharge_diagnosis",
    "discharge_condition",
    "discharge_instructions",
    "followup_instructions",
)


def discharge_sections(
    *,
    sex: str,
    service: str,
    chief_complaint: str,
    hpi: str,
    pmh: list[str],
    results: str,
    course: list[str],
    admission_meds: list[str],
    discharge_meds: list[str],
    disposition: str,
    primary: list[str],
    secondary: list[str],
) -> tuple[str, dict[str, str]]:
    """A discharge summary with MIMIC's header lines and sections, in their order, and the body of
    each section by name (the ``_truth/discharge_sections`` record).

    Every section CliniBench names is present. The leakage sections name the discharge diagnoses
    (``primary`` and ``secondary``); the admission-time ones do not (beyond what the chief
    complaint, history and medications say anyway).
    """
    main = primary[0] if primary else "Observation"
    named = "; ".join([*primary, *secondary]) or main
    pmh_text = "\n".join(f"- {p}" for p in pmh) if pmh else "None"
    meds_in = "\n".join(f"{i}. {m}" for i, m in enumerate(admission_meds, 1)) or "None"
    meds_out = "\n".join(f"{i}. {m}" for i, m in enumerate(discharge_meds, 1)) or "None"
    body = {
        "allergies": "No Known Allergies / Adverse Drug Reactions",
        "chief_complaint": chief_complaint,
        "major_surgical_or_invasive_procedure": "None",
        "history_of_present_illness": hpi,
        "past_medical_history": pmh_text,
        "social_history": "___",
        "family_history": "Non-contributory.",
        "physical_exam_admission": "GENERAL: NAD, AOx3\nHEENT: MMM\nCV: RRR\nLUNGS: CTAB\nABD: soft, NT/ND",
        "physical_exam_discharge": (
            f"GENERAL: comfortable, findings of {main} resolving\nCV: RRR\nLUNGS: CTAB"
        ),
        "pertinent_results": f"{results}\nIMPRESSION: findings consistent with {main}.",
        "brief_hospital_course": "\n".join([*course, f"Discharge diagnoses were {named}."]),
        "medications_on_admission": meds_in,
        "discharge_medications": f"{meds_out}\n(regimen adjusted for {main})",
        "discharge_disposition": disposition,
        "facility": f"___ (aftercare for {main})",
        "discharge_diagnosis": "Primary:\n"
        + "\n".join(primary)
        + "\n\nSecondary:\n"
        + ("\n".join(secondary) or "None"),
        "discharge_condition": (
            "Mental Status: Clear and coherent.\nLevel of Consciousness: Alert and interactive.\n"
            f"Activity Status: Ambulatory - Independent.\nStable after treatment of {main}."
        ),
        "discharge_instructions": (
            f"Dear ___,\nYou were admitted to ___ for {main}. Please take your medications as prescribed."
        ),
        "followup_instructions": f"___\nFollow up with your doctor about {named}.",
    }
    text = (
        " \nName:  ___                     Unit No:   ___\n \n"
        "Admission Date:  ___              Discharge Date:   ___\n \n"
        f"Date of Birth:  ___             Sex:   {sex}\n \n"
        f"Service: {service}\n \n"
        f"Allergies: \n{body['allergies']}\n \n"
        "Attending: ___.\n \n"
        f"Chief Complaint:\n{body['chief_complaint']}\n \n"
        f"Major Surgical or Invasive Procedure:\n{body['major_surgical_or_invasive_procedure']}\n \n"
        f"History of Present Illness:\n{body['history_of_present_illness']}\n \n"
        f"Past Medical History:\n{body['past_medical_history']}\n \n"
        f"Social History:\n{body['social_history']}\n"
        f"Family History:\n{body['family_history']}\n \n"
        f"Physical Exam:\nADMISSION PHYSICAL EXAM:\n{body['physical_exam_admission']}\n \n"
        f"DISCHARGE PHYSICAL EXAM:\n{body['physical_exam_discharge']}\n \n"
        f"Pertinent Results:\n{body['pertinent_results']}\n \n"
        f"Brief Hospital Course:\n{body['brief_hospital_course']}\n \n"
        f"Medications on Admission:\n{body['medications_on_admission']}\n \n"
        f"Discharge Medications:\n{body['discharge_medications']}\n \n"
        f"Discharge Disposition:\n{body['discharge_disposition']}\n \n"
        f"Facility:\n{body['facility']}\n \n"
        f"Discharge Diagnosis:\n{body['discharge_diagnosis']}\n \n"
        f"Discharge Condition:\n{body['discharge_condition']}\n \n"
        f"Discharge Instructions:\n{body['discharge_instructions']}\n \n"
        f"Followup Instructions:\n{body['followup_instructions']}\n"
    )
    return text, body
