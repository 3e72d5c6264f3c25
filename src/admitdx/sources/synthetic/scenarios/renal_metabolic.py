"""Renal, urinary and metabolic presentations: kidney injury, electrolytes, diabetes emergencies."""

from __future__ import annotations

from admitdx.sources.synthetic.scenarios.base import Dx, Scenario

UA = ("ua_leuk", "ua_nitrite", "ua_wbc")
WEAKNESS = ("R531", "7802")
AMS = ("R4182", "78097")

SCENARIOS = (
    Scenario(
        "aki", "renal", 3.0,
        ("Abnormal labs", "Weakness", "Decreased PO intake", "elevated creatinine", "AKI", "Abnl labs"),
        Dx("aki", "N179", "5849", "labs", labs=(("cr", 2.3, 6.5), ("bun", 40, 110))),
        secondary=(Dx("hyperkalemia", "E875", "2767", "labs", labs=(("k", 5.8, 7.1),), p=0.3),
                   Dx("dehydration", "E860", "27651", p=0.25)),
        symptoms=(("R531", "78079"),), esi=(0.02, 0.45, 0.53), ambulance=0.4, vitals=(("sbp", -10),),
        labs=("mg", "ca") + UA, exam="RENAL U.S.", ecg=("Sinus rhythm", "Borderline ECG"), los_days=(2, 5),
    ),
    Scenario(
        "dka", "metabolic", 1.5,
        ("Hyperglycemia", "DKA", "High blood sugar", "N/V, hyperglycemia", "elevated BS", "DKA, Transfer"),
        Dx("dka", "E1010", "25011", "labs", labs=(("glu", 380, 780), ("hco3", 5, 13), ("ag", 24, 36))),
        symptoms=(("R112", "78701"),), esi=(0.15, 0.75, 0.1), ambulance=0.4, vitals=(("hr", 25), ("rr", 8)),
        labs=("ph", "pco2", "lactate", "ua_ketone"), ecg=("Sinus tachycardia",),
        ed_meds=("Insulin Human Regular",), unit="icu", los_days=(2, 4),
    ),
    Scenario(
        "hyperkalemia", "metabolic", 1.0,
        ("Abnormal labs", "Hyperkalemia", "high potassium", "weakness", "missed HD"),
        Dx("hyperkalemia", "E875", "2767", "labs", labs=(("k", 6.2, 7.8),)),
        esi=(0.1, 0.75, 0.15), ambulance=0.45, labs=("mg", "ca"),
        ecg=("Sinus rhythm", "Peaked T waves", "Abnormal ECG"),
        ed_meds=("Calcium Gluconate", "Insulin Human Regular"), los_days=(1, 3),
    ),
    Scenario(
        "hyponatremia", "metabolic", 1.5,
        ("Abnormal labs", "Confusion", "Hyponatremia", "low sodium", "Weakness", "Fall"),
        Dx("hyponatremia", "E871", "2761", "labs", labs=(("na", 112, 127),)),
        secondary=(Dx("metabolic_encephalopathy", "G9341", "34831", p=0.2),),
        symptoms=(AMS,), esi=(0.03, 0.55, 0.42), ambulance=0.5, labs=("mg", "ca"), exam="CT HEAD W/O CONTRAST",
        los_days=(2, 5),
    ),
    Scenario(
        "hypoglycemia", "metabolic", 0.8,
        ("Hypoglycemia", "Low blood sugar", "AMS", "FSBS 30", "unresponsive, hypoglycemia"),
        Dx("hypoglycemia", "E162", "2512", "labs", labs=(("glu", 22, 54),)),
        esi=(0.15, 0.7, 0.15), ambulance=0.8, ed_meds=("Dextrose 50%",), los_days=(1, 2), admit_p=0.4,
    ),
    Scenario(
        "uti", "renal", 3.0,
        ("Dysuria", "Confusion", "UTI", "Fever", "Urinary frequency", "AMS, UTI", "Weakness"),
        Dx("uti", "N390", "5990", "labs", labs=(("ua_wbc", 45, 182), ("wbc", 11.5, 18.5))),
        secondary=(Dx("metabolic_encephalopathy", "G9341", "34831", p=0.15),),
        symptoms=(AMS, ("R509", "78060")), esi=(0.02, 0.45, 0.53), ambulance=0.5, vitals=(("temp", 1.2),),
        labs=UA, ed_meds=("CefTRIAXone", "Nitrofurantoin Monohy (MacroBID)"), los_days=(2, 4),
    ),
    Scenario(
        "pyelonephritis", "renal", 1.2,
        ("Flank pain", "Fever, flank pain", "Dysuria, fever", "R flank pain"),
        Dx("pyelonephritis", "N10", "59010", "radiology", exam="CT ABD & PELVIS WITH CONTRAST",
           named="Findings consistent with acute pyelonephritis of the right kidney",
           implied="Striated nephrogram of the right kidney with perinephric fat stranding",
           labs=(("ua_wbc", 60, 182),)),
        symptoms=(("R509", "78060"),), esi=(0.02, 0.5, 0.48), ambulance=0.2, vitals=(("temp", 2.3), ("hr", 18)),
        labs=UA + ("lactate",), exam="CT ABD & PELVIS WITH CONTRAST", ecg=(), ed_meds=("CefTRIAXone",),
        los_days=(2, 4),
    ),
    Scenario(
        "ureteral_stone", "renal", 1.0,
        ("Flank pain", "L flank pain", "Kidney stone", "abd pain, hematuria", "renal colic"),
        Dx("ureteral_stone", "N201", "5921", "radiology", exam="CT ABD & PELVIS W/O CONTRAST",
           named="5 mm obstructing calculus of the left ureter",
           implied="5 mm stone at the left ureterovesical junction with moderate hydronephrosis"),
        symptoms=(("R3129", "59970"),), esi=(0.0, 0.45, 0.55), ambulance=0.15, labs=UA,
        exam="CT ABD & PELVIS W/O CONTRAST", ecg=(), ed_meds=("Ketorolac", "Tamsulosin"), unit="surgery",
        los_days=(1, 2), admit_p=0.25,
    ),
)
