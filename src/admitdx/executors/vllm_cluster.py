"""The checks before the vLLM executor starts anything: GPUs in the cluster, vLLM installed, a model.

Each failure is a usage error (exit 2) that names the culprit and what to do, raised before a
dataset is built or an engine is loaded: a cluster without GPUs would otherwise leave Ray Data
waiting for a GPU that never comes, and a missing vLLM would surface as an import error inside a
remote actor.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from admitdx.errors import UsageError

VLLM_INSTALL_HINT = (
    "install vLLM on the driver and on every GPU node: pip install vllm (a CUDA build, with the torch it "
    "pins; Ray's `pip install 'ray[llm]'` pins a vLLM that matches Ray), or serve the model elsewhere "
    "(`vllm serve MODEL`) and use --executor ray with the servers as the system's `endpoints`"
)


def describe_resources(resources: dict[str, float]) -> str:
    """A cluster's resources as a person reads them: ``CPU 2, GPU 0, memory 3.1 GiB, object store 1 GiB``."""
    gib = 2**30
    parts = [f"CPU {resources.get('CPU', 0):g}", f"GPU {resources.get('GPU', 0):g}"]
    parts.append(f"memory {resources.get('memory', 0) / gib:.1f} GiB")
    parts.append(f"object store {resources.get('object_store_memory', 0) / gib:.1f} GiB")
    accelerators = sorted(
        k.removeprefix("accelerator_type:") for k in resources if k.startswith("accelerator_type:")
    )
    if accelerators:
        parts.append(f"accelerators {', '.join(accelerators)}")
    return ", ".join(parts)


def check_gpus(resources: dict[str, float], *, replicas: int, where: str) -> int:
    """The cluster's GPU count, which must hold one engine replica per GPU; a usage error otherwise."""
    gpus = int(resources.get("GPU", 0))
    if gpus == 0:
        raise UsageError(
            f"--executor vllm runs the model on the Ray cluster's GPUs, but {where} has none "
            f"({describe_resources(resources)})",
            hint="join a cluster with GPU nodes (--ray-address HOST:PORT, or auto on one of its nodes), "
            "or serve the model on GPU machines (`vllm serve MODEL`) and run --executor ray with their "
            "URLs as the system's `endpoints`",
        )
    if gpus < replicas:
        raise UsageError(
            f"--ray-workers {replicas} asks for {replicas} vLLM engines of one GPU each, but {where} has "
            f"{gpus} GPU(s) ({describe_resources(resources)})",
            hint=f"use --ray-workers {gpus} or fewer",
        )
    return gpus


def require_vllm() -> None:
    """vLLM is importable here (the driver builds the processor; its nodes need the same install)."""
    if importlib.util.find_spec("vllm") is None:
        raise UsageError("--executor vllm needs vLLM, which is not installed", hint=VLLM_INSTALL_HINT)


def import_ray_data_llm() -> ModuleType:
    """Ray Data's LLM batch API (``ray.data.llm``), or a usage error saying how to install it."""
    try:
        from ray.data import llm
    except ImportError as e:
        raise UsageError(
            f"--executor vllm needs Ray Data's LLM support, which does not import: {e}",
            hint="pip install 'ray[data,llm]' (it pins a vLLM that matches Ray)",
        ) from e
    return llm


def model_source(model: str) -> str:
    """The system's ``model`` as vLLM loads it: a local directory (made absolute, so every node finds
    it at the same path on a shared file system) or a Hugging Face id, resolved by vLLM on each node
    (from its Hugging Face cache when HF_HUB_OFFLINE=1)."""
    if model in ("", "local"):
        raise UsageError(
            f"--executor vllm loads the system's `model`, and {model!r} names no model",
            hint="set `model:` to a model directory (Hugging Face layout) or a Hugging Face id, "
            "e.g. --set model=Qwen/Qwen2.5-7B-Instruct",
        )
    path = Path(model).expanduser()
    return str(path.resolve()) if path.exists() else model
