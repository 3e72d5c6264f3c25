"""The papers' published numbers (admitdx/study/published.csv) against the paper texts in
../shared/papers/: every row's quote is in its paper, its printed number is in its quote, and its
value is that number on admitdx's 0–1 scale. A sample is also pinned by hand from the tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from admitdx.study.published import load_published

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "papers"
FILES = {"EarlyDx": "earlydx.txt", "CliniBench": "clinibench.txt", "ER-Reason": "er-reason.txt"}


@pytest.fixture(scope="module")
def rows() -> list:
    return load_published()


def test_every_number_is_quoted_from_its_paper(rows: list) -> None:
    if not PAPERS.is_dir():
        pytest.skip(f"the paper texts are not at {PAPERS}")
    texts = {b: (PAPERS / f).read_text(encoding="utf-8") for b, f in FILES.items()}
    for r in rows:
        assert r.quote in texts[r.benchmark], (r.system, r.metric)
        assert r.printed in r.quote.replace("\t", " ").split() or r.printed in r.quote, (r.system, r.printed)
        assert r.value == pytest.approx(float(r.printed) / (100 if r.unit == "%" else 1))


def test_a_sample_read_off_the_tables_by_hand(rows: list) -> None:
    """CliniBench table 2 (hosp, zero-shot, GatorTronS MAP 35.26; icu few-shot Qwen2-72B-Instruct
    MD Acc. 52.06), ER-Reason tables 2, 3, 6 and 7, EarlyDx §5.1's post-trained supported F1."""

    def value(system: str, metric: str, **match: str) -> float:
        found = [r for r in rows if r.system == system and r.metric == metric
                 and all(r.match.get(k) == v for k, v in match.items())]  # fmt: skip
        return found[0].value

    assert value("GatorTronS-345M", "clinibench.map", module="hosp") == pytest.approx(0.3526)
    qwen = [r for r in rows if r.system == "Qwen2-72B-Instruct" and r.match == {"module": "icu"}
            and r.metric == "clinibench.main_diagnosis_accuracy"]  # fmt: skip
    assert [r.value for r in qwen] == pytest.approx([0.4811, 0.4716, 0.5206])  # zero-shot, CoT, few-shot
    assert value("o3-mini", "accuracy") == pytest.approx(0.6270)  # table 2, acuity (first: acuity)
    assert value("GPT-4o", "answer.rougeL_f1") == pytest.approx(0.286)
    assert value("o3-mini", "main.exact") == pytest.approx(0.3440)
    assert value("EarlyDx post-trained model", "supported.micro_f1") == pytest.approx(0.51)
    disposition = [r for r in rows if r.system == "LLaMA 3.2" and "er-reason-disposition" in r.tasks]
    assert [r.value for r in disposition] == pytest.approx([0.4244])
    assert {r.benchmark for r in rows} == set(FILES)
