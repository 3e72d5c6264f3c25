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


def discharge_text(
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
) -> str:
    """A discharge summary with MIMIC's header lines and sections, in their order."""
    pmh_text = "\n".join(f"- {p}" for p in pmh) if pmh else "None"
    meds_in = "\n".join(f"{i}. {m}" for i, m in enumerate(admission_meds, 1)) or "None"
    meds_out = "\n".join(f"{i}. {m}" for i, m in enumerate(discharge_meds, 1)) or "None"
    return (
        " \nName:  ___                     Unit No:   ___\n \n"
        "Admission Date:  ___              Discharge Date:   ___\n \n"
        f"Date of Birth:  ___             Sex:   {sex}\n \n"
        f"Service: {service}\n \n"
        "Allergies: \nNo Known Allergies / Adverse Drug Reactions\n \n"
        "Attending: ___.\n \n"
        f"Chief Complaint:\n{chief_complaint}\n \n"
        "Major Surgical or Invasive Procedure:\nNone\n \n"
        f"History of Present Illness:\n{hpi}\n \n"
        f"Past Medical History:\n{pmh_text}\n \n"
        "Social History:\n___\n"
        "Family History:\nNon-contributory.\n \n"
        "Physical Exam:\nADMISSION PHYSICAL EXAM:\nGENERAL: NAD, AOx3\nHEENT: MMM\nCV: RRR\n"
        "LUNGS: CTAB\nABD: soft, NT/ND\n \n"
        f"Pertinent Results:\n{results}\n \n"
        "Brief Hospital Course:\n" + "\n".join(course) + "\n \n"
        f"Medications on Admission:\n{meds_in}\n \n"
        f"Discharge Medications:\n{meds_out}\n \n"
        f"Discharge Disposition:\n{disposition}\n \n"
        "Discharge Diagnosis:\nPrimary:\n"
        + "\n".join(primary)
        + "\n\nSecondary:\n"
        + ("\n".join(secondary) or "None")
        + "\n \n"
        "Discharge Condition:\nMental Status: Clear and coherent.\n"
        "Level of Consciousness: Alert and interactive.\nActivity Status: Ambulatory - Independent.\n \n"
        "Discharge Instructions:\nDear ___,\nYou were admitted to ___. Please take your medications as "
        "prescribed.\n \n"
        "Followup Instructions:\n___\n"
    )
