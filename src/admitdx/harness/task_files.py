"""The harness's own task files beside an export's ``calls.jsonl`` and header: a few lines each, the
work being in :mod:`admitdx.harness.inspect_task` and :mod:`admitdx.harness.lmeval_task`, so the
exported task runs wherever admitdx is installed with ``admitdx[harness]``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from admitdx.errors import UsageError
from admitdx.harness.calls import Call
from admitdx.harness.logs import HEADER_KEY
from admitdx.harness.quick_score import METRIC
from admitdx.jsonl import write_jsonl

LMEVAL_DOCS = "lmeval_docs.jsonl"


class _Function(str):
    """A YAML ``!function utils.NAME`` (lm-eval's tag for a Python function beside the YAML)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Function, lambda d, v: d.represent_scalar("!function", f"utils.{v}"))

_INSPECT_FILE = '''"""Inspect AI task exported by admitdx: {task}, system {system} ({kind}), {calls} calls.

The prompts are the ones `admitdx predict` sends (calls.jsonl); admitdx_export.json records the
dataset's fingerprint. {data}

    inspect eval {file} --model MODEL
    admitdx import inspect LOGS/….eval --dataset DATASET --out PREDICTIONS

The score `{metric}` is a quick look, not the paper's metric: score with admitdx after the import.
"""

from pathlib import Path

from inspect_ai import task

from admitdx.harness.inspect_task import exported_task


@task
def {name}(structured: bool = True):
    return exported_task(Path(__file__).parent, structured=structured)
'''

_UTILS_FILE = '''"""lm-evaluation-harness functions of the admitdx export of {task} (see {yaml}). {data}"""

from admitdx.harness.lmeval_task import (  # noqa: F401
    ExemplarTurns,
    doc_to_target,
    doc_to_text,
    process_results,
    turn_answer,
    turn_text,
)
'''


def task_name(header: dict[str, Any]) -> str:
    return f"admitdx_{header['task'].replace('-', '_')}_{header['system']['name'].replace('-', '_')}"


def write_inspect(out: Path, header: dict[str, Any]) -> Path:
    name = task_name(header)
    path = Path(out) / f"{name}.py"
    path.write_text(
        _INSPECT_FILE.format(
            task=header["task"],
            system=header["system"]["name"],
            kind=header["system"]["kind"],
            calls=header["calls"],
            data=header["data"],
            file=path.name,
            metric=METRIC,
            name=name,
        ),
        encoding="utf-8",
    )
    return path


def lmeval_doc(call: Call, header_json: str) -> dict[str, Any]:
    """A call's messages as lm-eval's parts: [system?] (user, assistant)* user (:mod:`lmeval_task`)."""
    turns = list(call.messages)
    system = turns.pop(0)["content"] if turns and turns[0]["role"] == "system" else ""
    roles = [t["role"] for t in turns]
    if len(turns) % 2 == 0 or roles != ["user", "assistant"] * (len(turns) // 2) + ["user"]:
        raise UsageError(
            f"sample {call.sample_id}: the prompt's turns ({', '.join(roles)}) are not [system] "
            "(user, assistant)* user, which lm-eval's chat requests can carry",
            hint="export this prompt to Inspect (`admitdx export inspect`), which sends any messages",
        )
    pairs = [[turns[i]["content"], turns[i + 1]["content"]] for i in range(0, len(turns) - 1, 2)]
    return {
        "id": call.sample_id,
        "instance_id": call.instance_id,
        "part": call.part or "",
        "system": system,
        "turns": json.dumps(pairs, ensure_ascii=False),
        "user": turns[-1]["content"],
        "target": json.dumps(call.target, ensure_ascii=False),
        HEADER_KEY: header_json,
    }


def write_lmeval(out: Path, header: dict[str, Any], calls: list[Call]) -> Path:
    """``<task>.yaml``, ``utils.py`` and the documents; the YAML's path."""
    out = Path(out).resolve()
    header_json = json.dumps(header, sort_keys=True, ensure_ascii=False)
    docs = [lmeval_doc(c, header_json) for c in calls]
    write_jsonl(out / LMEVAL_DOCS, docs)
    shots = max((len(json.loads(d["turns"])) for d in docs), default=0)
    name = task_name(header)
    generation = {"until": [], "max_gen_toks": header["generate"]["max_tokens"], "do_sample": False}
    generation["temperature"] = header["generate"]["temperature"]
    config: dict[str, Any] = {
        "task": name,
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(out / LMEVAL_DOCS)}},
        "test_split": "test",
        "output_type": "generate_until",
        "description": "system",
        "doc_to_text": _Function("doc_to_text"),
        "doc_to_target": _Function("doc_to_target"),
        "generation_kwargs": generation,
        "process_results": _Function("process_results"),
        "metric_list": [{"metric": METRIC, "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": 1, "admitdx": header["data"]},
    }
    if shots:
        config |= {
            "fewshot_split": "test",
            "num_fewshot": shots,
            "fewshot_config": {
                "sampler": _Function("ExemplarTurns"),
                "doc_to_text": _Function("turn_text"),
                "doc_to_target": _Function("turn_answer"),
            },
        }
    text = yaml.dump(config, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
    path = out / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    (out / "utils.py").write_text(
        _UTILS_FILE.format(task=header["task"], yaml=path.name, data=header["data"]), encoding="utf-8"
    )
    return path
