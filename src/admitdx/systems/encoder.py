"""Encoder classifier: the multi-label head of :mod:`admitdx.systems.multilabel` on a fine-tuned
Hugging Face transformer encoder (EarlyDx's ClinicalBERT baseline, section 4.2; CliniBench's
BioMedBERT / GatorTronS, section 4.1).

``model_dir`` is a local directory holding any BERT-style checkpoint and its tokenizer
(ClinicalBERT, BioMedBERT, GatorTron, …); nothing is downloaded. The text is truncated to its first
``max_length`` tokens by default; ``max_chunks > 1`` reads up to that many overlapping windows and
max-pools the title logits (see :mod:`admitdx.systems.encoder_model`). Pooling is the [CLS] vector
(CliniBench's best settings mostly had mean pooling off) or ``pooling="mean"``.

Validation and model selection: in both emission modes the epoch with the best validation macro
AUROC is kept (CliniBench section 4.1; :mod:`admitdx.systems.encoder_model`), on the dataset's own
``val`` split by default (the model is then fine-tuned on the whole training split) or, with
``validation: carve`` or a dataset without ``val``, on ``validation_fraction`` of the training
patients held out (:class:`~admitdx.systems.multilabel.TakesValidation`). ``fit_summary`` records
``validation_source``, ``validation_auroc`` per epoch and ``chosen_epoch`` (1-based). Top-k mode
validates too — EarlyDx trains on the whole training split, but without a held-out set there is
nothing to select by. ``threshold`` mode then tunes its thresholds on the same validation
instances, with the chosen epoch's scores.

Codes: on a task scored on codes (CliniBench), every emitted item has ``PredictionItem.code``,
each learnt title's code from its training references (:mod:`admitdx.systems.multilabel`); on a
task judged on titles (EarlyDx) no code is emitted, as for TF-IDF.
``save_dir`` keeps the fine-tuned encoder (without its head) for CliniBench's latent few-shot
retriever (``retriever: latent``, :mod:`admitdx.retrieval.latent`).

Needs the ``encoder`` extra (``pip install 'admitdx[encoder]'``): torch and transformers are only
imported when the system is fitted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

from admitdx.contracts import Instance, Prediction
from admitdx.errors import UsageError
from admitdx.systems import register
from admitdx.systems.knn import scores_codes
from admitdx.systems.multilabel import (
    Emission,
    Emit,
    LabelSpace,
    TakesValidation,
    Validation,
    tune_thresholds,
)
from admitdx.tasks.spec import TaskSpec


@register("encoder", "fine-tuned BERT-style encoder from a local model_dir, multi-label head; top-2")
class EncoderClassifier(TakesValidation):
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
        validation: Validation = "split",
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
        task: TaskSpec | None = None,
    ) -> None:
        if model_dir is None or not Path(model_dir).expanduser().is_dir():
            raise UsageError(
                f"the encoder system needs model_dir, a local model directory (got {model_dir!r})",
                hint="set `model_dir: /path/to/ClinicalBERT` under this system in --config",
            )
        if pooling not in ("cls", "mean"):
            raise UsageError(f"pooling must be cls or mean (got {pooling!r})")
        if epochs < 1:
            raise UsageError(f"epochs must be at least 1 (got {epochs})")
        self.with_codes = scores_codes(task)
        self.model_dir = Path(model_dir).expanduser()
        self.emission = Emission([], emit=emit, k=k, max_items=max_items, rank_depth=rank_depth)
        super().__init__(validation, validation_fraction)
        self.min_label_count = min_label_count
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
        seed = self.training_options["seed"]
        fit_set, validation, source = self.split_for_validation(train, seed)
        labels = LabelSpace.from_instances(fit_set, self.min_label_count, with_codes=self.with_codes)
        self.head = EncoderHead(
            self.model_dir,
            len(labels.keys),
            pooling=self.pooling,
            windows=Windows(**self.window_options),
            device=self.device,
            seed=seed,
        )
        validation_truth = labels.indicator(validation)
        fitted = self.head.fit(
            [i.text for i in fit_set],
            labels.indicator(fit_set),
            Training(**self.training_options),
            ([i.text for i in validation], validation_truth),
        )
        self.emission.use(labels)
        if self.emission.emit == "threshold":
            self.emission.thresholds = tune_thresholds(fitted.validation_scores, validation_truth)
        self.fit_summary = {
            **labels.summary,
            "fitted_on": len(fit_set),
            "validation": len(validation),
            **source,
            "epoch_losses": [round(x, 6) for x in fitted.losses],
            "validation_auroc": fitted.validation_auroc,
            "chosen_epoch": fitted.chosen_epoch,
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


register("encoder-top20", "fine-tuned encoder, the 20 best-scoring codes/titles (CliniBench top-20)")(
    partial(EncoderClassifier, emit="top_k", k=20)
)
register("encoder-threshold", "fine-tuned encoder, per-title F1-tuned thresholds, at most 20 (CliniBench)")(
    partial(EncoderClassifier, emit="threshold")
)
