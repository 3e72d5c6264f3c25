"""Encoder classifier: the multi-label head of :mod:`admitdx.systems.multilabel` on a fine-tuned
Hugging Face transformer encoder (EarlyDx's ClinicalBERT baseline, section 4.2; CliniBench's
BioMedBERT / GatorTronS, section 4.1).

``model_dir`` is a local directory holding any BERT-style checkpoint and its tokenizer
(ClinicalBERT, BioMedBERT, GatorTron, …); nothing is downloaded. The text is truncated to its first
``max_length`` tokens by default; ``max_chunks > 1`` reads up to that many overlapping windows and
max-pools the title logits (see :mod:`admitdx.systems.encoder_model`). Pooling is the [CLS] vector
(CliniBench's best settings mostly had mean pooling off) or ``pooling="mean"``. In ``threshold``
mode the model is fine-tuned on the training split minus the carved validation patients.
``save_dir`` keeps the fine-tuned encoder (without its head) for CliniBench's latent few-shot
retriever (``retriever: latent``, :mod:`admitdx.retrieval.latent`).

Needs the ``encoder`` extra (``pip install 'admitdx[encoder]'``): torch and transformers are only
imported when the system is fitted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from admitdx.contracts import Instance, Prediction
from admitdx.errors import UsageError
from admitdx.systems import register
from admitdx.systems.multilabel import Emission, Emit, LabelSpace, carve_validation, tune_thresholds


@register("encoder", "fine-tuned BERT-style encoder from a local model_dir, multi-label head; top-2")
class EncoderClassifier:
    name = "encoder"

    def __init__(
        self,
        *,
        model_dir: str | Path | None = None,
        emit: Emit = "top_k",
        k: int = 2,
        max_items: int = 20,
        rank_depth: int = 20,
        min_label_count: int = 3,
        validation_fraction: float = 0.1,
        max_length: int = 512,
        max_chunks: int = 1,
        stride: int = 64,
        pooling: str = "cls",
        epochs: int = 3,
        batch_size: int = 16,
        learning_rate: float = 2e-5,
        weight_decay: float = 0.01,
        warmup_ratio: float = 0.1,
        seed: int = 0,
        device: str | None = None,
        save_dir: str | Path | None = None,
    ) -> None:
        if model_dir is None or not Path(model_dir).expanduser().is_dir():
            raise UsageError(
                f"the encoder system needs model_dir, a local model directory (got {model_dir!r})",
                hint="set `model_dir: /path/to/ClinicalBERT` under this system in --config",
            )
        if pooling not in ("cls", "mean"):
            raise UsageError(f"pooling must be cls or mean (got {pooling!r})")
        self.model_dir = Path(model_dir).expanduser()
        self.emission = Emission([], emit=emit, k=k, max_items=max_items, rank_depth=rank_depth)
        self.min_label_count, self.validation_fraction = min_label_count, validation_fraction
        self.pooling, self.device = pooling, device
        self.save_dir = Path(save_dir).expanduser() if save_dir else None
        self.window_options = {"max_length": max_length, "max_chunks": max_chunks, "stride": stride}
        self.training_options = {
            "epochs": epochs,
            "batch_size": batch_size,
            "learning_rate": learning_rate,
            "weight_decay": weight_decay,
            "warmup_ratio": warmup_ratio,
            "seed": seed,
        }
        self.head: Any = None
        self.fit_summary: dict[str, Any] = {}

    def fit(self, train: list[Instance]) -> None:
        try:
            from admitdx.systems.encoder_model import EncoderHead, Training, Windows
        except ImportError as e:
            raise UsageError(
                "the encoder system needs torch and transformers", hint="pip install 'admitdx[encoder]'"
            ) from e
        fit_set, validation = train, []
        seed = self.training_options["seed"]
        if self.emission.emit == "threshold":
            fit_set, validation = carve_validation(train, self.validation_fraction, seed)
        labels = LabelSpace.from_instances(fit_set, self.min_label_count)
        self.head = EncoderHead(
            self.model_dir,
            len(labels.keys),
            pooling=self.pooling,
            windows=Windows(**self.window_options),
            device=self.device,
            seed=seed,
        )
        losses = self.head.fit(
            [i.text for i in fit_set], labels.indicator(fit_set), Training(**self.training_options)
        )
        self.emission.titles = labels.titles
        if validation:
            scores = self.head.scores([i.text for i in validation], self.training_options["batch_size"])
            self.emission.thresholds = tune_thresholds(scores, labels.indicator(validation))
        self.fit_summary = {
            **labels.summary,
            "fitted_on": len(fit_set),
            "validation": len(validation),
            "epoch_losses": [round(x, 6) for x in losses],
            "device": str(self.head.device),
        }
        if self.save_dir is not None:
            self.head.save(self.save_dir)
            self.fit_summary["saved_to"] = str(self.save_dir)

    def predict(self, instances: Iterable[Instance]) -> Iterator[Prediction]:
        stream = iter(instances)
        batch_size = self.training_options["batch_size"]
        while batch := list(islice(stream, batch_size)):
            for inst, row in zip(batch, self.head.scores([i.text for i in batch], batch_size), strict=True):
                items, raw = self.emission.items(row)
                yield Prediction(instance_id=inst.id, system=self.name, items=items, raw=raw)
