"""The ER-Reason tasks, one registered spec per (task, source): the answer kind, categories and
suite differ between tasks, and a spec has one of each. The family ``er-reason`` reaches them all
with the paper's one command, ``admitdx build er-reason --task X (--erreason DIR | --mimic ROOT)``;
the specs' own names (``er-reason-acuity``, ``er-reason-release-planning``) keep working."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from admitdx.tasks.build_notes import split_size_warning
from admitdx.tasks.erreason import mimic_tasks, release_tasks
from admitdx.tasks.erreason.levels import ACUITY_LEVELS, MIMIC_DISPOSITIONS, RELEASE_DISPOSITIONS
from admitdx.tasks.erreason.mimic_build import Variant, build_variant
from admitdx.tasks.erreason.params import ErReasonMimicParams
from admitdx.tasks.erreason.release_build import ReleaseParams, ReleaseTask, build_release_task
from admitdx.tasks.family import TaskFamily, register_family
from admitdx.tasks.registry import register
from admitdx.tasks.spec import AnswerKind, TaskSpec

PROMPTS = Path(__file__).parent / "prompts"


def _report(outputs: dict[str, Any], params: Any) -> list[str]:
    c = outputs["counts"]
    test = c.get("test_instances", 0)
    lines = [
        f"[green]{outputs['task']}[/] {c.get('ed_stays', c.get('encounters'))} stays → "
        f"{c['instances']} instances ({c.get('train_instances', 0)} train / {test} test)"
    ]
    left = {
        k.removeprefix("cut_at_").removeprefix("left_out_").removeprefix("excluded_"): v
        for k, v in c.items()
        if k in ("cut_at_no_heading", "cut_at_empty_note") or k.startswith(("left_out_", "excluded_"))
    }
    if any(left.values()):  # issue 29: every reason an encounter was left out, with its count
        lines.append(
            "left out: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(left.items()) if v)
        )
    warning = split_size_warning(test, c.get("test_subjects", 0))
    return lines + ([warning] if warning else [])


def _spec(
    name: str, build: Any, schema: Any, summary: str, answer: AnswerKind, suite: str, prompt: str, **kw: Any
) -> TaskSpec:
    return register(
        TaskSpec(
            name=name,
            summary=summary,
            build=build,
            answer=answer,
            suite=suite,
            schema=schema,
            prompt_dir=PROMPTS,
            prompt=prompt,
            report_build=_report,
            **kw,
        )
    )


def _mimic_spec(v: Variant, *args: Any, **kw: Any) -> TaskSpec:
    build = functools.partial(build_variant, v)
    example = f"admitdx build {v.task} --mimic ../shared/data/mimic-iv-demo --out data/{v.task}"
    return _spec(v.task, build, v.schema, *args, params=ErReasonMimicParams, example=example, **kw)


def _release_spec(t: ReleaseTask, *args: Any, **kw: Any) -> TaskSpec:
    return _spec(
        t.task,
        functools.partial(build_release_task, t),
        t.schema,
        *args,
        params=ReleaseParams,
        source_option="erreason",
        source_help="ER-Reason release folder: er_reason.csv, icd_10_codes.csv (credentialed).",
        example=f"admitdx build {t.task} --erreason ER-REASON-DIR --out data/{t.task}",
        **kw,
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


RELEASE_ACUITY = _release_spec(
    release_tasks.ACUITY,
    "ER-Reason task 1 (release): acuity from chief complaint, age, sex, race, triage-line vitals",
    "category",
    "category",
    "acuity.v1",
    categories=ACUITY_LEVELS,
    ordinal=True,
)
RELEASE_ONE_LINER = _release_spec(
    release_tasks.ONE_LINER,
    "ER-Reason task 2 (release): one-liner from the last discharge summary and the chief complaint",
    "text",
    "text",
    "one_liner.v1",
)
RELEASE_PLANNING = _release_spec(
    release_tasks.PLANNING,
    "ER-Reason task 3 (release): rule-out, decision factors, treatment plan (physician rationales)",
    "text",
    "text",
    "planning.v3",
    part_records=release_tasks.part_records,
)
RELEASE_DIAGNOSIS = _release_spec(
    release_tasks.DIAGNOSIS,
    'ER-Reason task 4 (release): final diagnosis, ICD-10 "CODE NAME"',
    "diagnoses",
    "final_diagnosis",
    "diagnosis.v1",
)
RELEASE_DISPOSITION = _release_spec(
    release_tasks.DISPOSITION,
    "ER-Reason task 5 (release): disposition from the note cut before its disposition, redacted",
    "category",
    "category",
    "disposition.v1",
    categories=RELEASE_DISPOSITIONS,
)


FAMILY = register_family(
    TaskFamily(
        name="er-reason",
        summary="ER-Reason (Mehandru et al. 2025): one of its five ER-workflow tasks, from the release "
        "(--erreason) or adapted to MIMIC-IV-ED (--mimic)",
        example="admitdx build er-reason --task acuity --mimic ../shared/data/mimic-iv-demo "
        "--out data/er-reason-acuity",
        members={
            "acuity": {"erreason": RELEASE_ACUITY, "mimic": ACUITY},
            "one-liner": {"erreason": RELEASE_ONE_LINER, "mimic": ONE_LINER},
            "planning": {"erreason": RELEASE_PLANNING},
            "diagnosis": {"erreason": RELEASE_DIAGNOSIS, "mimic": DIAGNOSIS},
            "disposition": {"erreason": RELEASE_DISPOSITION, "mimic": DISPOSITION},
        },
        unavailable={
            ("planning", "mimic"): "its targets are the release's physician rationales (Rule_Out, "
            "Decision_Factors, Treatment_Plan), which MIMIC-IV has no equivalent of",
        },
    )
)
