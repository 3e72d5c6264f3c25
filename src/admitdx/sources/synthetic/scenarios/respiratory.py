"""Respiratory presentations: pneumonia, obstructive lung disease, embolism, pneumothorax."""

from __future__ import annotations

from admitdx.sources.synthetic.scenarios.base import Dx, Scenario

CXR = "CHEST (PA AND LAT)"
DYSPNEA = ("R0602", "78605")
HYPOXIA = Dx("resp_failure", "J9601", "51881", "vitals", p=0.2)

SCENARIOS = (
    Scenario(
        "pneumonia", "respiratory", 6.0,
        ("Cough", "Fever, Cough", "SOB", "Dyspnea", "PNA", "cough/fever", "Shortness of breath", "Fever"),
        Dx("pneumonia", "J189", "486", "radiology", exam=CXR,
           named="Right lower lobe pneumonia (organism unspecified)",
           implied="Right lower lobe consolidation with air bronchograms",
           labs=(("wbc", 12.5, 22.0),)),
        secondary=(HYPOXIA,),
        symptoms=(("R0902", "79902"), ("R509", "78060")), esi=(0.05, 0.55, 0.4), ambulance=0.5,
        vitals=(("temp", 2.2), ("hr", 18), ("rr", 5), ("o2", -5)), labs=("lactate",), exam=CXR,
        ed_meds=("CefTRIAXone", "Azithromycin"), los_days=(2, 6),
    ),
    Scenario(
        "copd_exacerbation", "respiratory", 3.0,
        ("SOB", "COPD exacerbation", "Dyspnea", "Wheezing", "COPD", "sob, cough"),
        Dx("copd_exacerbation", "J441", "49121", "labs", labs=(("pco2", 52, 78), ("ph", 7.22, 7.33))),
        secondary=(HYPOXIA,),
        symptoms=(DYSPNEA,), esi=(0.08, 0.65, 0.27), ambulance=0.55, vitals=(("rr", 8), ("o2", -7), ("hr", 14)),
        labs=("pco2", "ph", "bnp"), exam=CXR, ed_meds=("Ipratropium-Albuterol Neb", "MethylPREDNISolone"),
        los_days=(2, 5),
    ),
    Scenario(
        "asthma_exacerbation", "respiratory", 1.2,
        ("Asthma", "SOB", "Wheezing", "asthma exacerbation", "Dyspnea"),
        Dx("asthma_exacerbation", "J45901", "49392", "vitals"),
        symptoms=(DYSPNEA,), esi=(0.05, 0.6, 0.35), ambulance=0.35, vitals=(("rr", 9), ("o2", -6), ("hr", 20)),
        exam=CXR, ecg=("Sinus tachycardia",), ed_meds=("Ipratropium-Albuterol Neb", "PredniSONE"),
        los_days=(1, 3), admit_p=0.35,
    ),
    Scenario(
        "pulmonary_embolism", "respiratory", 2.0,
        ("SOB", "Dyspnea", "Chest pain", "Pleuritic CP", "PE", "SOB, leg swelling", "syncope, sob"),
        Dx("pe", "I2699", "41519", "radiology", exam="CTA CHEST W&W/O C&RECONS",
           named="Acute pulmonary embolism in the right lower lobe segmental arteries, without acute cor pulmonale",
           implied="Filling defects in the right lower lobe segmental and subsegmental pulmonary arteries",
           labs=(("ddimer", 1500, 9000),)),
        secondary=(Dx("dvt", "I82401", "45340", "radiology", exam="UNILAT LOWER EXT VEINS RIGHT",
                      named="Acute embolism and thrombosis of the deep veins of the right lower extremity",
                      implied="Noncompressible right popliteal vein with intraluminal thrombus", p=0.25),),
        symptoms=(DYSPNEA,), esi=(0.1, 0.75, 0.15), ambulance=0.45, vitals=(("hr", 28), ("o2", -5), ("rr", 5)),
        labs=("ddimer", "trop", "bnp", "pt", "inr"), ecg=("Sinus tachycardia", "Nonspecific T wave abnormality"),
        ed_meds=("Heparin",), los_days=(2, 5),
    ),
    Scenario(
        "pneumothorax", "respiratory", 0.6,
        ("Chest pain", "SOB", "Sudden SOB", "Pleuritic CP"),
        Dx("pneumothorax", "J9311", "51281", "radiology", exam=CXR,
           named="Large left primary spontaneous pneumothorax",
           implied="Visible visceral pleural line with absent lung markings peripherally at the left apex"),
        symptoms=(DYSPNEA,), esi=(0.15, 0.75, 0.1), ambulance=0.4, vitals=(("o2", -4), ("hr", 15)),
        ecg=("Sinus tachycardia",), unit="surgery", los_days=(2, 5),
    ),
    Scenario(
        "influenza", "respiratory", 1.0,
        ("Fever", "Flu like symptoms", "Cough, Fever", "body aches, fever", "ILI"),
        Dx("influenza", "J111", "4871"),
        secondary=(HYPOXIA,),
        symptoms=(("R509", "78060"), ("R0989", "78609")), esi=(0.02, 0.45, 0.53), ambulance=0.3,
        vitals=(("temp", 2.5), ("hr", 20)), exam=CXR, ed_meds=("Oseltamivir", "Acetaminophen"),
        los_days=(1, 4), admit_p=0.3,
    ),
    Scenario(
        "aspiration_pneumonia", "respiratory", 0.8,
        ("AMS, Cough", "Hypoxia", "SOB", "Fever, s/p vomiting"),
        Dx("aspiration_pneumonia", "J690", "5070", "radiology", exam="CHEST (PORTABLE AP)",
           named="Right lower lobe pneumonitis due to inhalation of food and vomit",
           implied="New dependent right lower lobe opacity in a patient with witnessed emesis"),
        secondary=(HYPOXIA,),
        esi=(0.1, 0.7, 0.2), ambulance=0.8, vitals=(("temp", 1.5), ("o2", -6), ("rr", 6)), labs=("lactate",),
        ed_meds=("Ampicillin-Sulbactam",), los_days=(3, 8),
    ),
)
