"""Precision, recall and agreement of every offline matcher on an adjudicated pair file.

Usage:
    python bench/bench_matcher_agreement.py tests/data/blind/pairs/pairs_dev.jsonl
    python bench/bench_matcher_agreement.py tests/data/blind/pairs/pairs_dev.jsonl --errors guarded
    python bench/bench_matcher_agreement.py PAIRS --matchers exact embedding
    python bench/bench_matcher_agreement.py tests/data/blind/pairs3/pairs_heldout3.jsonl \
        --exclude tests/data/blind/pairs/*.jsonl tests/data/blind/pairs2/*.jsonl

Each pair is matched on its own (one prediction, one reference carrying its ICD code when the file
gives one); "matched" means the matcher paired them. Precision = matched pairs labelled same /
matched pairs; recall = same pairs matched / same pairs; agreement = pairs where the matcher and
the label agree / all pairs. ``--errors NAME`` lists that matcher's false matches and misses with
the pair's class (use it on the dev file only: the held-out file is read once, at the end, and
never by eye). ``--exclude FILES`` leaves out the pairs (same prediction and reference, any case)
that those files hold, so a later blind set is measured on the pairs the matcher was never
developed on. ``--by-class`` prints each matcher's agreement per pair class. ``--record`` writes
the figures of the matchers other than ``guarded`` (whose calibration records its own) into
``src/admitdx/matching/data/adjudicated_scores.json``, which every report quotes for a run with
those matchers' default parameters: record them on the dev file.

``--second-labels FILES`` (an even number of files, ``{"id", "label"}`` per line, each written blind by
another labeller who saw neither the code nor the first labels) adds the adjudicated view: each
labeller's agreement with the writer (share and Cohen's kappa), and every matcher's precision and
recall against the majority of the labels and on the pairs all labellers agree on.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from sklearn.metrics import cohen_kappa_score

from admitdx.embeddings import Embedder
from admitdx.matching import MATCHERS, create_matcher
from admitdx.matching.adjudicated import (
    PairScores,
    majority,
    matcher_verdicts,
    read_pairs,
    read_second_labels,
)
from admitdx.matching.quality import SCORES_FILE
from admitdx.runs import sha256_file

OFFLINE = ("exact", "icd", "embedding", "guarded")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", type=Path)
    parser.add_argument("--matchers", nargs="+", default=[m for m in OFFLINE if m in MATCHERS])
    parser.add_argument("--errors", default=None, help="list this matcher's disagreements with the labels")
    parser.add_argument("--by-class", action="store_true")
    parser.add_argument("--exclude", nargs="+", type=Path, default=[], help="drop pairs these files hold")
    parser.add_argument("--record", action="store_true", help=f"write the figures to {SCORES_FILE.name}")
    parser.add_argument("--second-labels", nargs="+", type=Path, default=[],
                        help="blind labels by other labellers (an even number of files)")  # fmt: skip
    args = parser.parse_args()
    if len(args.second_labels) % 2:
        parser.error("--second-labels needs an even number of files, so that the labels have a majority")
    pairs = read_pairs(args.pairs)
    seen = {(p.prediction.lower(), p.reference.lower()) for f in args.exclude for p in read_pairs(f)}
    if seen:
        kept = [p for p in pairs if (p.prediction.lower(), p.reference.lower()) not in seen]
        print(f"left out {len(pairs) - len(kept)} pairs that {len(args.exclude)} earlier file(s) hold")
        pairs = kept
    truth = [p.same for p in pairs]
    print(f"{args.pairs}: {len(pairs)} pairs, {sum(truth)} labelled same")
    embedder = Embedder(precision="float32")  # one model for every matcher that embeds
    version = f"{args.pairs.name}@{sha256_file(args.pairs)[:12]} ({len(pairs)} pairs)"
    recorded: dict[str, dict] = {}
    every_verdict: dict[str, list[bool]] = {}
    header = ("matcher", "precision", "recall", "agreement", "matched", "false", "s")
    print(f"{header[0]:<10} " + " ".join(f"{h:>9}" for h in header[1:]))
    for name in args.matchers:
        params = {} if name == "exact" else {"embedder": embedder}
        matcher = create_matcher(name, **params)
        start = time.perf_counter()
        verdicts = every_verdict[name] = matcher_verdicts(matcher, pairs)
        took = time.perf_counter() - start
        s = PairScores.of(truth, verdicts)
        print(
            f"{name:<10} {s.precision:>9.3f} {s.recall:>9.3f} {s.agreement:>9.3f} {s.matched:>9} "
            f"{s.matched - s.true_matches:>9} {took:>9.1f}"
        )
        if name != "guarded":
            recorded[name] = {"params": matcher.params(), "precision": s.precision, "recall": s.recall,
                              "agreement": s.agreement, "set_version": version}  # fmt: skip
        if args.by_class:
            by: dict[str, list[bool]] = defaultdict(list)
            for p, v in zip(pairs, verdicts, strict=True):
                by[p.kind].append(p.same == v)
            for kind, oks in sorted(by.items()):
                print(f"    {kind:<28} {sum(oks):>3}/{len(oks):<3}")
        if name == args.errors:
            for p, v in zip(pairs, verdicts, strict=True):
                if p.same != v:
                    what = "FALSE MATCH" if v else "MISS"
                    print(f"  {what:<11} [{p.kind}] {p.prediction!r} ~ {p.reference!r} ({p.code or '-'})")
    if args.second_labels:
        _adjudicated(truth, [read_second_labels(f, pairs) for f in args.second_labels], args.second_labels,
                     every_verdict)  # fmt: skip
    if args.record:
        SCORES_FILE.write_text(json.dumps(recorded, indent=2, default=str) + "\n", encoding="utf-8")
        print(f"recorded → {SCORES_FILE}")


def _adjudicated(
    writer: list[bool], others: list[list[bool]], files: list[Path], verdicts: dict[str, list[bool]]
) -> None:
    """Agreement of each second labeller with the writer, then each matcher against the majority label
    and on the pairs every labeller agrees on."""
    print("\nsecond labeller                          agrees with writer  Cohen's kappa")
    for f, labels in zip(files, others, strict=True):
        share = sum(a == b for a, b in zip(writer, labels, strict=True)) / len(writer)
        print(f"  {str(f)[-40:]:<40} {share:>17.3f} {cohen_kappa_score(writer, labels):>14.3f}")
    adjudicated = majority(writer, *others)
    unanimous = [i for i, votes in enumerate(zip(writer, *others, strict=True)) if len(set(votes)) == 1]
    print(f"majority label: {sum(adjudicated)} same of {len(writer)} "
          f"({sum(a != w for a, w in zip(adjudicated, writer, strict=True))} differ from the writer's); "
          f"unanimous on {len(unanimous)}")  # fmt: skip
    print(f"{'matcher':<10} {'majority P':>11} {'R':>7} {'unanimous P':>12} {'R':>7}")
    for name, v in verdicts.items():
        m = PairScores.of(adjudicated, v)
        u = PairScores.of([writer[i] for i in unanimous], [v[i] for i in unanimous])
        print(f"{name:<10} {m.precision:>11.3f} {m.recall:>7.3f} {u.precision:>12.3f} {u.recall:>7.3f}")


if __name__ == "__main__":
    main()
