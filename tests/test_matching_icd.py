"""ICD-code matcher: exact titles map, category vs full code, ICD-9 and ICD-10, unmapped share,
and a cold first run that says what it is doing and embeds only BM25 candidate titles."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from admitdx.embeddings import Embedder
from admitdx.errors import UsageError
from admitdx.matching import icd_mapping
from admitdx.matching.base import MatchTask
from admitdx.matching.icd import IcdMatcher, code_version
from admitdx.matching.icd_mapping import DEFAULT_CANDIDATES, dictionary
from admitdx.matching.normalize import expand_diagnosis


@pytest.fixture(scope="module")
def bm25_matcher() -> IcdMatcher:
    """The whole billable ICD-9 and ICD-10 dictionaries, lexical search only (no model)."""
    return IcdMatcher(search="bm25", level="category")


def test_dictionary_sizes_are_the_billable_code_counts() -> None:
    # ICD-10-CM as shipped by simple_icd_10_cm: 74,724 billable leaves with a title (74,736 leaves,
    # of which the chapter/block-shaped ones are excluded); ICD-9-CM v32: 14,567 billable codes.
    assert len(dictionary(10)) == 74724
    assert len(dictionary(9)) == 14567


@pytest.mark.parametrize(
    ("text", "version", "code"),
    [
        ("Acute myocardial infarction, unspecified", 10, "I219"),
        ("Non-ST elevation (NSTEMI) myocardial infarction", 10, "I214"),
        ("NSTEMI", 10, "I214"),  # abbreviation expanded, word order ignored
        ("pneumonia, UNSPECIFIED organism", 10, "J189"),
        ("I21.4", 10, "I214"),  # a code given as text
        ("Pneumonia, organism unspecified", 9, "486"),  # billable three-character ICD-9 code
        ("CHF NOS", 9, "4280"),  # ICD-9 short title, as MIMIC-IV-ED shows it
        ("SEPTICEMIA NOS", 9, "0389"),  # NOS kept apart from NEC (038.8) on the strict pass
    ],
)
def test_exact_titles_map_to_their_code(bm25_matcher: IcdMatcher, text: str, version: int, code: str) -> None:
    [mapping] = bm25_matcher.map_texts([text], version)
    assert mapping is not None and mapping.code == code
    assert mapping.method in ("exact", "code")


def test_nonsense_is_unmapped_and_counted(bm25_matcher: IcdMatcher) -> None:
    task = MatchTask(
        "i", "s",
        ["Pneumonia, unspecified organism", "xyzzy qwerty", "", "NSTEMI"],
        ["Pneumonia", "Acute myocardial infarction, unspecified"],
        [("J189", "ICD-10-CM"), ("I219", "ICD-10-CM")],
    )  # fmt: skip
    outcome = bm25_matcher.match(task)
    assert outcome.details["unmapped"] == 2
    assert outcome.details["mapped"][1] == {"10": None}
    summary = bm25_matcher.summarize(
        [outcome, bm25_matcher.match(MatchTask("j", "s", ["sepsis"], ["x"], [("A419", "ICD-10-CM")]))]
    )
    assert summary["predictions_total"] == 5
    assert summary["unmapped"] == 2
    assert summary["unmapped_share"] == pytest.approx(2 / 5)
    # NSTEMI (I21.4) and the unspecified AMI reference (I21.9) share the category I21.
    assert outcome.pairs == [(0, 0), (3, 1)]


def test_full_level_needs_the_same_code(bm25_matcher: IcdMatcher) -> None:
    full = IcdMatcher(search="bm25", level="full")
    full._indexes = bm25_matcher._indexes  # same dictionaries; avoid rebuilding the BM25 index
    task = MatchTask(
        "i",
        "s",
        ["NSTEMI", "Pneumonia, unspecified organism"],
        ["AMI", "Pneumonia"],
        [("I219", "ICD-10-CM"), ("J189", "ICD-10-CM")],
    )
    assert full.match(task).pairs == [(1, 1)]
    assert bm25_matcher.match(task).pairs == [(0, 0), (1, 1)]


def test_each_reference_is_compared_in_its_own_code_system(bm25_matcher: IcdMatcher) -> None:
    task = MatchTask(
        "i",
        "s",
        ["Pneumonia, unspecified organism"],
        ["PNA (ICD-9)", "PNA (ICD-10)"],
        [("486", "ICD-9-CM"), ("J189", "ICD-10-CM")],
    )
    outcome = bm25_matcher.match(task)
    assert len(outcome.pairs) == 1  # one prediction, one pair, although it maps in both systems
    assert outcome.details["mapped"][0]["9"]["code"] == "486"
    assert outcome.details["mapped"][0]["10"]["code"] == "J189"


def test_uncoded_references_count_nothing(bm25_matcher: IcdMatcher) -> None:
    outcome = bm25_matcher.match(MatchTask("i", "s", ["CHF"], ["heart failure"], [(None, None)]))
    assert outcome.pairs == [] and outcome.details["predictions"] == 0


def test_hybrid_search_with_the_embedding_model(tmp_path_factory: pytest.TempPathFactory) -> None:
    """BM25 + MiniLM over a small slice of the dictionary (the full one takes minutes to embed once)."""
    matcher = IcdMatcher(
        search="hybrid",
        code_prefixes=("J18", "I50", "I21", "A41"),
        embedder=Embedder(cache_dir=tmp_path_factory.mktemp("emb"), precision="float32"),
    )
    got = matcher.map_texts(
        ["community acquired pneumonia", "congestive heart failure exacerbation", "xyzzy"], 10
    )
    assert got[0] is not None and got[0].code.startswith("J18") and got[0].method == "hybrid"
    assert got[1] is not None and got[1].code.startswith("I50")
    assert got[2] is None  # below the similarity floor
    assert matcher.min_similarity == pytest.approx(0.5091, abs=0.05)


def test_code_version_names() -> None:
    assert code_version("ICD-9-CM") == 9 and code_version("ICD-10-CM") == 10 and code_version(None) is None


def test_another_model_needs_an_explicit_similarity_floor(tmp_path_factory: pytest.TempPathFactory) -> None:
    other = Embedder(cache_dir=tmp_path_factory.mktemp("emb"), max_seq_length=32, precision="float32")
    with pytest.raises(UsageError, match="similarity floor"):
        IcdMatcher(embedder=other)
    assert IcdMatcher(embedder=other, min_similarity=0.4).min_similarity == 0.4


# 25 conditions × 4 hedged spellings: 100 predictions, none an exact title, so all reach the search.
CONDITIONS = (
    "pneumonia", "heart failure", "atrial fibrillation", "urinary tract infection", "sepsis",
    "acute kidney injury", "chest pain", "syncope", "cellulitis", "hyponatremia", "pulmonary embolism",
    "deep vein thrombosis", "gastrointestinal bleed", "pancreatitis", "cholecystitis", "appendicitis",
    "copd", "asthma", "hip fracture", "stroke", "seizure", "alcohol withdrawal", "diabetic ketoacidosis",
    "hypoglycemia", "anemia",
)  # fmt: skip
HEDGES = ("{} (suspected)", "possible {}", "{}, likely", "rule out {}")


def test_cold_first_run_reports_progress_and_embeds_only_candidate_titles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """100 predictions against the whole billable ICD-10-CM dictionary (74,724 titles) with an empty
    embedding cache, in a process that has indexed no dictionary yet: every long step reports
    counts, and what gets embedded is the BM25 candidate titles (at most ``DEFAULT_CANDIDATES`` per
    prediction) plus the predictions themselves."""
    monkeypatch.setattr(icd_mapping, "_WORDS", {})
    texts = [hedge.format(c) for c in CONDITIONS for hedge in HEDGES]
    calls: list[tuple[str, int, int]] = []
    matcher = IcdMatcher(embedder=Embedder(cache_dir=tmp_path, precision="float32"))
    matcher.on_progress = lambda step, done, total: calls.append((step, done, total))
    mapped = matcher.map_texts(texts, 10)

    size = len(dictionary(10))
    # every one-time step is a row of `admitdx match`'s bar, in order, none silent (issue 23)
    assert list(dict.fromkeys(s for s, _, _ in calls)) == [
        "reading the ICD-10 dictionary",
        "indexing ICD-10 titles",
        "embedding texts to map into ICD-10",  # the first one loads the embedding model
        "embedding ICD-10 titles",
    ]
    assert [(d, t) for s, d, t in calls if s.startswith("reading")] == [(0, 1), (1, 1)]
    assert [(d, t) for s, d, t in calls if s.startswith("embedding texts")] == [(0, 100), (100, 100)]
    indexing = [(d, t) for s, d, t in calls if s == "indexing ICD-10 titles"]
    assert indexing[0] == (0, size) and indexing[-1] == (size, size)
    embedding = [(d, t) for s, d, t in calls if s == "embedding ICD-10 titles"]
    titles = embedding[0][1]
    assert embedding[0] == (0, titles) and embedding[-1] == (titles, titles)
    assert [d for d, _ in embedding] == sorted(d for d, _ in embedding) and len(embedding) >= 3
    # Bounded by the candidates, not by the dictionary: at most 20 titles per prediction.
    assert 0 < titles <= DEFAULT_CANDIDATES * len(texts) < size / 30
    assert matcher.index(10).embedded == titles
    with sqlite3.connect(tmp_path / "embeddings.sqlite") as con:
        (cached,) = con.execute("SELECT COUNT(*) FROM vectors").fetchone()
    assert cached == titles + len(texts)  # the candidate titles and the 100 predictions, nothing else

    assert all(m is None or m.method == "hybrid" for m in mapped)
    codes = dict(zip(texts, (m.code if m else None for m in mapped), strict=True))
    assert codes["pneumonia (suspected)"][:2] == "J1"  # J12–J18, the pneumonia block
    assert codes["possible atrial fibrillation"].startswith("I48")
    assert codes["heart failure, likely"].startswith("I50")
    assert codes["rule out gastrointestinal bleed"].startswith("K92")
    assert codes["copd (suspected)"].startswith("J44")
    assert sum(m is None for m in mapped) <= 10

    # A rerun finds the chosen titles in the cache: nothing left to embed, nothing reported.
    again: list[tuple[int, int]] = []
    chosen = [expand_diagnosis(m.title) for m in mapped if m is not None]
    Embedder(cache_dir=tmp_path, precision="float32").encode(chosen, on_progress=lambda *a: again.append(a))
    assert chosen and again == []


def test_candidates_apply_to_hybrid_search_only(tmp_path: Path) -> None:
    embedder = Embedder(cache_dir=tmp_path, precision="float32")
    with pytest.raises(UsageError, match="search=hybrid only"):
        IcdMatcher(search="bm25", candidates=5)
    with pytest.raises(UsageError, match="whole number"):
        IcdMatcher(embedder=embedder, candidates=-1)
    assert IcdMatcher(embedder=embedder).params()["candidates"] == DEFAULT_CANDIDATES
    # The whole-dictionary protocols keep the parameters, hence the match cache keys, they had before.
    assert "candidates" not in IcdMatcher(embedder=embedder, candidates=0).params()
    assert "candidates" not in IcdMatcher(search="bm25").params()
