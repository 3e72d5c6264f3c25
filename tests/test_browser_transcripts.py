"""The encounter browser shows transcripts (issue 34): per encounter and system, the prompt as sent
(collapsed), the raw output, the reasoning, tokens and latency, from an LLM run's samples.jsonl as
the sample log writes it; each matched pair with the matcher's similarity, and the guard's verdict
per pair in a block of its own where the match records one. A system without samples shows the raw
output its predictions keep; one that keeps nothing shows no transcript. The verdicts are recorded as
the guarded matcher (issue 33) writes them: ``details.verdicts``, accepted pairs and refused near
misses."""

from __future__ import annotations

from pathlib import Path

import scoring_data as sd
from admitdx.contracts import Match, Prediction, PredictionItem
from admitdx.jsonl import write_jsonl
from admitdx.report.browser import render_browser
from admitdx.study.encounters import encounters

PROMPT = "Patient record: 71-year-old man, chest pain radiating to the left arm."


def _run(root: Path) -> tuple[Path, dict]:
    insts = sd.instances()
    dataset = sd.write_dataset(root / "ds", insts)
    e1 = next(i for i in insts if i.id == "e1")
    llm, plain = root / "llm", root / "plain"
    write_jsonl(llm / "predictions.jsonl", [
        Prediction(e1.id, "llm", [PredictionItem("Myocardial infarction"), PredictionItem("HTN")],
                   raw='{"diagnoses": ["Myocardial infarction", "HTN"]}').to_dict()])  # fmt: skip
    write_jsonl(llm / "samples.jsonl", [{
        "instance_id": e1.id, "prompt": {"name": "earlydx_zero_shot_v1", "sha256": "ab"},
        "messages": [{"role": "system", "content": "You are a physician."},
                     {"role": "user", "content": PROMPT}],
        "raw": '{"diagnoses": ["Myocardial infarction", "HTN"]}', "reasoning": "ST changes suggest an MI.",
        "usage": {"prompt_tokens": 600, "completion_tokens": 70,
                  "completion_tokens_details": {"reasoning_tokens": 30}},
        "latency_s": 8.5, "cached": False, "finish_reason": "stop",
    }])  # fmt: skip
    write_jsonl(llm / "matches" / "embedding.jsonl", [Match(e1.id, "llm", "embedding", [(0, 0), (1, 1)], {
        "similarity": [0.8123, 0.7711],
        "verdicts": [  # the guarded matcher's record: the accepted pairs and a refused near miss
            {"prediction": 0, "reference": 0, "similarity": 0.8123, "verdict": "accepted",
             "reason": "same ICD-10 block I21"},
            {"prediction": 1, "reference": 1, "similarity": 0.7711, "verdict": "accepted",
             "reason": "abbreviation HTN"},
            {"prediction": 0, "reference": 1, "similarity": 0.61, "verdict": "refused",
             "reason": "other organ system"},
        ]}).to_dict()])  # fmt: skip
    write_jsonl(
        plain / "predictions.jsonl", [Prediction(e1.id, "plain", [PredictionItem("NSTEMI")]).to_dict()]
    )
    write_jsonl(
        plain / "matches" / "embedding.jsonl", [Match(e1.id, "plain", "embedding", [(0, 0)]).to_dict()]
    )
    results = {"task": "earlydx", "params": {"matcher": "embedding", "split": "test"}, "systems": [
        {"name": "llm", "predictions_dir": str(llm), "colour": "#0072b2", "pattern": None},
        {"name": "plain", "predictions_dir": str(plain), "colour": "#d55e00", "pattern": None}]}  # fmt: skip
    return dataset, results


def test_each_answer_carries_its_transcript_and_each_pair_its_similarity(tmp_path: Path) -> None:
    dataset, results = _run(tmp_path)
    e1 = next(e for e in encounters(dataset, results) if e["id"] == "e1")
    llm, plain = e1["systems"]["llm"], e1["systems"]["plain"]
    transcript = llm["transcript"]
    assert transcript["tokens"] == {"prompt": 600, "completion": 70, "reasoning": 30}
    assert transcript["latency_s"] == 8.5
    (call,) = transcript["calls"]
    assert call["messages"][1]["content"] == PROMPT and call["reasoning"] == "ST changes suggest an MI."
    assert llm["matched"] == [
        {
            "prediction": "Myocardial infarction",
            "gold": "NSTEMI",
            "similarity": 0.8123,
            "guard": "accepted: same ICD-10 block I21",
        },
        {
            "prediction": "HTN",
            "gold": "Hypertension",
            "similarity": 0.7711,
            "guard": "accepted: abbreviation HTN",
        },
    ]
    assert plain["transcript"] is None  # no samples, no raw output, no usage: nothing to show
    assert plain["matched"] == [{"prediction": "NSTEMI", "gold": "NSTEMI", "similarity": None, "guard": None}]
    assert plain["refused"] == []

    html = render_browser(results, encounters(dataset, results))
    assert "transcript: 1 call · tokens 600 prompt + 70 completion (30 reasoning) · 8.50 s" in html
    assert "<summary>prompt as sent (earlydx_zero_shot_v1)</summary>" in html and PROMPT in html
    assert '<pre class="reasoning">ST changes suggest an MI.</pre>' in html
    assert "<td>Myocardial infarction</td><td>NSTEMI</td><td>0.812</td>" in html
    refused = {"prediction": "Myocardial infarction", "gold": "Hypertension", "similarity": 0.61}
    assert llm["refused"] == [{**refused, "reason": "other organ system"}]
    assert "the guard's verdicts" in html and "HTN ↔ Hypertension: accepted: abbreviation HTN" in html
    assert "Myocardial infarction ↮ Hypertension (0.610): refused, other organ system" in html
    assert html.count('<details class="transcript">') == 1  # plain's answer has none
