"""Latent outcome similarity: CliniBench's retriever on the fine-tuned encoder (section 4.3, tables 3
and 8, "BioMedBERT_ft"): cosine similarity of the encoder's pooled representation of each note.

The paper's reasoning: an encoder fine-tuned to predict the diagnoses places notes with similar
outcomes near each other, so its [CLS] vector retrieves by outcome rather than by wording. The
model is the one the ``encoder`` system fine-tunes: run it with ``save_dir: DIR`` and point this
retriever at that folder (``retriever_options: {model_dir: DIR}``). The folder holds the encoder
and tokenizer as ``save_pretrained`` writes them and :data:`ENCODER_CONFIG`, which records the
pooling (``cls`` or ``mean``) and truncation length the encoder was trained with; those are the
defaults here, so the representation is the one the classification head read. Any other local
BERT-style checkpoint works too (then [CLS] and 512 tokens unless set). Nothing is downloaded.

Texts are truncated to their first ``max_length`` tokens, as the paper's 512-token encoders were.
Search is exact, as in :class:`~admitdx.retrieval.dense.DenseRetriever` (this class is that
retriever with the fine-tuned encoder as its embedder).

Needs the ``encoder`` extra (torch, transformers), imported when the retriever is built.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

from admitdx.errors import UsageError
from admitdx.retrieval.dense import DenseRetriever

#: Written beside a fine-tuned encoder by the encoder system: how it pooled and truncated.
ENCODER_CONFIG = "admitdx_encoder.json"
POOLINGS = ("cls", "mean")


def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, pooling: str) -> torch.Tensor:
    """One vector per sequence: the first ([CLS]) position, or the mean over real tokens."""
    if pooling == "mean":
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
    return hidden[:, 0]


def write_encoder_config(folder: Path, *, pooling: str, max_length: int, **extra: Any) -> None:
    """Record how a saved encoder pools and truncates (read back by :class:`LatentRetriever`)."""
    record = {"pooling": pooling, "max_length": max_length, **extra}
    (Path(folder) / ENCODER_CONFIG).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


class EncoderEmbedder:
    """L2-normalised pooled vectors of a local encoder (the ``Embedder.encode`` interface)."""

    def __init__(
        self,
        model_dir: str | Path | None,
        *,
        pooling: str | None = None,
        max_length: int | None = None,
        batch_size: int = 32,
        device: str | None = None,
    ) -> None:
        folder = Path(model_dir or "").expanduser()
        if model_dir is None or not folder.is_dir():
            raise UsageError(
                f"the latent retriever needs model_dir, a local encoder directory (got {model_dir!r})",
                hint="fine-tune one with the encoder system and `save_dir: DIR`, then set "
                "`retriever_options: {model_dir: DIR}`",
            )
        saved_path = folder / ENCODER_CONFIG
        saved = json.loads(saved_path.read_text(encoding="utf-8")) if saved_path.is_file() else {}
        self.pooling = pooling or saved.get("pooling", "cls")
        if self.pooling not in POOLINGS:
            raise UsageError(f"pooling must be cls or mean (got {self.pooling!r})")
        self.max_length = int(max_length or saved.get("max_length", 512))
        self.batch_size = batch_size
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModel.from_pretrained(folder).to(self.device).eval()

    @torch.no_grad()
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = []
        for start in range(0, len(texts), self.batch_size):
            enc = self.tokenizer(
                list(texts[start : start + self.batch_size]),
                truncation=True,
                max_length=self.max_length,
                padding=True,
                return_tensors="pt",
            )
            ids, mask = enc["input_ids"].to(self.device), enc["attention_mask"].to(self.device)
            hidden = self.model(input_ids=ids, attention_mask=mask).last_hidden_state
            vectors = torch.nn.functional.normalize(pool(hidden, mask, self.pooling).float(), dim=-1)
            out.append(vectors.cpu().numpy())
        width = self.model.config.hidden_size
        return np.concatenate(out) if out else np.zeros((0, width), dtype=np.float32)


class LatentRetriever(DenseRetriever):
    kind = "latent"

    def __init__(
        self,
        *,
        model_dir: str | Path | None = None,
        pooling: str | None = None,
        max_length: int | None = None,
        batch_size: int = 32,
        device: str | None = None,
    ) -> None:
        embedder = EncoderEmbedder(
            model_dir, pooling=pooling, max_length=max_length, batch_size=batch_size, device=device
        )
        super().__init__(embedder=embedder)  # type: ignore[arg-type]  # same encode() interface
