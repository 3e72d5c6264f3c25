"""Note texts in MIMIC-IV-Note's layout: discharge summaries and radiology reports.

Discharge summaries use the real section headers in their real order (schema doc §4.4: each header
on its own line, PHI replaced by ``___``), each drawn from real spellings and variants
(``headings``), with admission-time prose as long as CliniBench's (``note_prose``): a parser
written for MIMIC must cope with them as with the real release. Radiology reports follow
the EXAMINATION / INDICATION / TECHNIQUE / COMPARISON / FINDINGS / IMPRESSION protocol.
"""

from __future__ import annotations

import random

from admitdx.synthetic import headings
from admitdx.synthetic import note_prose as prose

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
    rng: random.Random,
    *,
    sex: str,
    age: int,
    service: str,
    chief_complaint: str,
    pmh: list[str],
    history: list[str],
    results: str,
    course: list[str],
    admission_meds: list[str],
    discharge_meds: list[str],
    disposition: str,
    primary: list[str],
    secondary: list[str],
) -> tuple[str, dict[str, str], dict[str, str]]:
    """A discharge summary in MIMIC-IV-Note's template with headings drawn from real spellings
    (``headings``); returns the text, the body of each section by name (the
    ``_truth/discharge_sections`` record) and the heading each section was written under.

    ``pmh`` are the patient's chronic conditions as the HPI and Past Medical History write them;
    ``history`` the further coded conditions the Past Medical History lists (CliniBench labels the
    admission text supports). The leakage sections name the discharge diagnoses (``primary`` and
    ``secondary``); the admission-time ones do not, beyond what the history says anyway.
    """
    main = primary[0] if primary else "Observation"
    named = "; ".join([*primary, *secondary]) or main
    sexword = "male" if sex == "M" else "female"
    surgeries = prose.surgical_history(rng)
    pmh_lines = [f"- {p}" for p in [*pmh, *history]] or ["None"]
    if surgeries:
        pmh_lines += ["", rng.choice(headings.SURGICAL), *(f"- {s}" for s in surgeries)]
    meds_in = "\n".join(f"{i}. {m}" for i, m in enumerate(admission_meds, 1)) or "None"
    meds_out = "\n".join(f"{i}. {m}" for i, m in enumerate(discharge_meds, 1)) or "None"
    arrival = prose.vitals(rng)
    body = {
        "allergies": rng.choice(
            ("No Known Allergies / Adverse Drug Reactions", "Penicillins", "Sulfa (Sulfonamide Antibiotics)")
        ),
        "chief_complaint": chief_complaint,
        "major_surgical_or_invasive_procedure": rng.choice(prose.PROCEDURES),
        "history_of_present_illness": prose.hpi(
            rng, age, sexword, pmh, chief_complaint, arrival, more=bool(history)
        ),
        "past_medical_history": "\n".join(pmh_lines),
        "social_history": prose.social_history(rng),
        "family_history": prose.family_history(rng),
        "physical_exam_admission": prose.admission_exam(rng, arrival),
        "physical_exam_discharge": prose.discharge_exam(rng, main),
        "pertinent_results": (
            f"{rng.choice(headings.RESULTS['admission'])}\n{results}\n \n"
            f"{rng.choice(headings.RESULTS['imaging'])}\nIMPRESSION: findings consistent with {main}.\n \n"
            f"{rng.choice(headings.RESULTS['discharge'])}\n___ 06:45AM BLOOD WBC-{rng.uniform(5, 11):.1f}"
        ),
        "brief_hospital_course": "\n".join([*course, f"Discharge diagnoses were {named}."]),
        "medications_on_admission": f"The Preadmission Medication list is accurate and complete.\n{meds_in}",
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
    used = {name: rng.choice(spellings) for name, spellings in headings.TOP.items()}
    used["physical_exam_admission"] = rng.choice(headings.ADMISSION_EXAM)
    used["physical_exam_discharge"] = rng.choice(headings.DISCHARGE_EXAM)

    def section(name: str) -> str:
        return f"{used[name]}\n{body[name]}\n \n"

    exam_in = f"{used['physical_exam_admission']}\n" if used["physical_exam_admission"] else ""
    text = (
        " \nName:  ___                     Unit No:   ___\n \n"
        "Admission Date:  ___              Discharge Date:   ___\n \n"
        f"Date of Birth:  ___             Sex:   {sex}\n \n"
        f"Service: {service}\n \n"
        f"Allergies: \n{body['allergies']}\n \n"
        "Attending: ___.\n \n"
        + section("chief_complaint")
        + section("major_surgical_or_invasive_procedure")
        + section("history_of_present_illness")
        + section("past_medical_history")
        + section("social_history")
        + section("family_history")
        + f"{used['physical_exam']}\n{exam_in}{body['physical_exam_admission']}\n \n"
        f"{used['physical_exam_discharge']}\n{body['physical_exam_discharge']}\n \n"
        + "".join(
            section(name)
            for name in (
                "pertinent_results",
                "brief_hospital_course",
                "medications_on_admission",
                "discharge_medications",
                "discharge_disposition",
                "facility",
                "discharge_diagnosis",
                "discharge_condition",
                "discharge_instructions",
            )
        )
        + f"{used['followup_instructions']}\n{body['followup_instructions']}\n"
    )
    return text, body, used
