"""Tolerant parsing of model output, and reading diagnosis lists back from parsed answers."""

from __future__ import annotations

import pytest

from admitdx.contracts import PredictionItem
from admitdx.llm.parse import parse_output
from admitdx.tasks.answers import ListShape, diagnosis_schema, read_diagnoses


@pytest.mark.parametrize(
    ("text", "value", "how"),
    [
        ('{"diagnoses": ["Sepsis"]}', {"diagnoses": ["Sepsis"]}, "json"),
        ('  ["A", "B"] \n', ["A", "B"], "json"),
        (
            'Here you go:\n```json\n{"diagnoses": ["Pneumonia"]}\n```\nHope it helps',
            {"diagnoses": ["Pneumonia"]},
            "code fence",
        ),
        ("```\n[1, 2]\n```", [1, 2], "code fence"),
        (
            'The answer is {"diagnoses": ["AKI", "Hyperkalemia"]} as requested.',
            {"diagnoses": ["AKI", "Hyperkalemia"]},
            "json in prose",
        ),
        # a bracket pair that is not JSON comes first; the parser moves on to the next span
        ('Note {x} then {"diagnoses": ["CHF"]}', {"diagnoses": ["CHF"]}, "json in prose"),
        ('braces in strings {"diagnoses": ["a } b"]}', {"diagnoses": ["a } b"]}, "json in prose"),
        (
            "Diagnoses:\n1. Atrial fibrillation\n2) Heart failure\n- COPD exacerbation\n• Hypokalemia\n* AKI",
            ["Atrial fibrillation", "Heart failure", "COPD exacerbation", "Hypokalemia", "AKI"],
            "list lines",
        ),
    ],
)
def test_parse_output_finds_the_answer(text: str, value: object, how: str) -> None:
    parsed = parse_output(text)
    assert parsed.ok
    assert parsed.value == value
    assert parsed.how == how


@pytest.mark.parametrize(
    "text", ["", "   ", "The patient probably has something.", '{"diagnoses": ["unterminated']
)
def test_parse_output_reports_failure_instead_of_guessing(text: str) -> None:
    parsed = parse_output(text)
    assert not parsed.ok
    assert parsed.value is None
    assert parsed.error


def test_read_diagnoses_dedupes_cuts_and_keeps_grades() -> None:
    value = {
        "reasoning": "troponin high",
        "diagnoses": [
            {"diagnosis": "NSTEMI", "status": "confirmed", "confidence": 0.9},
            {"diagnosis": "nstemi", "status": "suspected", "confidence": 0.2},  # duplicate, dropped
            {"diagnosis": "Heart failure", "status": "maybe", "confidence": 1.7},  # bad status/conf -> None
            "  ",  # empty, dropped
            "Hypertension",
            "Diabetes",
        ],
    }
    read = read_diagnoses(value, max_items=3)
    assert read.error is None
    assert read.reasoning == "troponin high"
    assert read.items == [
        PredictionItem("NSTEMI", status="confirmed", confidence=0.9),
        PredictionItem("Heart failure"),
        PredictionItem("Hypertension"),
    ]


def test_read_diagnoses_without_a_list_is_an_error() -> None:
    assert read_diagnoses({"answer": "sepsis"}, 5).error == "the answer has no list of diagnoses"
    assert read_diagnoses(["Sepsis"], 5).items == [PredictionItem("Sepsis")]


def test_schema_puts_reasoning_before_the_list() -> None:
    schema = diagnosis_schema(ListShape(min_items=1, max_items=4), reasoning=True, graded=True)
    assert list(schema["properties"]) == ["reasoning", "diagnoses"]
    assert schema["required"] == ["reasoning", "diagnoses"]
    diagnoses = schema["properties"]["diagnoses"]
    assert (diagnoses["minItems"], diagnoses["maxItems"]) == (1, 4)
    assert diagnoses["items"]["properties"]["status"]["enum"] == ["confirmed", "suspected"]
    plain = diagnosis_schema(ListShape())
    assert plain["properties"]["diagnoses"]["items"] == {"type": "string", "minLength": 3, "maxLength": 70}
