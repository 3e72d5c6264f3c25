"""Concept recall with QuickUMLS over a UMLS installation, for real and offline.

The UMLS here is a synthetic subset in the real RRF layout (``MRCONSO.RRF``, ``MRSTY.RRF``): made-up
CUIs C9000001… from a source named ADMITDX_SYNTHETIC, with common English words as their strings —
no licensed content. QuickUMLS's own installer indexes it (``python -m quickumls.install``, run the
way the metrics README tells a user to, from a folder holding a blank spaCy pipeline named
``en_core_web_sm``), and NLTK's stop-word corpus is a small file in NLTK's own layout, as
``python -m nltk.downloader stopwords`` would leave it. Expected concepts and recalls are derived
by hand from the strings below.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.planning_data import score, write_planning_run

from admitdx.errors import UsageError
from admitdx.metrics.concepts import concept_recall, offline_available
from admitdx.metrics.concepts_umls import QuickUmlsExtractor, quickumls_available

pytestmark = pytest.mark.skipif(
    not (quickumls_available() and offline_available()), reason="quickumls or the concepts extra missing"
)

#: (CUI, language, preferred?, string, TUI, semantic type name)
SYNTHETIC_UMLS = [
    ("C9000001", "ENG", "Y", "Pneumonia", "T047", "Disease or Syndrome"),
    ("C9000001", "ENG", "N", "Lung infection", "T047", "Disease or Syndrome"),
    ("C9000002", "ENG", "Y", "Pulmonary embolism", "T047", "Disease or Syndrome"),
    ("C9000003", "ENG", "Y", "Chest pain", "T184", "Sign or Symptom"),
    ("C9000004", "ENG", "Y", "Aspirin", "T121", "Pharmacologic Substance"),
    ("C9000005", "ENG", "Y", "Heparin", "T121", "Pharmacologic Substance"),
    ("C9000006", "ENG", "Y", "Pneumothorax", "T047", "Disease or Syndrome"),
    ("C9000007", "ENG", "Y", "Emergency department", "T073", "Manufactured Object"),  # not a clinical type
    ("C9000008", "FRE", "Y", "Embolie pulmonaire", "T047", "Disease or Syndrome"),  # not English
]
STOPWORDS = ["no", "and", "or", "the", "of", "give", "to", "in"]


def write_umls(meta: Path) -> None:
    """MRCONSO.RRF (18 fields) and MRSTY.RRF (6 fields), pipe-terminated, as a UMLS release has them."""
    meta.mkdir(parents=True)
    conso, sty = [], {}
    for n, (cui, lat, pref, text, tui, sty_name) in enumerate(SYNTHETIC_UMLS, start=1):
        tty = "PT" if pref == "Y" else "SY"
        fields = [cui, lat, "P", f"L{n:07d}", "PF", f"S{n:07d}", pref, f"A{n:07d}", "", "", "",
                  "ADMITDX_SYNTHETIC", tty, f"SYN{n}", text, "0", "N", ""]  # fmt: skip
        conso.append("|".join(fields) + "|\n")
        sty[cui] = "|".join([cui, tui, "A0", sty_name, f"AT{n:07d}", ""]) + "|\n"
    (meta / "MRCONSO.RRF").write_text("".join(conso), encoding="utf-8")
    (meta / "MRSTY.RRF").write_text("".join(sty.values()), encoding="utf-8")


@pytest.fixture(scope="module")
def umls_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("umls")
    write_umls(root / "META")
    index, workdir = root / "quickumls", root / "install"
    index.mkdir()
    workdir.mkdir()
    # the README's recipe: a blank English pipeline where spaCy looks for en_core_web_sm, then the installer
    blank = "import spacy; spacy.blank('en').to_disk('en_core_web_sm')"
    subprocess.run([sys.executable, "-c", blank], cwd=workdir, check=True)
    done = subprocess.run(
        [sys.executable, "-m", "quickumls.install", "-L", str(root / "META"), str(index)],
        cwd=workdir, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Attempting to download" not in done.stdout
    return index


@pytest.fixture(scope="module")
def stopwords(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One corpus folder for the module: NLTK refuses a loaded corpus once its folder leaves the path."""
    import nltk

    data = tmp_path_factory.mktemp("nltk_data")
    (data / "corpora" / "stopwords").mkdir(parents=True)
    (data / "corpora" / "stopwords" / "english").write_text("\n".join(STOPWORDS) + "\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(nltk.data, "path", [str(data), *nltk.data.path])
        yield


def test_quickumls_finds_cuis_drops_negated_and_foreign_terms(umls_index: Path, stopwords: None) -> None:
    x = QuickUmlsExtractor(umls_index)
    text = "No chest pain. Pneumonia or pulmonary embolism; give aspirin in the emergency department."
    # chest pain negated; "emergency department" is a T073 (not an accepted semantic type)
    assert x.concepts(text) == {"UMLS:C9000001", "UMLS:C9000002", "UMLS:C9000004"}
    assert x.concepts("LUNG INFECTION") == {"UMLS:C9000001"}  # a synonym gives its concept's CUI
    assert x.concepts("embolie pulmonaire") == set()  # the French string was not indexed
    # reference: C9000001, C9000002, C9000006; answer names C9000002 (and heparin, not in the reference)
    recall = concept_recall(
        x, "pulmonary embolism, start heparin", "Pneumonia, PE: pulmonary embolism, pneumothorax"
    )
    assert recall == pytest.approx(1 / 3)
    assert x.params["threshold"] == 0.7 and x.params["index"] == str(umls_index.resolve())


def test_missing_stopwords_or_index_are_usage_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import nltk

    with pytest.raises(UsageError, match="not a QuickUMLS index"):
        QuickUmlsExtractor(tmp_path)
    (tmp_path / "umls-simstring.db").mkdir()
    (tmp_path / "cui-semtypes.db").mkdir()
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "no-nltk-data")])
    with pytest.raises(UsageError, match="stopwords") as e:
        QuickUmlsExtractor(tmp_path)
    assert "nltk.downloader stopwords" in (e.value.hint or "")


def test_score_with_quickumls_names_the_extractor(umls_index: Path, stopwords: None, tmp_path: Path) -> None:
    target = {
        "rule_out": "Pneumonia, pulmonary embolism, pneumothorax.",
        "treatment_plan": "Aspirin and heparin.",
    }
    answers = [
        {"rule_out": "pneumonia; no pulmonary embolism", "treatment_plan": "heparin"},  # 1/3 and 1/2
        {"rule_out": "pneumothorax or lung infection", "treatment_plan": "aspirin, heparin"},  # 2/3 and 2/2
    ]
    ds, run = write_planning_run(tmp_path, [target, target], answers)
    umls = ("--concept-extractor", "quickumls")
    results = score(ds, run, tmp_path / "out", *umls, "--umls-index", str(umls_index))
    assert results["concept_extractor"] == "quickumls"
    assert results["concept_extractor_params"]["index"] == str(umls_index.resolve())
    metrics = results["systems"][0]["metrics"]
    assert metrics["rule_out.concept_recall"]["value"] == pytest.approx((1 / 3 + 2 / 3) / 2)
    assert metrics["treatment_plan.concept_recall"]["value"] == pytest.approx((1 / 2 + 1) / 2)
    # without an index, or with a wrong one: a usage error (exit 2) saying what to pass
    for extra, says in (
        ([], "--umls-index"),
        (["--umls-index", str(tmp_path)], "python -m quickumls.install"),
    ):
        with pytest.raises(UsageError) as e:
            score(ds, run, tmp_path / "bad", *umls, *extra)
        assert e.value.exit_code == 2 and says in (e.value.hint or "")
