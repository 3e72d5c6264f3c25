"""Injuries: fractures and chest trauma, with their external-cause codes."""

from __future__ import annotations

from admitdx.sources.synthetic.scenarios.base import Dx, Scenario

FALL = (("W1830XA", "E8889"), ("Y92009", "E8490"))
MVC = (("V4352XA", "E8120"),)

SCENARIOS = (
    Scenario(
        "hip_fracture", "injury", 2.5,
        ("s/p Fall", "R hip pain", "Fall, Hip pain", "FALL", "Hip fx, Transfer", "s/p mechanical fall"),
        Dx("hip_fracture", "S72001A", "82000", "radiology", exam="HIP UNILAT MIN 2 VIEWS RIGHT",
           named="Acute closed fracture of the neck of the right femur",
           implied="Impacted, mildly displaced subcapital lucency of the right femoral neck with shortening"),
        external=FALL, esi=(0.02, 0.6, 0.38), ambulance=0.85, labs=("pt", "inr"), exam="CHEST (PORTABLE AP)",
        ed_meds=("Morphine Sulfat 4mg/1mL 1mL VIAL",), unit="surgery", los_days=(3, 7),
    ),
    Scenario(
        "distal_radius_fracture", "injury", 1.0,
        ("R wrist pain", "s/p Fall, wrist injury", "Wrist deformity", "FOOSH"),
        Dx("radius_fracture", "S52501A", "81342", "radiology", exam="WRIST(3 + VIEWS) RIGHT",
           named="Closed fracture of the lower end of the right radius",
           implied="Dorsally angulated transverse lucency of the distal right radial metaphysis"),
        external=FALL, esi=(0.0, 0.15, 0.85), ambulance=0.3, exam="WRIST(3 + VIEWS) RIGHT", ecg=(),
        ed_meds=("Acetaminophen",), unit="surgery", los_days=(1, 2), admit_p=0.15,
    ),
    Scenario(
        "rib_fractures", "injury", 1.2,
        ("s/p Fall", "Chest wall pain", "MVC", "L chest pain after fall", "s/p MVC"),
        Dx("rib_fractures", "S2242XA", "80704", "radiology", exam="CT CHEST W/O CONTRAST",
           named="Multiple closed fractures of the left ribs, left side; no displaced fracture fragments",
           implied="Acute nondisplaced fractures of the left fourth through seventh ribs laterally"),
        secondary=(Dx("traumatic_pneumothorax", "S270XXA", "8600", "radiology", exam="CT CHEST W/O CONTRAST",
                      named="Small left traumatic pneumothorax",
                      implied="Thin anterior left apical pleural air collection", p=0.2),),
        external=MVC, esi=(0.1, 0.7, 0.2), ambulance=0.8, exam="CT CHEST W/O CONTRAST",
        ed_meds=("Fentanyl Citrate",), unit="trauma", los_days=(2, 5),
    ),
    Scenario(
        "vertebral_fracture", "injury", 0.8,
        ("Back pain", "s/p Fall, back pain", "Low back pain", "Fall"),
        Dx("vertebral_fracture", "S32010A", "8054", "radiology", exam="CT L-SPINE W/O CONTRAST",
           named="Acute wedge compression fracture of the first lumbar vertebra, closed",
           implied="30% anterior height loss of L1 with buckling of the anterior cortex, no retropulsion"),
        symptoms=(("M5450", "7242"),), external=FALL, esi=(0.0, 0.45, 0.55), ambulance=0.6,
        exam="CT L-SPINE W/O CONTRAST", ecg=(), ed_meds=("Oxycodone",), unit="surgery", los_days=(2, 4),
    ),
    Scenario(
        "ankle_fracture", "injury", 0.8,
        ("R ankle injury", "Ankle pain", "twisted ankle", "R ankle deformity"),
        Dx("ankle_fracture", "S82891A", "8248", "radiology", exam="ANKLE (AP, MORTISE & LAT) RIGHT",
           named="Closed fracture of the right lower leg at the ankle",
           implied="Oblique fracture of the distal right fibula with widening of the medial clear space"),
        external=FALL, esi=(0.0, 0.1, 0.9), ambulance=0.2, exam="ANKLE (AP, MORTISE & LAT) RIGHT", ecg=(),
        unit="surgery", los_days=(1, 3), admit_p=0.2,
    ),
    Scenario(
        "concussion", "injury", 0.8,
        ("Head injury", "s/p Fall, head strike", "Headache after fall", "MVC, head injury"),
        Dx("concussion", "S060X0A", "8500"),
        symptoms=(("R519", "7840"),), external=FALL, esi=(0.02, 0.5, 0.48), ambulance=0.6,
        exam="CT HEAD W/O CONTRAST", ecg=(), los_days=(1, 2), admit_p=0.25,
    ),
)
