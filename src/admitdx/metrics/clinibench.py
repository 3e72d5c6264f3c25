"""CliniBench metrics (section 4, tables 2–3, figure 3): ranking ICD codes at the 3-character level.

* **Top-n** (n = 20): only each system's first n distinct labels count, so systems that emit long
  ranked lists (encoders) and short ones (generative LLMs) are compared on the same budget.
* **Macro P/R/F1 over a fixed label vocabulary.** Per label: P = tp / predicted, R = tp / gold
  (0 when the denominator is 0, as scikit-learn's ``zero_division=0``), F1 their harmonic mean;
  then the unweighted mean over labels. The vocabulary is fixed across systems (by default the
  gold labels of the evaluated encounters) so that a system cannot change the average by the
  labels it chooses to predict; labels with no gold occurrence are left out, since their recall is
  undefined (CliniBench likewise excludes labels absent from a split).
* **MAP**: mean over encounters of average precision of the top-n ranking,
  AP = (1/|gold|) Σ_{k: rank k is gold} precision@k.
* **Main-diagnosis accuracy**: the share of encounters whose first gold code (the main diagnosis,
  lowest ``seq_num``) is among the top-n predictions.
* **Intervals**: macro scores are not ratios of encounter sums, so their patient bootstrap
  (:func:`macro_replicates`) resamples per-patient label counts instead, and their interval is
  BCa (:mod:`admitdx.metrics.bca`; jackknife over patients, :func:`macro_jackknife`): a
  replicate that misses a rare label drops it from its mean, so the replicates lean upward and
  the percentile interval of a small split can start at the point. Length-bin micro scores are
  ratios of encounter sums: percentile intervals (:func:`length_bin_replicates`).
* **Frequency tertiles** (figure 3): vocabulary labels sorted by training frequency and cut into
  three equal-sized groups, head / body / tail; macro P/R/F1 within each.
* **Input-length bins** (figure 5): micro P/R/F1 (counts over the vocabulary summed over the
  bin's encounters, then the ratios) of the encounters whose note length falls in each bin. The
  paper does not give its bins (its figure only names 850 tokens, where the 512-token encoders
  collapse); ours default to length tertiles of the evaluated encounters
  (:func:`length_edges`), or fixed token edges, e.g. ``(512, 850)``.

Labels arrive rolled up to their 3-character category by the one roll-up,
:func:`admitdx.ontology.icd.roll_up` (the caller knows each code's version); here they are
de-duplicated, first occurrence kept, before truncation (CliniBench section 4.2). Predictions
that could not be mapped to a code (``None``) take no rank.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from admitdx.errors import UsageError

if TYPE_CHECKING:  # SciPy loads where the matrices are built: `admitdx --help` reads TOP_N from here
    from scipy import sparse

TOP_N = 20
TERTILES = ("head", "body", "tail")
MACRO_KEYS = ("macro_precision", "macro_recall", "macro_f1")
MICRO_KEYS = ("micro_precision", "micro_recall", "micro_f1")
#: Figure 5's bins by default: three groups of (about) equal size by note length.
LENGTH_BINS = "tertiles"


def ranked_labels(labels: Sequence[str | None], top_n: int = TOP_N) -> list[str]:
    """Drop unmapped, de-duplicate (first occurrence wins), keep the first ``top_n``."""
    out: list[str] = []
    for label in labels:
        if label is None:
            continue
        if label not in out:
            out.append(label)
            if len(out) == top_n:
                break
    return out


def average_precision(gold: Sequence[str], ranking: Sequence[str]) -> float:
    gold_set = set(gold)
    hits, total = 0, 0.0
    for k, label in enumerate(ranking, start=1):
        if label in gold_set:
            hits += 1
            total += hits / k
    return total / len(gold_set) if gold_set else 0.0


def macro_from_counts(tp: np.ndarray, pred: np.ndarray, gold: np.ndarray) -> dict[str, np.ndarray]:
    """Macro P/R/F1 from per-label counts on the last axis (works on bootstrap replicate rows too).

    Labels with no gold occurrence are left out of the mean (their recall is undefined); this
    matters in a bootstrap replicate that happens to draw no patient with a label.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(pred > 0, tp / np.where(pred > 0, pred, 1), 0.0)
        r = np.where(gold > 0, tp / np.where(gold > 0, gold, 1), 0.0)
        f = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
        present = gold > 0
        n = present.sum(-1)
        return {
            name: np.where(n > 0, (x * present).sum(-1) / np.where(n > 0, n, 1), np.nan)
            for name, x in (("macro_precision", p), ("macro_recall", r), ("macro_f1", f))
        }


def tertiles(vocabulary: Sequence[str], frequencies: Mapping[str, int]) -> dict[str, list[str]]:
    """Split labels into head / body / tail by descending frequency (ties broken by code)."""
    ordered = sorted(vocabulary, key=lambda lab: (-frequencies.get(lab, 0), lab))
    return {
        name: list(part)
        for name, part in zip(TERTILES, np.array_split(np.array(ordered, dtype=object), 3), strict=True)
    }


def label_indicators(
    gold: Sequence[Sequence[str]], rankings: Sequence[Sequence[str]], vocabulary: Sequence[str]
) -> tuple[sparse.csr_matrix, sparse.csr_matrix, sparse.csr_matrix]:
    """(encounters × labels) 0/1 sparse matrices over the vocabulary: (tp, predicted, gold)."""
    from scipy import sparse

    index = {lab: j for j, lab in enumerate(vocabulary)}
    cells: dict[str, tuple[list[int], list[int]]] = {"tp": ([], []), "pred": ([], []), "gold": ([], [])}
    for i, (g, ranking) in enumerate(zip(gold, rankings, strict=True)):
        gs = set(g)
        for kind, labs in (("gold", gs), ("pred", set(ranking)), ("tp", gs & set(ranking))):
            for lab in labs:
                if lab in index:
                    cells[kind][0].append(i)
                    cells[kind][1].append(index[lab])
    shape = (len(gold), len(vocabulary))

    def build(kind: str) -> sparse.csr_matrix:
        rows, cols = cells[kind]
        return sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)

    return build("tp"), build("pred"), build("gold")


def _prepare(
    gold: Sequence[Sequence[str]],
    predicted: Sequence[Sequence[str | None]],
    top_n: int,
    vocabulary: Sequence[str] | None,
) -> tuple[list[list[str]], list[list[str]], list[str], Counter[str]]:
    """Rolled-up gold labels, top-n rankings, the vocabulary, and gold label frequencies."""
    gold_labels = [ranked_labels(g, top_n=10**9) for g in gold]
    rankings = [ranked_labels(p, top_n) for p in predicted]
    gold_freq = Counter(lab for g in gold_labels for lab in g)
    vocab = sorted(lab for lab in (vocabulary or gold_freq) if gold_freq[lab] > 0)
    return gold_labels, rankings, vocab, gold_freq


def _subject_counts(
    gold_labels: Sequence[Sequence[str]],
    rankings: Sequence[Sequence[str]],
    vocab: Sequence[str],
    subjects: Sequence[int],
    order: np.ndarray,
) -> tuple[sparse.csr_matrix, sparse.csr_matrix, sparse.csr_matrix]:
    """(patients × labels) sparse (tp, predicted, gold) counts, patients in ``order``."""
    from scipy import sparse

    position = {s: i for i, s in enumerate(np.asarray(order).tolist())}
    to_subject = sparse.csr_matrix(
        (np.ones(len(subjects)), ([position[s] for s in subjects], np.arange(len(subjects)))),
        shape=(len(order), len(subjects)),
    )
    tp, pred, gl = label_indicators(gold_labels, rankings, vocab)
    return to_subject @ tp, to_subject @ pred, to_subject @ gl


def macro_replicates(
    gold: Sequence[Sequence[str]],
    predicted: Sequence[Sequence[str | None]],
    subjects: Sequence[int],
    order: np.ndarray,
    weights: np.ndarray,
    *,
    top_n: int = TOP_N,
    vocabulary: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """Macro P/R/F1 on each patient-bootstrap replicate (see :mod:`admitdx.metrics.bootstrap`).

    Per-label counts are summed per patient as sparse matrices, so a replicate costs one sparse
    product however large the label vocabulary.
    """
    gold_labels, rankings, vocab, _ = _prepare(gold, predicted, top_n, vocabulary)
    if not vocab:
        return {f"clinibench.{k}": np.full(weights.shape[0], np.nan) for k in MACRO_KEYS}
    tp, pred, gl = (
        np.asarray(m.T @ weights.T).T for m in _subject_counts(gold_labels, rankings, vocab, subjects, order)
    )
    return {f"clinibench.{k}": v for k, v in macro_from_counts(tp, pred, gl).items()}


def macro_jackknife(
    gold: Sequence[Sequence[str]],
    predicted: Sequence[Sequence[str | None]],
    subjects: Sequence[int],
    order: np.ndarray,
    *,
    top_n: int = TOP_N,
    vocabulary: Sequence[str] | None = None,
    block: int = 256,
) -> dict[str, np.ndarray]:
    """Macro P/R/F1 with each patient left out in turn (one value per patient of ``order``): the
    acceleration of the BCa interval (:mod:`admitdx.metrics.bca`). Counts are the totals minus
    one patient's row, ``block`` patients at a time (bounded memory for large vocabularies)."""
    gold_labels, rankings, vocab, _ = _prepare(gold, predicted, top_n, vocabulary)
    if not vocab:
        return {f"clinibench.{k}": np.full(len(order), np.nan) for k in MACRO_KEYS}
    counts = _subject_counts(gold_labels, rankings, vocab, subjects, order)
    totals = [np.asarray(m.sum(axis=0)).ravel() for m in counts]
    parts: dict[str, list[np.ndarray]] = {k: [] for k in MACRO_KEYS}
    for start in range(0, len(order), block):
        left = [t - m[start : start + block].toarray() for t, m in zip(totals, counts, strict=True)]
        for k, v in macro_from_counts(*left).items():
            parts[k].append(v)
    return {f"clinibench.{k}": np.concatenate(v) for k, v in parts.items()}


def clinibench_scores(
    gold: Sequence[Sequence[str]],
    predicted: Sequence[Sequence[str | None]],
    *,
    top_n: int = TOP_N,
    vocabulary: Sequence[str] | None = None,
    train_frequencies: Mapping[str, int] | None = None,
) -> dict[str, object]:
    """All CliniBench metrics for one system.

    ``gold``: each encounter's codes, main diagnosis first. ``predicted``: each encounter's codes in
    rank order (``None`` for an unmapped prediction). Codes are rolled up to 3 characters.
    ``train_frequencies`` sets the tertiles (default: gold frequencies of these encounters).
    """
    gold_labels, rankings, vocab, gold_freq = _prepare(gold, predicted, top_n, vocabulary)
    tp, pred, gl = (np.asarray(m.sum(axis=0)).ravel() for m in label_indicators(gold_labels, rankings, vocab))
    with_gold = [i for i, g in enumerate(gold_labels) if g]
    macro = macro_from_counts(tp, pred, gl) if vocab else {}
    out: dict[str, object] = {k: macro[k].item() if vocab else None for k in MACRO_KEYS}
    out["map"] = (
        float(np.mean([average_precision(gold_labels[i], rankings[i]) for i in with_gold]))
        if with_gold
        else None
    )
    out["main_diagnosis_accuracy"] = (
        float(np.mean([gold_labels[i][0] in rankings[i] for i in with_gold])) if with_gold else None
    )
    out["n_labels"] = len(vocab)
    out["top_n"] = top_n
    freq = train_frequencies if train_frequencies is not None else gold_freq
    index = {lab: j for j, lab in enumerate(vocab)}
    by_tertile: dict[str, dict[str, float | None]] = {}
    for name, labels in tertiles(vocab, freq).items():
        cols = [index[lab] for lab in labels]
        scores = macro_from_counts(tp[cols], pred[cols], gl[cols]) if cols else {}
        by_tertile[name] = {k: float(v) for k, v in scores.items()} | {"n_labels": len(cols)}
    out["tertiles"] = by_tertile
    return out


def length_edges(lengths: Sequence[int], bins: str | Sequence[int] = LENGTH_BINS) -> list[int]:
    """Inclusive upper edges of every length bin but the last (which is open above).

    ``"tertiles"``: the lengths at the ends of the first and second third of the sorted lengths
    (positions ceil(n/3) and ceil(2n/3)); encounters as long as an edge go to the lower bin, so
    ties can make bins unequal (two equal edges merge: two bins). A sequence: fixed ascending edges.
    """
    if isinstance(bins, str):
        if bins != "tertiles":
            raise UsageError(
                f"length bins must be 'tertiles' or ascending token edges, got {bins!r}",
                hint="e.g. tertiles, or 512,850 for ≤ 512, 513–850 and > 850 tokens",
            )
        ordered = sorted(lengths)
        n = len(ordered)
        return sorted({ordered[math.ceil(k * n / 3) - 1] for k in (1, 2)}) if n else []
    edges = [int(e) for e in bins]
    if any(b <= a for a, b in itertools.pairwise(edges)) or any(e < 0 for e in edges):
        raise UsageError(
            f"length bin edges must be ascending non-negative token counts, got {list(bins)}",
            hint="e.g. 512,850 for ≤ 512, 513–850 and > 850 tokens",
        )
    return edges


def parse_length_bins(text: str) -> str | tuple[int, ...]:
    """``--length-bins``: ``tertiles``, or comma-separated token edges such as ``512,850``
    (checked here, before any file is read)."""
    text = text.strip()
    if text == LENGTH_BINS:
        return LENGTH_BINS
    try:
        edges = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise UsageError(
            f"--length-bins must be 'tertiles' or comma-separated token counts, got {text!r}",
            hint="e.g. --length-bins 512,850 for ≤ 512, 513–850 and > 850 tokens",
        ) from None
    length_edges([], edges)
    return edges


def length_bin_labels(edges: Sequence[int]) -> list[str]:
    """``≤ 95``, ``96–120``, ``> 120`` for edges (95, 120)."""
    if not edges:
        return ["all"]
    inner = [f"{lo + 1}–{hi}" for lo, hi in itertools.pairwise(edges)]
    return [f"≤ {edges[0]}", *inner, f"> {edges[-1]}"]


def _micro(tp: float, pred: float, gold: float) -> dict[str, float | None]:
    p = tp / pred if pred else 0.0
    r = tp / gold if gold else None
    f = (2 * tp / (pred + gold)) if gold else None
    return {"micro_precision": p, "micro_recall": r, "micro_f1": f}


def _encounter_bins(
    gold: Sequence[Sequence[str]],
    predicted: Sequence[Sequence[str | None]],
    lengths: Sequence[int],
    edges: Sequence[int],
    top_n: int,
    vocabulary: Sequence[str] | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per encounter: (tp, predicted, gold) counts over the vocabulary, and its length bin."""
    gold_labels, rankings, vocab, _ = _prepare(gold, predicted, top_n, vocabulary)
    tp, pred, gl = (np.asarray(m.sum(axis=1)).ravel() for m in label_indicators(gold_labels, rankings, vocab))
    which = np.searchsorted(
        np.asarray(edges, dtype=np.int64), np.asarray(lengths, dtype=np.int64), side="left"
    )
    return tp, pred, gl, which


def micro_by_length(
    gold: Sequence[Sequence[str]],
    predicted: Sequence[Sequence[str | None]],
    lengths: Sequence[int],
    edges: Sequence[int],
    *,
    top_n: int = TOP_N,
    vocabulary: Sequence[str] | None = None,
) -> list[dict[str, object]]:
    """Micro P/R/F1 per length bin (figure 5), over the same vocabulary as the macro scores.

    One record per bin, shortest first: ``label``, ``n`` (encounters) and the micro scores; a bin
    without a gold label has no recall or F1 (None).
    """
    tp, pred, gl, which = _encounter_bins(gold, predicted, lengths, edges, top_n, vocabulary)
    out: list[dict[str, object]] = []
    for b, label in enumerate(length_bin_labels(edges)):
        rows = which == b
        n = int(rows.sum())
        micro = _micro(float(tp[rows].sum()), float(pred[rows].sum()), float(gl[rows].sum()))
        out.append({"label": label, "n": n} | (micro if n else dict.fromkeys(MICRO_KEYS)))
    return out


def length_bin_replicates(
    gold: Sequence[Sequence[str]],
    predicted: Sequence[Sequence[str | None]],
    lengths: Sequence[int],
    edges: Sequence[int],
    subjects: Sequence[int],
    order: np.ndarray,
    weights: np.ndarray,
    *,
    top_n: int = TOP_N,
    vocabulary: Sequence[str] | None = None,
) -> list[dict[str, np.ndarray]]:
    """Per length bin, micro P/R/F1 on each patient-bootstrap replicate. Micro scores are ratios
    of encounter sums, so a replicate is one product of the draw counts with per-patient sums
    (as :mod:`admitdx.metrics.bootstrap` does for MAP); a replicate without a gold label in a bin
    has no recall or F1 there (NaN), nor precision without a prediction."""
    from admitdx.metrics.bootstrap import subject_sums  # bootstrap imports nothing from here

    tp, pred, gl, which = _encounter_bins(gold, predicted, lengths, edges, top_n, vocabulary)
    n_bins = len(length_bin_labels(edges))
    columns = [c * (which == b) for b in range(n_bins) for c in (tp, pred, gl)]
    sums = weights @ subject_sums(subjects, np.column_stack(columns).astype(np.float64), order)
    out = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for b in range(n_bins):
            t, p, g = sums[:, 3 * b], sums[:, 3 * b + 1], sums[:, 3 * b + 2]
            out.append(
                {
                    # as the point: 0 without a prediction, undefined in a bin drawn empty
                    "micro_precision": np.where(p > 0, t / p, np.where(g > 0, 0.0, np.nan)),
                    "micro_recall": np.where(g > 0, t / g, np.nan),
                    "micro_f1": np.where(g > 0, 2 * t / (p + g), np.nan),
                }
            )
    return out
