"""The torch side of the encoder classifier: a transformer encoder with a linear multi-label head,
its training loop and its scoring. Imported only when an encoder system is fitted (optional extra).

Long texts: the tokenizer cuts each text into windows of ``max_length`` tokens that overlap by
``stride`` tokens, keeping at most ``max_chunks`` windows from the start; a title's logit for the
text is the maximum over its windows (a finding anywhere in the kept windows can raise a title).
``max_chunks = 1`` is plain truncation to the first ``max_length`` tokens.

Model selection (CliniBench section 4.1): after every epoch the model is scored on the validation
texts by macro AUROC (:func:`~admitdx.systems.multilabel.macro_auroc`); the weights of the best
epoch (ties: the earliest) are kept in memory (copied to the CPU) and restored when training ends.
When AUROC is undefined (no validation label has both classes) the last epoch is kept.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn
from transformers import AutoModel, AutoTokenizer, get_polynomial_decay_schedule_with_warmup

from admitdx.retrieval.latent import pool, write_encoder_config
from admitdx.systems.multilabel import macro_auroc


@dataclass(frozen=True)
class Training:
    """CliniBench (section 4.1, table 6) fine-tunes with AdamW and a polynomial learning-rate decay
    after warm-up, with hyperparameters searched per dataset; the defaults here are the usual BERT
    fine-tuning values, not a search result."""

    epochs: int = 3
    batch_size: int = 16
    learning_rate: float = 2e-5
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    seed: int = 0


@dataclass(frozen=True)
class Fitted:
    """What training did: per epoch, the mean training loss and the validation macro AUROC (None
    where undefined); the kept epoch (1-based) and its validation scores (n × labels)."""

    losses: list[float]
    validation_auroc: list[float | None]
    chosen_epoch: int
    validation_scores: np.ndarray


@dataclass(frozen=True)
class Windows:
    max_length: int = 512
    max_chunks: int = 1
    stride: int = 64


class MultiLabelEncoder(nn.Module):
    def __init__(self, model_dir: Path, n_labels: int, pooling: str) -> None:
        super().__init__()
        self.encoder = AutoModel.from_pretrained(model_dir)
        self.head = nn.Linear(self.encoder.config.hidden_size, n_labels)
        self.pooling = pooling

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, owner: torch.Tensor, n_texts: int
    ) -> torch.Tensor:
        """Logits per text: windows are encoded, pooled, scored, then max-pooled per owning text."""
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        window_logits = self.head(pool(hidden, attention_mask, self.pooling))
        out = torch.full(
            (n_texts, window_logits.shape[1]),
            float("-inf"),
            device=window_logits.device,
            dtype=window_logits.dtype,
        )
        index = owner.unsqueeze(1).expand_as(window_logits)
        return out.scatter_reduce(0, index, window_logits, reduce="amax")


class EncoderHead:
    """Tokenizer + model + device, with fit and score over lists of texts."""

    def __init__(
        self, model_dir: Path, n_labels: int, *, pooling: str, windows: Windows, device: str | None, seed: int
    ):
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        torch.manual_seed(seed)  # the new head's initial weights: same seed, same model
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = MultiLabelEncoder(model_dir, n_labels, pooling).to(self.device)
        self.windows = windows

    def _batch(self, texts: Sequence[str]) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        w = self.windows
        windowed = w.max_chunks > 1
        enc = self.tokenizer(
            list(texts),
            truncation=True,
            max_length=w.max_length,
            padding=True,
            return_overflowing_tokens=windowed,
            stride=w.stride if windowed else 0,
            return_tensors="pt",
        )
        owner = enc.pop("overflow_to_sample_mapping", torch.arange(len(texts)))
        keep = torch.ones_like(owner, dtype=torch.bool)
        seen: dict[int, int] = {}
        for i, o in enumerate(owner.tolist()):  # at most max_chunks windows per text, from its start
            seen[o] = seen.get(o, 0) + 1
            keep[i] = seen[o] <= w.max_chunks
        inputs = {k: enc[k][keep].to(self.device) for k in ("input_ids", "attention_mask")}
        return inputs, owner[keep].to(self.device)

    def fit(
        self,
        texts: Sequence[str],
        truth: np.ndarray,
        training: Training,
        validation: tuple[Sequence[str], np.ndarray],
    ) -> Fitted:
        """Fine-tune encoder and head, keeping the epoch with the best validation macro AUROC."""
        random.seed(training.seed)
        torch.manual_seed(training.seed)
        steps = training.epochs * -(-len(texts) // training.batch_size)
        optimizer = torch.optim.AdamW(
            self.model.parameters(), lr=training.learning_rate, weight_decay=training.weight_decay
        )
        warmup = int(training.warmup_ratio * steps)
        schedule = get_polynomial_decay_schedule_with_warmup(optimizer, warmup, steps)
        loss_fn = nn.BCEWithLogitsLoss()
        targets = torch.as_tensor(truth, dtype=torch.float32)
        validation_texts, validation_truth = validation
        losses: list[float] = []
        aurocs: list[float | None] = []
        best: tuple[int, float | None, np.ndarray, dict[str, torch.Tensor] | None] | None = None
        for epoch in range(1, training.epochs + 1):
            self.model.train()
            order = list(range(len(texts)))
            random.shuffle(order)
            total = 0.0
            for start in range(0, len(order), training.batch_size):
                idx = order[start : start + training.batch_size]
                inputs, owner = self._batch([texts[i] for i in idx])
                logits = self.model(**inputs, owner=owner, n_texts=len(idx))
                loss = loss_fn(logits, targets[idx].to(self.device))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                schedule.step()
                total += loss.item() * len(idx)
            losses.append(total / len(texts))
            scores = self.scores(validation_texts, training.batch_size)
            auroc = macro_auroc(scores, validation_truth)
            aurocs.append(None if auroc is None else round(auroc, 6))
            if best is None or best[1] is None or (aurocs[-1] is not None and aurocs[-1] > best[1]):
                # the last epoch's weights are the model's own: copy only an earlier epoch's
                weights = None if epoch == training.epochs else self._snapshot()
                best = (epoch, aurocs[-1], scores, weights)
        assert best is not None, "training runs at least one epoch"
        chosen, _, scores, weights = best
        if weights is not None:
            self.model.load_state_dict(weights)
        return Fitted(losses, aurocs, chosen, scores)

    def _snapshot(self) -> dict[str, torch.Tensor]:
        return {k: v.detach().to("cpu", copy=True) for k, v in self.model.state_dict().items()}

    def save(self, folder: Path) -> None:
        """The fine-tuned encoder and its tokenizer (no head), with how it pools and truncates: what
        the latent retriever (:mod:`admitdx.retrieval.latent`) loads."""
        folder.mkdir(parents=True, exist_ok=True)
        self.model.encoder.save_pretrained(folder)
        self.tokenizer.save_pretrained(folder)
        write_encoder_config(folder, pooling=self.model.pooling, max_length=self.windows.max_length)

    @torch.no_grad()
    def scores(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """(n × labels) sigmoid probabilities."""
        self.model.eval()
        out = []
        for start in range(0, len(texts), batch_size):
            chunk = texts[start : start + batch_size]
            inputs, owner = self._batch(chunk)
            logits = self.model(**inputs, owner=owner, n_texts=len(chunk))
            out.append(torch.sigmoid(logits).float().cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, self.model.head.out_features), dtype=np.float32)
