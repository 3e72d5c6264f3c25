"""CliniBench's LLM path without a server: the appendix A.1 prompts as rendered, the guided-JSON
schema, and text-to-code mapping as the system's last step (exact, BM25 with discards, embedding)."""

from __future__ import annotations

import json

import pytest

from admitdx.contracts import Instance, Reference
from admitdx.llm.client import Completion
from admitdx.systems.code_mapping import CodeMapper
from admitdx.systems.llm_codes import LLMCodePredictor
from admitdx.tasks.registry import get_task

ZERO = (
    "You are a medical professional. Given an admission note for a patient, present a list of possible "
    "diagnoses for the patient. The admission note is as follows: {note}."
)


def _inst(i: int, text: str, codes: list[tuple[str, str]], split: str = "train") -> Instance:
    refs = [
        Reference(text=t, code=c, code_system="ICD-10-CM", seq_num=n + 1) for n, (c, t) in enumerate(codes)
    ]
    return Instance(
        id=f"cb-{i}", subject_id=i, task="clinibench", split=split, sections={}, text=text, references=refs
    )


TRAIN = [
    _inst(
        1,
        "CHIEF COMPLAINT: chest pain",
        [("I21", "Acute myocardial infarction"), ("I10", "Essential (primary) hypertension")],
    ),
    _inst(
        2,
        "CHIEF COMPLAINT: cough and fever",
        [("J18", "Pneumonia, unspecified organism"), ("I10", "Essential (primary) hypertension")],
    ),
    _inst(3, "CHIEF COMPLAINT: fall", [("S72", "Fracture of femur")]),
]


def _system(**options) -> LLMCodePredictor:
    """An llm-codes system mapping onto the training vocabulary (fast; the dictionary: its own test)."""
    task = get_task("clinibench")
    options = {"mapping_targets": "train", **options}
    return LLMCodePredictor(
        task=task, base_url="http://127.0.0.1:9/v1", model="test", min_items=20, max_items=20, **options
    )


def test_zero_shot_and_cot_prompts_are_the_papers() -> None:
    note = TRAIN[0].text
    zero = _system(prompt="zero-shot", mapping="exact")
    messages = zero.request(TRAIN[0]).messages
    assert messages == [{"role": "user", "content": ZERO.format(note=note)}]
    cot = _system(prompt="cot", mapping="exact")
    content = cot.request(TRAIN[0]).messages[0]["content"]
    assert content == ZERO.format(note=note) + (
        " TASK: Solve this task step by step and give an explanation in maximum one or two sentences "
        "for each diagnosis decision."
    )
    schema = cot.request(TRAIN[0]).schema
    assert list(schema["properties"]) == ["reasoning", "diagnoses"]
    items = schema["properties"]["diagnoses"]
    assert items["minItems"] == items["maxItems"] == 20
    assert (items["items"]["minLength"], items["items"]["maxLength"]) == (3, 70)


def test_few_shot_shows_demonstrations_in_the_answer_schema() -> None:
    few = _system(prompt="few-shot", k=1, mapping="exact")
    few.fit(TRAIN)
    query = _inst(9, "CHIEF COMPLAINT: cough", [], split="test")
    content = few.request(query).messages[0]["content"]
    head = (
        "You are a medical professional. Given an admission note for a patient, present a list of possible "
    )
    head += "diagnoses for the patient. Similar patients look like this: "
    assert content.startswith(head)
    shown = content[len(head) : content.index(". The admission note is as follows: ")]
    assert json.loads(shown) == [
        {
            "admission_note": "CHIEF COMPLAINT: cough and fever",
            "diagnoses": ["Pneumonia, unspecified organism", "Essential (primary) hypertension"],
        }
    ]
    tail = f"The admission note is as follows: {query.text}. Give the diagnoses following the schema from "
    assert content.endswith(tail + "the examples.")


def test_exact_and_bm25_mapping_with_discards() -> None:
    exact = CodeMapper("exact", targets="train")
    exact.fit(TRAIN)
    texts = ["acute myocardial infarction", "I10", "pneumonia, unspecified organism", "heart attack", "zzzq"]
    assert exact.map(texts) == ["I21", "I10", "J18", None, None]
    bm25 = CodeMapper("bm25", targets="train")
    bm25.fit(TRAIN)
    assert bm25.map(["infarction of the myocardium, acute", "femur fracture, closed", "zzzq qqqz"]) == [
        "I21", "S72", None,
    ]  # fmt: skip
    assert bm25.summary()["discarded_share"] == pytest.approx(1 / 3, abs=1e-4)


def test_dictionary_targets_reach_codes_training_never_saw() -> None:
    """The default targets are the whole ICD dictionary of the dataset's version (§4.2): the CDC
    ICD-10-CM tabular list's "Gout, unspecified" (M10.9) and "Acute kidney failure, unspecified"
    (N17.9), CMS ICD-9-CM v32's short "Septicemia NOS" (038.9) and "Urin tract infection NOS"
    (599.0) map to their categories although no training note carries them; with the training
    vocabulary the same words are discarded (exact) or forced onto a learnt category (BM25)."""
    texts = ["Gout, unspecified", "Acute kidney failure, unspecified", "zzzq qqqz"]
    whole = CodeMapper("bm25")
    whole.fit(TRAIN)
    assert whole.map(texts) == ["M10", "N17", None]
    summary = whole.summary()
    assert summary["discarded_share"] == pytest.approx(1 / 3, abs=1e-4)
    assert summary["mapping_targets"] == "dictionary" and summary["mapping_entries"] > 90_000
    for method, expected in (("exact", [None, None, None]), ("bm25", ["J18", "I21", None])):
        train_only = CodeMapper(method, targets="train")
        train_only.fit(TRAIN)
        assert train_only.map(texts) == expected
    septicemia = Reference(text="Septicemia", code="038", code_system="ICD-9-CM", seq_num=1)
    mapper = CodeMapper("exact")
    mapper.fit([Instance(id="cb-9", subject_id=9, task="clinibench", split="train", sections={}, text="x",
                         references=[septicemia])])  # fmt: skip
    assert mapper.version == 9
    assert mapper.map(["Septicemia NOS", "Urin tract infection NOS", "Gout, unspecified"]) == [
        "038",
        "599",
        "274",
    ]


def test_llm_codes_asks_for_twenty_and_maps_over_the_dictionary_by_default() -> None:
    task = get_task("clinibench")
    system = LLMCodePredictor(task=task, base_url="http://127.0.0.1:9/v1", model="test", mapping="exact")
    items = system.request(TRAIN[0]).schema["properties"]["diagnoses"]
    assert items["minItems"] == items["maxItems"] == 20
    assert system.manifest_inputs()["mapping_targets"] == "dictionary"


def test_embedding_mapping_always_maps() -> None:
    # the training vocabulary: embedding the whole dictionary (~97k wordings) takes minutes on a CPU
    mapper = CodeMapper("embedding", targets="train")
    mapper.fit(TRAIN)
    codes = mapper.map(["heart attack", "broken hip bone", "lung infection"])
    assert codes == ["I21", "S72", "J18"]
    assert mapper.summary()["descriptions_discarded"] == 0


def test_mapping_is_the_last_step_rolled_up_and_deduplicated() -> None:
    system = _system(prompt="zero-shot", mapping="exact")
    system.fit(TRAIN)
    answer = {
        "diagnoses": ["Acute myocardial infarction", "I21", "Essential (primary) hypertension", "Gout flare"]
    }
    completion = Completion(json.dumps(answer), answer, None, None, None, False)
    prediction = system.to_prediction(_inst(9, "x", [], split="test"), completion)
    assert [(it.text, it.code) for it in prediction.items] == [
        ("Acute myocardial infarction", "I21"),
        ("Essential (primary) hypertension", "I10"),
        ("Gout flare", None),
    ]
    broken = Completion("{not json", None, "the answer is not JSON", None, None, False)
    assert system.to_prediction(_inst(10, "x", [], split="test"), broken).items == []
    assert system._answers == {"answers": 2, "valid_json": 1, "distinct_codes": 2}


# ---------------------------------------------------------------- gold retriever: the declared oracle
HTN, T2D, AKI, PNA = ("I10", "Hypertension"), ("E11", "Type 2 diabetes"), ("N17", "AKI"), ("J18", "Pneumonia")
GOLD_TRAIN = [
    _inst(11, "CHIEF COMPLAINT: headache", [HTN, T2D]),
    _inst(12, "CHIEF COMPLAINT: dyspnea", [PNA]),
    _inst(13, "CHIEF COMPLAINT: confusion", [HTN, T2D, AKI, PNA]),
]
# Otsuka |A∩B|/sqrt(|A||B|) against the training label sets 11, 12, 13:
#   x {I10, E11, N17}: 2/sqrt(6) = 0.816, 0, 3/sqrt(12) = 0.866  → 13, then 11
#   y {J18}:           0, 1/sqrt(1) = 1, 1/sqrt(4) = 0.5          → 12, then 13
# Their texts copy other notes word for word, so a text retriever would pick 12 for x and 11 for y.
GOLD_TEST = [
    _inst(21, "CHIEF COMPLAINT: dyspnea", [("I10", "t"), ("E11", "t"), ("N17", "t")], split="test"),
    _inst(22, "CHIEF COMPLAINT: headache", [("J18", "t")], split="test"),
]


def _shown_notes(content: str) -> list[str]:
    start = content.index("Similar patients look like this: ") + len("Similar patients look like this: ")
    shown = json.loads(content[start : content.index(". The admission note is as follows: ")])
    return [s["admission_note"] for s in shown]


def test_gold_retriever_picks_demonstrations_by_the_test_labels_and_is_marked(tmp_path, monkeypatch) -> None:
    from admitdx.contracts import PREDICTIONS_FILE
    from admitdx.scoring.context import caveat_for
    from admitdx.systems.config import SystemChoice
    from admitdx.systems.runner import run_predictions
    from egress_servers import Endpoint
    from systems_data import write_dataset

    monkeypatch.setenv("ADMITDX_CACHE_DIR", str(tmp_path / "cache"))
    data = write_dataset(tmp_path / "ds", GOLD_TRAIN + GOLD_TEST)
    prompts: dict[str, dict[str, list[str]]] = {}
    for retriever in ("gold", "bm25"):
        options = {"prompt": "few-shot", "k": 2, "retriever": retriever, "mapping": "exact", "model": "m",
                   "mapping_targets": "train",
                   "cache_path": str(tmp_path / f"{retriever}.sqlite")}  # fmt: skip
        with Endpoint() as endpoint:
            choice = SystemChoice(f"cb-{retriever}", "llm-codes", {**options, "base_url": endpoint.base_url})
            run_predictions(data, choice, tmp_path / retriever, show_progress=False)
            contents = [s.body["messages"][0]["content"] for s in endpoint.seen]
        prompts[retriever] = {
            note: _shown_notes(c) for c in contents for note in (t.text for t in GOLD_TEST) if c.endswith(
                f"as follows: {note}. Give the diagnoses following the schema from the examples.")
        }  # fmt: skip
        assert (tmp_path / retriever / PREDICTIONS_FILE).exists()
    text = {t.id: t.text for t in GOLD_TRAIN}
    # most similar last, next to the question
    assert prompts["gold"] == {
        GOLD_TEST[0].text: [text["cb-11"], text["cb-13"]],
        GOLD_TEST[1].text: [text["cb-13"], text["cb-12"]],
    }
    assert prompts["bm25"][GOLD_TEST[0].text][-1] == text["cb-12"]  # by words: the same complaint
    manifest = json.loads((tmp_path / "gold" / "manifest.json").read_text())["inputs"]
    assert manifest["oracle"] is True
    assert "oracle" not in json.loads((tmp_path / "bm25" / "manifest.json").read_text())["inputs"]
    assert caveat_for(tmp_path / "gold").startswith("oracle: uses the test labels")
    assert caveat_for(tmp_path / "bm25") is None


def test_gold_retriever_refuses_texts_outside_an_oracle() -> None:
    from admitdx.errors import UsageError

    few = _system(prompt="few-shot", k=1, mapping="exact", retriever="gold")
    assert few.needs_test_targets is True
    assert _system(prompt="few-shot", k=1, mapping="exact").needs_test_targets is False
    from admitdx.systems.llm import LLMPredictor

    plain = LLMPredictor(task=get_task("clinibench"), base_url="http://127.0.0.1:9/v1", model="t",
                         prompt="few-shot", retriever="gold")  # fmt: skip
    with pytest.raises(UsageError, match="retrieves by label sets"):
        plain.fit(TRAIN)
