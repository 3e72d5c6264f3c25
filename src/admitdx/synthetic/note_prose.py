"""The admission-time prose of a synthetic discharge summary: HPI, social and family history, the exams.

CliniBench's admission notes (the admission-time sections of MIMIC-IV discharge summaries) average
625–690 BioMedBERT tokens (table 1); before issue 21 the generator's averaged about 110, with one
family history, social history, procedure and admission exam in 1,260 notes. The pieces here give
each section what real ones hold — an HPI that tells onset, course, negatives and the ED work-up, a
review of systems, social history with tobacco, alcohol and drugs, a family history, a head-to-toe
exam with vitals — in sentences whose number is drawn, so lengths spread as real ones do.
``HPI_SENTENCES`` is the knob that sets the mean (``facts.py`` checks it).

None of this prose names a discharge diagnosis: the answer must stay in the leakage sections (and
in the past history, for what the patient already had).
"""

from __future__ import annotations

import random

#: Number of detail sentences in an HPI (uniform); with the rest of the note this puts the mean
#: admission part, headings included, at about 660 tokens as admitdx counts them (the paper's
#: 625–690 BioMedBERT tokens; ``clinibench.stats.tokens``).
HPI_SENTENCES = (7, 31)

#: How the patient came (with the onset count, two notes of one patient with the same complaint in
#: the same year rarely open with the same sentence, which is the one-liner reference).
ARRIVALS = ("from home", "via EMS", "from rehab", "from clinic", "with family", "from a nursing home")
ONSETS = ("this morning", "last night", "2 days ago", "3 days ago", "about a week ago", "___ days ago")
DETAILS = (
    "Symptoms came on gradually and have been getting worse since then.",
    "The patient reports that symptoms began abruptly while at rest.",
    "He/She denies any recent travel, sick contacts or new medications.",
    "Symptoms are worse with exertion and partially relieved by rest.",
    "The patient was in his/her usual state of health until ___ when symptoms started.",
    "Family members noted that the patient seemed more tired than usual over the past few days.",
    "The patient tried over-the-counter medications at home without relief.",
    "Of note, the patient was seen by the PCP ___ weeks ago for a routine visit and was doing well.",
    "There has been decreased oral intake for the past several days with mild nausea.",
    "The patient denies fevers or chills at home but endorses some night sweats.",
    "No recent falls, head strike or loss of consciousness were reported.",
    "The patient reports adherence to all home medications, per the daughter who manages them.",
    "Per EMS, the patient was found sitting upright, alert and speaking in full sentences.",
    "The patient has had similar but milder episodes in the past that resolved on their own.",
    "Review of outside records shows a recent visit to an urgent care clinic ___.",
    "The patient denies any changes in bowel or bladder habits.",
    "The patient reports poor sleep over the last week because of the symptoms.",
    "There is no history of similar presentations requiring hospitalization.",
    "The patient lives alone and called the ambulance when symptoms did not improve.",
    "The patient was given acetaminophen and IV fluids in the ED with some improvement.",
    "He/She reports mild lightheadedness on standing but no syncope.",
    "The patient has not had any recent hospitalizations or antibiotic courses.",
    "Appetite has been reduced and the patient estimates a weight loss of a few pounds.",
    "The patient notes that a similar episode last year was managed as an outpatient.",
    "There were no recent medication changes according to the pharmacy records.",
    "He/She has been using more of the rescue inhaler than usual this week.",
    "The daughter reports intermittent confusion in the evenings over the last two days.",
    "Per the patient, symptoms woke him/her from sleep and did not improve with position changes.",
    "The patient was able to walk into the ED without assistance.",
    "Vaccinations are reported to be up to date, including influenza this season.",
    "The patient denies any recent dental work, injections or procedures.",
    "He/She reports mild dyspnea on exertion after climbing one flight of stairs.",
    "The patient drinks little water and has been outside in the heat for several days.",
    "At baseline the patient is independent and walks without an assistive device.",
    "On further questioning, the patient endorses some palpitations earlier in the week.",
    "The patient was recently started on a new blood pressure medication by the PCP.",
)
ED_COURSE = (
    "In the ED, initial vitals were: T {t} HR {hr} BP {sbp}/{dbp} RR {rr} SpO2 {o2}% RA.",
    "In the ED, initial VS were {t} {hr} {sbp}/{dbp} {rr} {o2}% on RA.",
    "On arrival to the ED, vitals: T {t}, HR {hr}, BP {sbp}/{dbp}, RR {rr}, O2 sat {o2}% RA.",
)
ROS = (
    "ROS: Positive per HPI. Denies headache, vision changes, rhinorrhea, congestion, sore throat, "
    "cough, shortness of breath, chest pain, abdominal pain, nausea, vomiting, diarrhea, "
    "constipation, BRBPR, melena, hematochezia, dysuria, hematuria. All other systems reviewed and "
    "negative.",
    "REVIEW OF SYSTEMS: 10-point review of systems negative except as noted in the HPI.",
    "ROS: (+) per HPI\n(-) fevers, chills, weight loss, headache, chest pain, palpitations, cough, "
    "abdominal pain, dysuria, rash, focal weakness or numbness.",
)
SOCIAL = (
    "Lives with {who} in ___. {work}\nTobacco: {tob}\nEtOH: {etoh}\nIllicits: {drugs}",
    "___\nTobacco: {tob}. Alcohol: {etoh}. Drugs: {drugs}. Lives with {who}. {work}",
)
WHO = ("his/her wife", "her husband", "a daughter", "a roommate", "family", "alone")
WORK = ("Retired ___.", "Works as a ___.", "Independent in ADLs and IADLs.", "Uses a walker at home.")
TOBACCO = ("never", "former, quit ___ years ago, 20 pack-years", "current, 1 ppd", "denies")
ETOH = ("social", "denies", "1-2 drinks per week", "2-3 beers daily", "none")
DRUGS = ("denies", "none", "marijuana occasionally", "denies IVDU")
FAMILY = (
    "Mother with {a}; father with {b}. No family history of early MI or sudden cardiac death.",
    "Father died of {b} in his ___. Mother alive with {a}. Siblings healthy.",
    "Noncontributory. Mother - {a}. Father - {b}.",
    "FH: {a} in mother, {b} in father. No known history of cancer.",
)
FAMILY_DX = ("hypertension", "diabetes", "CAD", "stroke", "breast cancer", "colon cancer", "dementia", "COPD")
SURGERIES = (
    "s/p appendectomy ___",
    "s/p cholecystectomy",
    "s/p right total knee replacement",
    "s/p hysterectomy",
    "s/p inguinal hernia repair",
    "s/p cataract surgery",
    "s/p tonsillectomy as a child",
)
PROCEDURES = (
    "None",
    "None",
    "None",
    "Central venous line placement",
    "Paracentesis",
    "Upper endoscopy",
    "Cardiac catheterization",
    "Lumbar puncture",
    "Thoracentesis",
    "PICC line placement",
)


def hpi(
    rng: random.Random, age: int, sex: str, pmh: list[str], cc: str, vitals: dict[str, str], *, more: bool
) -> str:
    """History of present illness: who, what since when, detail sentences, ED vitals, review of systems.

    ``pmh`` are the chronic conditions the opening sentence names; ``more``: the Past Medical
    History lists further conditions, so the HPI must not say there are none."""
    if pmh:
        history = ", ".join(pmh)
    else:
        history = "the past medical history below" if more else "no significant past medical history"
    lines = [
        f"Mr./Ms. ___ is a {age} year old {sex} with {history} who presents with {cc.lower()} that "
        f"started {rng.randint(2, 72)} {rng.choice(('hours', 'days'))} ago, arriving {rng.choice(ARRIVALS)}.",
        f"Symptoms were first noticed {rng.choice(ONSETS)}.",
    ]
    lines += rng.sample(DETAILS, min(len(DETAILS), rng.randint(*HPI_SENTENCES)))
    lines.append(rng.choice(ED_COURSE).format(**vitals))
    lines.append(
        "Labs were drawn and imaging was obtained, and the patient was admitted for further management."
    )
    return " ".join(lines) + "\n \n" + rng.choice(ROS)


def social_history(rng: random.Random) -> str:
    return rng.choice(SOCIAL).format(
        who=rng.choice(WHO),
        work=rng.choice(WORK),
        tob=rng.choice(TOBACCO),
        etoh=rng.choice(ETOH),
        drugs=rng.choice(DRUGS),
    )


def family_history(rng: random.Random) -> str:
    a, b = rng.sample(FAMILY_DX, 2)
    return rng.choice(FAMILY).format(a=a, b=b)


def surgical_history(rng: random.Random) -> list[str]:
    return rng.sample(SURGERIES, rng.randint(0, 2))


def vitals(rng: random.Random) -> dict[str, str]:
    return {
        "t": f"{rng.gauss(98.4, 0.7):.1f}",
        "hr": f"{rng.gauss(88, 14):.0f}",
        "sbp": f"{rng.gauss(132, 18):.0f}",
        "dbp": f"{rng.gauss(76, 10):.0f}",
        "rr": f"{rng.gauss(18, 2):.0f}",
        "o2": f"{min(100, rng.gauss(96, 2)):.0f}",
    }


def admission_exam(rng: random.Random, v: dict[str, str]) -> str:
    """A head-to-toe exam at admission, with the arrival vitals."""
    return "\n".join(
        (
            f"VS: T {v['t']} BP {v['sbp']}/{v['dbp']} HR {v['hr']} RR {v['rr']} O2 sat {v['o2']}% RA",
            "GENERAL: " + rng.choice(("NAD, AOx3", "Alert, oriented, mildly uncomfortable", "Ill-appearing")),
            "HEENT: Sclera anicteric, MMM, oropharynx clear, EOMI, PERRL",
            "NECK: Supple, JVP not elevated, no LAD",
            "CV: " + rng.choice(("RRR, normal S1 + S2, no murmurs, rubs, gallops", "Irregularly irregular")),
            "LUNGS: "
            + rng.choice(("Clear to auscultation bilaterally", "Crackles at the bases bilaterally")),
            "ABD: Soft, "
            + rng.choice(("non-tender", "tender in the RLQ", "mildly distended"))
            + ", bowel sounds present",
            "EXT: Warm, well perfused, 2+ pulses, "
            + rng.choice(("no edema", "1+ pitting edema to the shins")),
            "SKIN: No rashes or lesions",
            "NEURO: CNII-XII intact, strength 5/5 throughout, sensation grossly intact, gait deferred",
        )
    )


def discharge_exam(rng: random.Random, main: str) -> str:
    """The exam on the day of discharge; it names the diagnosis, as a real one often does."""
    v = vitals(rng)
    return "\n".join(
        (
            f"VS: {v['t']} {v['sbp']}/{v['dbp']} {v['hr']} {v['rr']} {v['o2']}RA",
            f"GENERAL: Comfortable, findings of {main} resolving",
            "CV: RRR, no murmurs",
            "LUNGS: CTAB, no wheezes",
            "EXT: No edema, discharge day ambulating in the hallway",
        )
    )
