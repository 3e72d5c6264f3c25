"""Toxicology, haematology and presentations the ED codes only as symptoms."""

from __future__ import annotations

from admitdx.sources.synthetic.scenarios.base import Dx, Scenario

SCENARIOS = (
    Scenario(
        "alcohol_withdrawal", "toxicology", 1.5,
        ("ETOH withdrawal", "Alcohol withdrawal", "tremors", "ETOH", "Withdrawal, Seizure"),
        Dx("alcohol_withdrawal", "F10239", "29181", "vitals"),
        esi=(0.03, 0.55, 0.42), ambulance=0.5, vitals=(("hr", 25), ("sbp", 20)), labs=("ethanol", "mg", "ast", "alt"),
        ecg=("Sinus tachycardia",), ed_meds=("Diazepam", "Thiamine", "FoLIC Acid"), los_days=(2, 5),
    ),
    Scenario(
        "opioid_overdose", "toxicology", 0.8,
        ("Overdose", "Unresponsive", "OD", "found down", "Narcan given"),
        Dx("heroin_overdose", "T401X1A", "96501", "vitals"),
        external=(("Y929", "E8500"),), esi=(0.45, 0.5, 0.05), ambulance=0.95, vitals=(("rr", -7), ("o2", -8)),
        labs=("ethanol", "ph", "pco2"), ed_meds=("Naloxone",), unit="icu", los_days=(1, 3), admit_p=0.45,
    ),
    Scenario(
        "symptomatic_anemia", "hematology", 1.0,
        ("Weakness", "Abnormal labs", "Fatigue", "Low Hgb", "SOB, fatigue"),
        Dx("anemia", "D649", "2859", "labs", labs=(("hgb", 5.4, 7.4), ("hct", 17.0, 23.0))),
        symptoms=(("R531", "78079"),), esi=(0.02, 0.45, 0.53), ambulance=0.3, vitals=(("hr", 14),),
        labs=("pt", "inr"), los_days=(1, 3),
    ),
    Scenario(
        "chest_pain_unspecified", "symptom", 3.0,
        ("Chest pain", "CP", "Chest pain, Transfer", "L sided chest pain", "chest discomfort"),
        Dx("chest_pain", "R079", "78650"),
        esi=(0.0, 0.6, 0.4), ambulance=0.35, labs=("trop", "ddimer"), ecg=("Sinus rhythm", "Normal ECG"),
        ed_meds=("Aspirin 81mg TAB",), unit="cardiology", los_days=(0.5, 1.5),
    ),
    Scenario(
        "weakness_unspecified", "symptom", 1.5,
        ("Weakness", "Generalized weakness", "Failure to thrive", "FTT", "Fall, weakness"),
        Dx("weakness", "R531", "78079"),
        esi=(0.0, 0.3, 0.7), ambulance=0.6, labs=("ua_leuk", "ua_nitrite", "ua_wbc"), exam="CT HEAD W/O CONTRAST",
        los_days=(2, 5),
    ),
    Scenario(
        "suicidal_ideation", "psychiatric", 0.8,
        ("SI", "Suicidal ideation", "Psych eval", "Depression, SI", "Overdose, SI"),
        Dx("suicidal_ideation", "R45851", "V6284"),
        secondary=(Dx("depression", "F329", "311", p=0.6),),
        esi=(0.0, 0.65, 0.35), ambulance=0.4, labs=("ethanol",), ecg=("Sinus rhythm",), exam="",
        los_days=(1, 4), admit_p=0.3,
    ),
)
