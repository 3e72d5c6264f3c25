"""Small hand-made datasets for the systems tests: Instances written with the contracts."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

from admitdx.contracts import INSTANCES_FILE, Instance, Reference
from admitdx.jsonl import write_jsonl


def instance(iid: str, split: str, text: str, labels: list[str], subject_id: int | None = None) -> Instance:
    return Instance(
        id=iid,
        subject_id=subject_id if subject_id is not None else zlib.crc32(iid.encode()) % 100_000,
        task="earlydx",
        split=split,
        sections={"chief_complaint": text},
        text=text,
        references=[Reference(text=t) for t in labels],
    )


def write_dataset(directory: Path, instances: list[Instance]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    write_jsonl(directory / INSTANCES_FILE, (i.to_dict() for i in instances))
    return directory


FILLER = [
    "patient",
    "presents",
    "with",
    "complaint",
    "noted",
    "on",
    "exam",
    "vitals",
    "stable",
    "labs",
    "pending",
    "reports",
    "history",
]


def planted_encounters(n: int, split: str, seed: int, at_end: bool = False) -> list[Instance]:
    """Each encounter has 30 filler words; 'zebrafinch' is written in a third of them (at a random
    place, or last) and always comes with the label "Planted disease"; every encounter also has one
    of three noise labels at random."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = rng.choices(FILLER, k=30)
        labels = [rng.choice(["Noise A", "Noise B", "Noise C"])]
        if i % 3 == 0:
            words.insert(len(words) if at_end else rng.randrange(len(words)), "zebrafinch")
            labels.append("Planted disease")
        out.append(instance(f"{split}{i}", split, " ".join(words), labels, subject_id=seed * 10_000 + i))
    return out


def write_tiny_bert(folder: Path) -> Path:
    """A randomly initialised 2-layer BERT (hidden size 32) whose vocabulary is FILLER + zebrafinch,
    saved with its tokenizer like any local checkpoint. Also limits torch to one thread: a tiny
    model on a shared 2-core machine only loses time to thread contention."""
    import torch
    import transformers

    torch.set_num_threads(1)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *FILLER, "zebrafinch"]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    transformers.BertTokenizerFast(vocab_file=str(folder / "vocab.txt")).save_pretrained(folder)
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    transformers.set_seed(0)
    transformers.BertModel(config).save_pretrained(folder)
    return folder
