"""Digestive presentations: bleeding, pancreaticobiliary disease, surgical abdomen."""

from __future__ import annotations

from admitdx.sources.synthetic.scenarios.base import Dx, Scenario

CT_ABD = "CT ABD & PELVIS WITH CONTRAST"
ABD_PAIN = ("R109", "78900")
BLOOD_LOSS = Dx("blood_loss_anemia", "D62", "2851", "labs", labs=(("hgb", 5.8, 8.4),), p=0.35)

SCENARIOS = (
    Scenario(
        "upper_gi_bleed", "digestive", 3.0,
        ("Hematemesis", "Coffee ground emesis", "GI bleed", "Melena", "BRBPR", "Black stools", "GIB"),
        Dx("gi_bleed", "K922", "5789", "labs", labs=(("hgb", 5.9, 8.9), ("bun", 35, 80))),
        secondary=(BLOOD_LOSS,),
        esi=(0.12, 0.7, 0.18), ambulance=0.5, vitals=(("hr", 22), ("sbp", -18)), labs=("pt", "inr", "ptt"),
        exam="CHEST (PORTABLE AP)", ed_meds=("Pantoprazole Sodium",), los_days=(2, 5),
    ),
    Scenario(
        "diverticular_bleed", "digestive", 1.2,
        ("BRBPR", "Rectal bleeding", "blood in stool", "Lower GI bleed"),
        Dx("diverticular_bleed", "K5731", "56212", "radiology", exam="CTA ABD W&W/O C & RECONS",
           named="Active bleeding from diverticulosis of the large intestine, without perforation or abscess",
           implied="Active contrast extravasation into the lumen of the sigmoid colon among numerous diverticula",
           labs=(("hgb", 6.5, 9.5),)),
        secondary=(BLOOD_LOSS,),
        esi=(0.08, 0.65, 0.27), ambulance=0.4, vitals=(("hr", 15), ("sbp", -10)), labs=("pt", "inr"),
        los_days=(2, 5),
    ),
    Scenario(
        "pancreatitis", "digestive", 2.0,
        ("Abd pain", "Epigastric pain", "Abd pain, N/V", "epigastric pain radiating to back", "ABD PAIN"),
        Dx("pancreatitis", "K8590", "5770", "labs", labs=(("lipase", 420, 6000),)),
        symptoms=(("R1013", "78906"), ("R112", "78701")), esi=(0.03, 0.55, 0.42), ambulance=0.3,
        vitals=(("hr", 16),), labs=("lipase", "ast", "alt", "alp", "tbili", "lactate"), exam=CT_ABD,
        ed_meds=("HYDROmorphone (Dilaudid)", "Ondansetron"), los_days=(2, 6),
    ),
    Scenario(
        "cholecystitis", "digestive", 1.5,
        ("RUQ pain", "Abd pain", "Abdominal pain, N/V", "RUQ abd pain", "abd pain, fever"),
        Dx("cholecystitis", "K8000", "57400", "radiology", exam="LIVER OR GALLBLADDER US (SINGLE ORGAN)",
           named="Calculus of gallbladder with acute cholecystitis, without obstruction",
           implied="Distended gallbladder with shadowing stones, wall thickening and pericholecystic fluid"),
        symptoms=(ABD_PAIN,), esi=(0.02, 0.5, 0.48), ambulance=0.2, vitals=(("temp", 1.3), ("hr", 12)),
        labs=("lipase", "ast", "alt", "alp", "tbili"), exam="LIVER OR GALLBLADDER US (SINGLE ORGAN)",
        ecg=(), ed_meds=("Piperacillin-Tazobactam", "Morphine"), unit="surgery", los_days=(2, 4),
    ),
    Scenario(
        "appendicitis", "digestive", 1.5,
        ("RLQ pain", "Abd pain", "RLQ abdominal pain", "abd pain, fever", "Appendicitis, Transfer"),
        Dx("appendicitis", "K3580", "5409", "radiology", exam=CT_ABD, named="Acute appendicitis without perforation",
           implied="Dilated 12 mm fluid-filled appendix with periappendiceal fat stranding"),
        symptoms=(("R1031", "78903"),), esi=(0.0, 0.45, 0.55), ambulance=0.1, vitals=(("temp", 1.0),),
        labs=("lipase",), exam=CT_ABD, ecg=(), ed_meds=("Piperacillin-Tazobactam", "Morphine"), unit="surgery",
        los_days=(1, 3),
    ),
    Scenario(
        "small_bowel_obstruction", "digestive", 1.5,
        ("Abd pain, N/V", "Abd distension", "vomiting", "SBO", "Abd pain"),
        Dx("sbo", "K56609", "5609", "radiology", exam=CT_ABD,
           named="Intestinal obstruction of the small bowel, unspecified as to partial versus complete obstruction",
           implied="Dilated fluid-filled small bowel loops to 3.8 cm with a transition point in the right lower quadrant"),
        symptoms=(ABD_PAIN, ("R112", "78701")), esi=(0.03, 0.6, 0.37), ambulance=0.35,
        labs=("lactate", "lipase"), exam=CT_ABD, ed_meds=("Ondansetron", "Morphine"), unit="surgery",
        los_days=(3, 7),
    ),
    Scenario(
        "diverticulitis", "digestive", 1.5,
        ("LLQ pain", "Abd pain", "LLQ abd pain, fever", "diverticulitis"),
        Dx("diverticulitis", "K5732", "56211", "radiology", exam=CT_ABD,
           named="Diverticulitis of the sigmoid (large intestine) without perforation, abscess or bleeding",
           implied="Sigmoid wall thickening with pericolonic fat stranding centered on an inflamed diverticulum"),
        symptoms=(("R1032", "78904"),), esi=(0.0, 0.4, 0.6), ambulance=0.15, vitals=(("temp", 1.2),),
        labs=("lipase",), exam=CT_ABD, ecg=(), ed_meds=("Ciprofloxacin", "MetRONIDAZOLE (Flagyl)"),
        los_days=(2, 4), admit_p=0.5,
    ),
    Scenario(
        "gastroenteritis", "digestive", 1.0,
        ("N/V/D", "Vomiting", "Diarrhea", "N/V", "abd pain, diarrhea"),
        Dx("gastroenteritis", "K5289", "5589"),
        secondary=(Dx("dehydration", "E860", "27651", "labs", labs=(("bun", 30, 55),), p=0.5),),
        symptoms=(("R197", "78791"), ("R112", "78701")), esi=(0.0, 0.3, 0.7), ambulance=0.2,
        vitals=(("hr", 14), ("sbp", -8)), ecg=(), ed_meds=("Ondansetron",), los_days=(1, 3), admit_p=0.25,
    ),
)
