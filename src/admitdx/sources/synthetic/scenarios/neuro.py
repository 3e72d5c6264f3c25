"""Neurological presentations: stroke, intracranial haemorrhage, seizure, encephalopathy."""

from __future__ import annotations

from admitdx.sources.synthetic.scenarios.base import Dx, Scenario

CT_HEAD = "CT HEAD W/O CONTRAST"
FALL = (("W19XXXA", "E8889"),)

SCENARIOS = (
    Scenario(
        "ischemic_stroke", "neuro", 3.0,
        ("Facial droop", "R sided weakness", "Code stroke", "Slurred speech", "L arm weakness", "CVA",
         "Aphasia", "STROKE"),
        Dx("stroke", "I639", "43491", "radiology", exam="MR HEAD W/O CONTRAST",
           named="Acute left MCA territory cerebral infarction",
           implied="Restricted diffusion in the left insula and frontal operculum with corresponding FLAIR signal"),
        secondary=(Dx("hemiplegia", "G8191", "34290", p=0.25),),
        symptoms=(("R4701", "78459"), ("R29810", "7813")), esi=(0.3, 0.65, 0.05), ambulance=0.75,
        vitals=(("sbp", 30),), labs=("pt", "inr", "ptt", "trop"), exam=CT_HEAD,
        ed_meds=("Alteplase",), unit="neurology", los_days=(3, 8),
    ),
    Scenario(
        "ich", "neuro", 1.2,
        ("Headache", "Unresponsive", "AMS", "R sided weakness", "ICH, Transfer", "Code stroke"),
        Dx("ich", "I619", "431", "radiology", exam=CT_HEAD,
           named="Acute nontraumatic intracerebral hemorrhage in the left basal ganglia",
           implied="Acute 3.1 cm hyperdense collection in the left basal ganglia with surrounding edema"),
        esi=(0.7, 0.3, 0.0), ambulance=0.85, vitals=(("sbp", 55), ("dbp", 20)), labs=("pt", "inr", "ptt"),
        ed_meds=("Nicardipine", "Levetiracetam"), unit="icu", los_days=(4, 12),
    ),
    Scenario(
        "sah", "neuro", 0.6,
        ("Worst headache of life", "Headache", "SAH, Transfer", "HA, N/V"),
        Dx("sah", "I609", "430", "radiology", exam=CT_HEAD,
           named="Diffuse nontraumatic subarachnoid hemorrhage in the basal cisterns",
           implied="Hyperdensity filling the suprasellar, interpeduncular and prepontine cisterns"),
        symptoms=(("R519", "7840"),), esi=(0.55, 0.45, 0.0), ambulance=0.6, vitals=(("sbp", 35),),
        labs=("pt", "inr", "ptt"), ed_meds=("Nicardipine",), unit="icu", los_days=(6, 14),
    ),
    Scenario(
        "tia", "neuro", 1.5,
        ("Transient numbness", "L arm numbness", "Slurred speech, resolved", "TIA", "word finding difficulty"),
        Dx("tia", "G459", "4359"),
        esi=(0.02, 0.7, 0.28), ambulance=0.5, labs=("pt", "inr"), exam=CT_HEAD, unit="neurology",
        los_days=(1, 2), admit_p=0.7,
    ),
    Scenario(
        "seizure", "neuro", 2.0,
        ("Seizure", "sz", "S/P SEIZURE", "Seizure, Fall", "Witnessed seizure"),
        Dx("epilepsy", "G40909", "34590", "labs", labs=(("lactate", 3.2, 8.5),)),
        symptoms=(("R569", "78039"),), esi=(0.1, 0.65, 0.25), ambulance=0.8, vitals=(("hr", 18),),
        labs=("lactate", "ck", "ethanol"), exam=CT_HEAD, ed_meds=("Lorazepam", "Levetiracetam"),
        unit="neurology", los_days=(1, 3), admit_p=0.6,
    ),
    Scenario(
        "traumatic_sdh", "neuro", 1.2,
        ("s/p Fall", "Fall, Head strike", "Head injury", "FALL", "s/p fall on thinners"),
        Dx("sdh", "S065X0A", "85221", "radiology", exam=CT_HEAD,
           named="Acute left traumatic subdural hemorrhage without loss of consciousness",
           implied="Acute 8 mm left holohemispheric crescentic extra-axial collection with 3 mm midline shift"),
        symptoms=(("R519", "7840"),), external=FALL, esi=(0.3, 0.65, 0.05), ambulance=0.8,
        labs=("pt", "inr", "ptt"), ed_meds=("Levetiracetam",), unit="trauma", los_days=(2, 7),
    ),
    Scenario(
        "hepatic_encephalopathy", "neuro", 1.2,
        ("Confusion", "AMS", "Altered mental status", "confused, cirrhosis", "Lethargy"),
        Dx("hepatic_encephalopathy", "K7682", "5722", "labs", labs=(("ammonia", 90, 260),)),
        secondary=(Dx("cirrhosis", "K7469", "5715", p=0.6),),
        symptoms=(("R4182", "78097"),), esi=(0.05, 0.7, 0.25), ambulance=0.6,
        labs=("ammonia", "ast", "alt", "tbili", "alb", "inr", "pt"), exam="CHEST (PORTABLE AP)",
        ed_meds=("Lactulose",), los_days=(3, 7),
    ),
    Scenario(
        "migraine", "neuro", 0.5,
        ("Headache", "HA", "Migraine", "headache, photophobia"),
        Dx("migraine", "G43909", "34690"),
        symptoms=(("R519", "7840"),), esi=(0.0, 0.3, 0.7), ambulance=0.1, exam=CT_HEAD, ecg=(),
        ed_meds=("Metoclopramide", "Ketorolac"), los_days=(1, 2), admit_p=0.15,
    ),
)
