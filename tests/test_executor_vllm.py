"""The vLLM executor (``--executor vllm``): the model run by vLLM inside the Ray cluster.

Here (no GPU, no vLLM) the checks before any work run for real: a real local Ray instance started
with no GPU refuses the vLLM path with exit 2, naming its resources; a missing vLLM says how to
install it; a model option that names no model is refused. What a request becomes on the cluster
(messages, sampling, the schema as guided decoding) is checked against the HTTP path's request.
The end-to-end GPU test runs only where a GPU, vLLM and a model directory are present, and skips
with its reason otherwise.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import asdict
from functools import partial
from pathlib import Path

import pytest
import yaml
from tests.test_executor_ray import N_TEST, _dataset, predict_command
from tests.test_llm_egress_cli import run_cli

from admitdx.contracts import PREDICTIONS_FILE
from admitdx.embeddings import default_model_dir
from admitdx.errors import UsageError
from admitdx.executors.vllm_cluster import check_gpus, model_source, require_vllm
from admitdx.executors.vllm_executor import answer_row, engine_row, pipeline, processor
from admitdx.jsonl import read_jsonl
from admitdx.llm.client import ChatRequest
from admitdx.llm.config import LLMConfig

ray = pytest.importorskip("ray", reason="the vLLM executor runs on Ray: pip install 'admitdx[ray]'")


def _gpu_skip_reason() -> str | None:
    if importlib.util.find_spec("vllm") is None:
        return "vLLM is not installed (pip install vllm, on a machine with a CUDA GPU)"
    if shutil.which("nvidia-smi") is None:
        return "no GPU on this machine (no nvidia-smi)"
    if not os.environ.get("ADMITDX_VLLM_MODEL"):
        return "set ADMITDX_VLLM_MODEL to a small instruct model directory (Hugging Face layout)"
    return None


@pytest.fixture(scope="module")
def no_gpu_cluster() -> Iterator[None]:
    """A real local Ray instance with no GPU, even on a machine that has one."""
    ray.init(num_cpus=1, num_gpus=0, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _config(tmp_path: Path, **system: object) -> Path:
    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump({"systems": {"qwen": {"kind": "llm", **system}}}))
    return config


def test_a_cluster_without_gpus_is_exit_2_naming_its_resources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_gpu_cluster: None
) -> None:
    dataset, out = _dataset(tmp_path / "ds"), tmp_path / "out"
    config = _config(tmp_path, model="Qwen/Qwen2.5-0.5B-Instruct")
    args = ["predict", "--dataset", str(dataset), "--system", "qwen", "--out", str(out)]
    code, text = run_cli([*args, "--config", str(config), "--executor", "vllm"], capsys, monkeypatch)
    assert code == 2
    assert (
        "--executor vllm runs the model on the Ray cluster's GPUs, but the local Ray instance has none"
        in text
    )
    assert "(CPU 1, GPU 0, memory " in text  # the cluster's resources, as Ray reports them
    assert "--ray-address" in text and "vllm serve" in text  # what to do instead
    assert not (out / PREDICTIONS_FILE).exists()
    assert ray.is_initialized()  # the executor did not shut down a Ray instance it did not start


def test_more_engines_than_gpus_is_refused_naming_the_gpu_count(no_gpu_cluster: None) -> None:
    """The real cluster's resources with two GPUs declared, as a GPU node reports them."""
    resources = {**ray.cluster_resources(), "GPU": 2.0, "accelerator_type:A100": 1.0}
    assert check_gpus(resources, replicas=2, where="the cluster") == 2
    with pytest.raises(UsageError, match=r"--ray-workers 3 asks for 3 vLLM engines .* has 2 GPU\(s\)") as e:
        check_gpus(resources, replicas=3, where="the cluster")
    assert "accelerators A100" in str(e.value) and e.value.hint == "use --ray-workers 2 or fewer"


def test_without_vllm_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # as if not installed, whether it is or not
    with pytest.raises(UsageError, match="--executor vllm needs vLLM, which is not installed") as e:
        require_vllm()
    assert "pip install vllm" in (e.value.hint or "") and "ray[llm]" in (e.value.hint or "")


def test_the_model_option_must_name_a_model(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="'local' names no model"):
        model_source("local")
    (tmp_path / "smol").mkdir()
    assert model_source(str(tmp_path / "smol")) == str((tmp_path / "smol").resolve())
    assert model_source("Qwen/Qwen2.5-0.5B-Instruct") == "Qwen/Qwen2.5-0.5B-Instruct"


def test_a_request_reaches_the_engine_as_the_http_path_sends_it() -> None:
    """Messages, sampling and the schema (guided decoding) as the HTTP client's request body has them;
    the schema travels as JSON text, so two rows with different schemas cannot be merged by Arrow."""
    config = LLMConfig(temperature=0.0, max_tokens=300, seed=7, top_p=0.9)
    schema = {
        "type": "object",
        "properties": {"pairs": {"type": "array", "maxItems": 3}},
        "required": ["pairs"],
    }
    req = ChatRequest(
        [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], schema, {"p": 1}
    )
    row = {"i": 5, "request": json.dumps(asdict(req))}
    engine = engine_row(row, sampling=config.sampling(), guided=True)
    assert engine["i"] == 5 and engine["messages"] == req.messages
    params = engine["sampling_params"]
    assert {k: v for k, v in params.items() if k != "structured_outputs"} == {
        "temperature": 0.0, "max_tokens": 300, "seed": 7, "top_p": 0.9
    }  # fmt: skip
    assert json.loads(params["structured_outputs"]["json"]) == schema
    assert ChatRequest(**json.loads(engine["request"])) == req  # the driver's cache key is the same
    assert (
        "structured_outputs"
        not in engine_row(row, sampling=config.sampling(), guided=False)["sampling_params"]
    )
    answered = {**engine, "generated_text": '{"pairs": []}', "num_input_tokens": 11,
                "num_generated_tokens": 4, "time_taken_llm": 0.25}  # fmt: skip
    kept = {"i": 5, "request": row["request"], "text": '{"pairs": []}', "prompt_tokens": 11,
            "completion_tokens": 4, "latency_s": 0.25}  # fmt: skip
    assert answer_row(answered) == kept


def test_the_pipeline_is_built_with_ray_data_llm_and_rows_keep_their_own_schema(no_gpu_cluster: None) -> None:
    """Ray 2.60's real ``vLLMEngineProcessorConfig`` and ``build_processor`` accept what the executor
    passes (built lazily: running it needs a GPU), with a local tokenizer directory as the model; the
    preprocess step, run by Ray Data on this instance, keeps each row's own schema through Arrow."""
    from ray.data import llm

    schemas = [{"type": "object", "required": ["a"]}, {"type": "array", "maxItems": 2}]
    requests = [
        ChatRequest([{"role": "user", "content": f"q{n}"}], schema) for n, schema in enumerate(schemas)
    ]
    rows = [{"i": n, "request": json.dumps(asdict(req))} for n, req in enumerate(requests)]
    sampling = LLMConfig().sampling()
    lazy = pipeline(llm, ray.data.from_items(rows), model=str(default_model_dir()), replicas=1, batch_size=64,
                    sampling=sampling, guided=True)  # fmt: skip
    plan = str(lazy)
    for stage in (
        "Map(_preprocess)",
        "ChatTemplateUDF",
        "TokenizeUDF",
        "vLLMEngineStageUDF",
        "DetokenizeUDF",
    ):
        assert stage in plan
    prepared = ray.data.from_items(rows).map(partial(engine_row, sampling=sampling, guided=True)).take_all()
    by_row = {r["i"]: r for r in prepared}
    for n, schema in enumerate(schemas):
        assert json.loads(by_row[n]["sampling_params"]["structured_outputs"]["json"]) == schema
        assert [dict(m) for m in by_row[n]["messages"]] == [{"role": "user", "content": f"q{n}"}]


def test_the_thinking_option_reaches_the_chat_template_as_a_vllm_server_sends_it(
    no_gpu_cluster: None,
) -> None:
    """``thinking: false`` is the ``chat_template_kwargs: {enable_thinking: false}`` a vLLM server gets
    (tests/test_llm_servers.py), here handed to Ray Data's chat-template stage, which applies the
    template on the cluster; unset, the stage is built with no kwargs (the template's default)."""
    from ray.data import llm

    def template_kwargs(thinking: object) -> object:
        built = processor(llm, model=str(default_model_dir()), replicas=1, batch_size=64,
                          sampling=LLMConfig().sampling(), guided=True, thinking=thinking)  # fmt: skip
        return built.get_stage_by_name("ChatTemplateStage").fn_constructor_kwargs["chat_template_kwargs"]

    sent = LLMConfig(server="vllm", thinking=False).server_profile.thinking_fields(False)
    assert template_kwargs(False) == sent["chat_template_kwargs"] == {"enable_thinking": False}
    assert template_kwargs(True) == template_kwargs("high") == {"enable_thinking": True}
    assert template_kwargs(None) is None


@pytest.mark.skipif(_gpu_skip_reason() is not None, reason=str(_gpu_skip_reason()))
def test_predict_with_vllm_on_the_gpu_writes_each_instance_once_and_a_rerun_makes_no_calls(
    tmp_path: Path,
) -> None:
    dataset = _dataset(tmp_path / "ds")
    config = _config(tmp_path, model=os.environ["ADMITDX_VLLM_MODEL"], max_tokens=200,
                     cache_path=str(tmp_path / "cache.sqlite"))  # fmt: skip

    def predict(out: str, *more: str) -> dict:
        cli = predict_command(dataset, "qwen", tmp_path / out, config, *more)
        done = subprocess.run(cli, capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads((tmp_path / out / "manifest.json").read_text())["outputs"]["fit"]

    first = predict("gpu", "--executor", "vllm", "--ray-shard-size", "16")
    rows = list(read_jsonl(tmp_path / "gpu" / PREDICTIONS_FILE))
    assert sorted(r["instance_id"] for r in rows) == [f"te{i:02d}" for i in range(N_TEST)]
    assert sum(r["parse_error"] is None for r in rows) >= N_TEST - 1  # guided decoding: JSON in the schema
    [engine] = first["executor"]["endpoints"]
    assert first["executor"]["kind"] == "vllm" and engine["successes"] == engine["requests"] == N_TEST
    assert first["model_calls"] == N_TEST
    again = predict("gpu-again", "--executor", "vllm")
    assert again["model_calls"] == 0 and again["cache_hits"] == N_TEST
