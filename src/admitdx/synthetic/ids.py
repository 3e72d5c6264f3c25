"""Identifiers in MIMIC's ranges, unique without coordination between worker processes.

Each patient index owns a fixed block of slots per identifier kind; an affine bijection modulo
10**7 scatters slot numbers over the 8-digit range so that identifiers look random (as MIMIC's do)
yet never collide. ``MAX_PATIENTS`` is the largest cohort whose blocks fit the range.
"""

from __future__ import annotations

_SPAN = 10_000_000
_MULT = 6_037_259  # coprime with 10**7 (odd, not a multiple of 5): the map below is a bijection

# slots per patient
HADM_SLOTS = 8
STAY_SLOTS = 24  # ED stays and transfers share the 3xxxxxxx range (an ED stay_id is its transfer_id)
ECG_SLOTS = 8
MAX_PATIENTS = _SPAN // STAY_SLOTS  # 416,666


def _scatter(slot: int, offset: int) -> int:
    """Slot → 7-digit number; a different offset per identifier kind keeps kinds from looking alike."""
    return (slot * _MULT + offset) % _SPAN


def subject_id(index: int) -> int:
    return 10_000_000 + _scatter(index, 2_718_281)


def hadm_id(index: int, k: int) -> int:
    return 20_000_000 + _scatter(index * HADM_SLOTS + k, 1_414_213)


def stay_id(index: int, k: int) -> int:
    """ED stays and hospital transfers: slot ``k`` of the patient's 24."""
    return 30_000_000 + _scatter(index * STAY_SLOTS + k, 3_141_592)


def ecg_study_id(index: int, k: int) -> int:
    return 40_000_000 + _scatter(index * ECG_SLOTS + k, 1_732_050)


def echo_study_id(index: int, k: int) -> int:
    return 90_000_000 + _scatter(index * ECG_SLOTS + k, 2_236_067)


def row_id(index: int, k: int, per_patient: int = 2_000) -> int:
    """Sequential ids (labevent_id, specimen_id) in a per-patient block."""
    return index * per_patient + k + 1
