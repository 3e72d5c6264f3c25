"""The ER-Reason tasks, one registered spec per (task, source): the answer kind, categories and
suite differ between tasks, and a spec has one of each, so ``er-reason --task X`` is spelled
``er-reason-X`` here (``admitdx build er-reason-acuity --mimic ROOT``)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from admitdx.tasks.erreason import mimic_tasks
from admitdx.tasks.erreason.levels import ACUITY_LEVELS, MIMIC_DISPOSITIONS
from admitdx.tasks.erreason.mimic_build import Variant, build_variant
from admitdx.tasks.erreason.params import ErReasonMimicParams
from admitdx.tasks.registry import register
from admitdx.tasks.spec import AnswerKind, TaskSpec

PROMPTS = Path(__file__).parent / "prompts"


def _report(outputs: dict[str, Any], params: Any) -> list[str]:
    c = outputs["counts"]
    return [
        f"[green]{outputs['task']}[/] {c['ed_stays']} ED stays → {c['instances']} instances "
        f"({c.get('train_instances', 0)} train / {c.get('test_instances', 0)} test)"
    ]


def _mimic_spec(v: Variant, summary: str, answer: AnswerKind, suite: str, prompt: str, **kw: Any) -> TaskSpec:
    return register(
        TaskSpec(
            name=v.task,
            summary=summary,
            params=ErReasonMimicParams,
            build=functools.partial(build_variant, v),
            answer=answer,
            suite=suite,
            schema=v.schema,
            prompt_dir=PROMPTS,
            prompt=prompt,
            example=f"admitdx build {v.task} --mimic ../shared/data/mimic-iv-demo --out data/{v.task}",
            report_build=_report,
            **kw,
        )
    )


ACUITY = _mimic_spec(
    mimic_tasks.ACUITY,
    "ER-Reason task 1 on MIMIC-IV-ED: ESI acuity from chief complaint, triage vitals, demographics",
    "category",
    "category",
    "acuity.v1",
    categories=ACUITY_LEVELS,
    ordinal=True,
    leaky_meta=("acuity", "disposition"),
)
DISPOSITION = _mimic_spec(
    mimic_tasks.DISPOSITION,
    "ER-Reason task 5 on MIMIC-IV-ED: ED disposition from triage and the ED course before departure",
    "category",
    "category",
    "disposition.v1",
    categories=MIMIC_DISPOSITIONS,
    leaky_meta=("disposition",),
)
DIAGNOSIS = _mimic_spec(
    mimic_tasks.DIAGNOSIS,
    "ER-Reason task 4 on MIMIC-IV-ED: final ED diagnosis (ed/diagnosis, ICD-9 and ICD-10)",
    "diagnoses",
    "final_diagnosis",
    "diagnosis.v1",
)
ONE_LINER = _mimic_spec(
    mimic_tasks.ONE_LINER,
    "ER-Reason task 2 on MIMIC-IV(-Note): one-liner from the previous discharge summary",
    "text",
    "text",
    "one_liner.v1",
)
