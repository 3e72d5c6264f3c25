"""The retrieval component: BM25, dense and random retrievers over a small hand-made corpus."""

from __future__ import annotations

import pytest

from admitdx.errors import UsageError
from admitdx.retrieval import Hit, make_retriever

CORPUS = [
    "chest pain radiating to the left arm, diaphoresis, troponin elevated",
    "fever, productive cough, right lower lobe consolidation on chest x-ray",
    "fell from a ladder, left ankle swollen, unable to bear weight",
    "polyuria, polydipsia, glucose 540, anion gap acidosis",
    "the of and",  # stop words only: BM25 can never match it
]


@pytest.fixture(scope="module")
def dense(tmp_path_factory: pytest.TempPathFactory):
    from admitdx.embeddings import Embedder
    from admitdx.retrieval.dense import DenseRetriever

    r = DenseRetriever(embedder=Embedder(cache_dir=tmp_path_factory.mktemp("emb")))
    r.fit(CORPUS)
    return r


def test_bm25_ranks_the_text_sharing_rare_terms_first() -> None:
    r = make_retriever("bm25")
    r.fit(CORPUS)
    hits = r.query("productive cough and consolidation", k=2)
    assert hits[0].index == 1 and hits[0].score > 0
    # no other text shares a term: it scores 0, and the tie is broken by corpus order (index 0)
    assert hits[1] == Hit(0, 0.0)


def test_bm25_query_of_stop_words_scores_zero_everywhere_in_corpus_order() -> None:
    r = make_retriever("bm25")
    r.fit(CORPUS)
    assert r.query("the and of", k=10) == [Hit(i, 0.0) for i in range(len(CORPUS))]


def test_bm25_duplicate_of_a_corpus_text_retrieves_itself() -> None:
    r = make_retriever("bm25")
    r.fit(CORPUS)
    assert [h[0].index for h in r.query_many(CORPUS[:4], k=1)] == [0, 1, 2, 3]


def test_dense_duplicate_retrieves_itself_with_cosine_one(dense) -> None:
    for i, text in enumerate(CORPUS):
        top = dense.query(text, k=1)[0]
        assert top.index == i
        assert top.score == pytest.approx(1.0, abs=1e-4)


def test_dense_prefers_a_paraphrase_over_unrelated_texts(dense) -> None:
    hits = dense.query("high blood sugar with ketoacidosis", k=len(CORPUS))
    assert hits[0].index == 3
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_k_larger_than_corpus_returns_every_text_once() -> None:
    for kind in ("bm25", "random"):
        r = make_retriever(kind)
        r.fit(CORPUS)
        assert sorted(h.index for h in r.query("ankle", k=50)) == list(range(len(CORPUS)))


def test_random_is_reproducible_per_query_and_depends_on_seed() -> None:
    a, b, c = (make_retriever("random", seed=s) for s in (1, 1, 2))
    for r in (a, b, c):
        r.fit([f"text {i}" for i in range(1000)])
    first = a.query("q", k=5)
    assert a.query_many(["other", "q"], k=5)[1] == first  # order/batch independent
    assert b.query("q", k=5) == first
    assert c.query("q", k=5) != first
    assert len({h.index for h in first}) == 5


def test_empty_corpus_and_unknown_kind_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="zero texts"):
        make_retriever("bm25").fit([])
    with pytest.raises(UsageError, match="unknown retriever"):
        make_retriever("faiss")


def test_bm25_corpus_without_a_single_indexable_word_matches_nothing() -> None:
    r = make_retriever("bm25")
    r.fit(["a", "b", "of the"])  # one-letter tokens and stop words are not indexed
    assert r.query("a b", k=2) == [Hit(0, 0.0), Hit(1, 0.0)]


def test_bm25_query_of_unknown_words_scores_zero() -> None:
    r = make_retriever("bm25")
    r.fit(CORPUS)
    assert r.query("zzzunknown qqqword", k=1) == [Hit(0, 0.0)]


# ---------------------------------------------------------------- gold: the oracle over label sets
LABEL_SETS = [{"I10", "E11"}, {"I10"}, {"I10", "E11", "N17", "J18"}, set(), {"J18"}]


def test_gold_ranks_label_sets_by_the_otsuka_coefficient() -> None:
    from admitdx.retrieval.gold import otsuka

    r = make_retriever("gold")
    r.fit(LABEL_SETS)
    # query {I10, E11}: 2/sqrt(2·2) = 1, 1/sqrt(2·1) = 0.7071, 2/sqrt(2·4) = 0.7071, 0 (empty), 0
    hits = r.query({"I10", "E11"}, k=5)
    assert [h.index for h in hits] == [0, 1, 2, 3, 4]  # the 0.7071 tie and the 0 tie in corpus order
    assert [h.score for h in hits] == pytest.approx([1.0, 2**-0.5, 2**-0.5, 0.0, 0.0])
    # query {J18, N17, Z99}: 0, 0, 2/sqrt(3·4) = 0.5774, 0, 1/sqrt(3·1) = 0.5774 (Z99 unknown to the corpus)
    top = r.query(["J18", "N17", "Z99"], k=2)
    assert [h.index for h in top] == [2, 4]
    assert [h.score for h in top] == pytest.approx([3**-0.5, 3**-0.5])
    assert otsuka({"I10", "E11", "N17"}, {"I10", "E11"}) == pytest.approx(2 / 6**0.5)
    assert otsuka(set(), {"I10"}) == 0.0
    assert r.query(set(), k=2) == [Hit(0, 0.0), Hit(1, 0.0)]


def test_gold_refuses_texts() -> None:
    with pytest.raises(UsageError, match="retrieves by label sets"):
        make_retriever("gold").fit(["chest pain", "fever"])


# ---------------------------------------------------------------- latent: the fine-tuned encoder's vectors
@pytest.fixture(scope="module")
def fine_tuned(tmp_path_factory: pytest.TempPathFactory):
    """The encoder system fine-tuned on planted encounters (a tiny BERT, CPU), saved with save_dir."""
    pytest.importorskip("transformers")
    from admitdx.systems import create
    from systems_data import planted_encounters, write_tiny_bert

    tiny = write_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))
    saved = tmp_path_factory.mktemp("fine-tuned")
    training = {"epochs": 4, "batch_size": 16, "learning_rate": 5e-3, "warmup_ratio": 0.0, "device": "cpu"}
    system = create("encoder", model_dir=str(tiny), max_length=40, save_dir=str(saved), **training)
    system.fit(planted_encounters(240, "train", seed=1))
    return tiny, system, saved


def _planted(inst) -> bool:
    return any(r.text == "Planted disease" for r in inst.references)


def test_latent_vectors_are_the_fine_tuned_encoders_pooled_output(fine_tuned) -> None:
    import torch

    from admitdx.retrieval.latent import EncoderEmbedder, pool

    _, system, saved = fine_tuned
    embedder = EncoderEmbedder(saved, device="cpu")
    assert (embedder.pooling, embedder.max_length) == ("cls", 40)  # read from admitdx_encoder.json
    texts = ["patient presents with zebrafinch noted", "vitals stable labs pending"]
    head = system.head
    head.model.eval()
    with torch.no_grad():
        enc = head.tokenizer(texts, truncation=True, max_length=40, padding=True, return_tensors="pt")
        hidden = head.model.encoder(**enc).last_hidden_state
        expected = torch.nn.functional.normalize(pool(hidden, enc["attention_mask"], "cls"), dim=-1)
    assert embedder.encode(texts) == pytest.approx(expected.numpy(), abs=1e-5)


def test_latent_retrieves_by_outcome_after_fine_tuning(fine_tuned) -> None:
    from systems_data import planted_encounters

    tiny, _, saved = fine_tuned
    train = planted_encounters(240, "train", seed=1)
    queries = [q for q in planted_encounters(30, "test", seed=2) if _planted(q)]

    def share_planted(model_dir) -> float:
        r = make_retriever("latent", model_dir=str(model_dir), max_length=40, device="cpu")
        r.fit([t.text for t in train])
        hits = r.query_many([q.text for q in queries], k=5)
        return sum(_planted(train[h.index]) for row in hits for h in row) / (5 * len(queries))

    # A third of the training notes carry the planted label (what chance retrieves). Measured: 1.0
    # fine-tuned, 0.0 for the untrained encoder, whose [CLS] vector does not follow the outcome.
    assert share_planted(saved) >= 0.9
    assert share_planted(tiny) < 0.5


def test_latent_needs_a_model_dir(tmp_path) -> None:
    pytest.importorskip("transformers")
    with pytest.raises(UsageError, match="needs model_dir"):
        make_retriever("latent")
    with pytest.raises(UsageError, match="needs model_dir"):
        make_retriever("latent", model_dir=str(tmp_path / "missing"))
