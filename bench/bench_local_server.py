"""What the demo's local-LLM stages cost: the embedded llama.cpp server on the demo's own prompts.

Usage:
    python bench/bench_local_server.py                        # the demo's data, 8 encounters
    python bench/bench_local_server.py --encounters 20 --threads 1 --max-tokens 256
    python bench/bench_local_server.py --dataset admitdx-demo/earlydx/audited

The prompts are the demo's: zero-shot graded diagnosis lists (records cut to 2500 characters) and
the LLM auditor's one request per reference label, for the first ``--encounters`` test encounters
of the demo's synthetic data (800 patients, seed 7; built under ``--workdir`` unless ``--dataset``
names an EarlyDx dataset). Each request is sent twice in a row: first with ``max_tokens=1`` (the
prompt's cost: llama.cpp keeps the KV cache of the longest prefix it has already seen, so the
second send skips the prompt), then in full (the answer's cost). Run it with another
llama-cpp-python first on ``PYTHONPATH`` to compare builds.

Wall time on a shared machine depends on what else runs, so the server process's CPU seconds are
printed too: a single-thread server on an idle core takes about its CPU seconds of wall time.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from admitdx.llm.client import ChatRequest, response_format
from admitdx.llm.local_server import LocalServer

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


@dataclass
class Tally:
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    truncated: int = 0
    prompt_cpu: float = 0.0
    answer_cpu: float = 0.0
    wall: float = 0.0
    notes: list[str] = field(default_factory=list)

    def line(self, name: str) -> str:
        rate = self.completion_tokens / max(self.answer_cpu, 1e-9)
        return (
            f"{name:10s} {self.requests:3d} requests  prompt {self.prompt_tokens / self.requests:5.0f} tok "
            f"({self.prompt_cpu:6.1f} CPU-s)  answer {self.completion_tokens / self.requests:4.0f} tok "
            f"({self.answer_cpu:6.1f} CPU-s, {rate:4.0f} tok/s)"
            f"  total {self.prompt_cpu + self.answer_cpu:6.1f} CPU-s, {self.wall:6.1f} s wall"
            f"  cut at max_tokens: {self.truncated}"
        )


def demo_dataset(workdir: Path) -> Path:
    from admitdx.demo import DemoParams
    from admitdx.synthetic import generate_synthetic
    from admitdx.tasks.earlydx import EarlyDxParams, build_earlydx

    params = DemoParams()
    root, out = workdir / "mimic", workdir / "earlydx"
    if not (out / "instances.jsonl").exists():
        generate_synthetic(root, patients=params.patients, seed=params.seed, overwrite=True)
        build_earlydx(root, out, EarlyDxParams(test_fraction=params.test_fraction, seed=params.seed))
    return out


def workloads(dataset: Path, encounters: int) -> dict[str, list[ChatRequest]]:
    from admitdx.auditing.llm_auditor import LLMAuditor
    from admitdx.contracts import load_instances
    from admitdx.demo.run import STUDY_FILE
    from admitdx.llm.client import LLMClient
    from admitdx.llm.config import LLMConfig
    from admitdx.systems.llm import LLMPredictor
    from admitdx.tasks.registry import get_task
    from admitdx.yaml_reader import load_yaml

    test = load_instances(dataset, split="test")[:encounters]
    demo_llm = load_yaml(STUDY_FILE.read_text(encoding="utf-8"), str(STUDY_FILE))["systems"][
        "smollm2-zeroshot"
    ]
    predictor = LLMPredictor(
        prompt="zero-shot", graded=True, max_input_chars=demo_llm["max_input_chars"],
        task=get_task(test[0].task),
    )  # fmt: skip
    auditor = LLMAuditor(LLMClient(LLMConfig(cache_path=None)))
    return {
        "zero-shot": [predictor.request(inst) for inst in test],
        "audit": [auditor.request(inst, j) for inst in test for j in range(len(inst.references))],
    }


def run(server: LocalServer, requests: Iterable[ChatRequest], max_tokens: int) -> Tally:
    assert server.process is not None
    pid, tally = server.process.pid, Tally()
    with httpx.Client(timeout=600, trust_env=False) as http:

        def send(req: ChatRequest, tokens: int) -> tuple[float, dict[str, Any]]:
            body: dict[str, Any] = {"model": server.alias, "messages": req.messages, "max_tokens": tokens,
                                    "temperature": 0.0, "seed": 0}  # fmt: skip
            if req.schema is not None:
                body["response_format"] = response_format(req.schema, "json_object")
            before = cpu_seconds(pid)
            answer = http.post(server.base_url + "/chat/completions", json=body).raise_for_status().json()
            return cpu_seconds(pid) - before, answer

        for req in requests:
            started = time.perf_counter()
            prompt_cpu, _ = send(req, 1)
            answer_cpu, answer = send(req, max_tokens)
            tally.wall += time.perf_counter() - started
            tally.requests += 1
            tally.prompt_cpu += prompt_cpu
            tally.answer_cpu += answer_cpu
            tally.prompt_tokens += answer["usage"]["prompt_tokens"]
            tally.completion_tokens += answer["usage"]["completion_tokens"]
            tally.truncated += answer["choices"][0]["finish_reason"] == "length"
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", type=Path, help="an EarlyDx dataset (default: the demo's, built here)")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "admitdx-bench")
    parser.add_argument("--encounters", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=1500, help="the answer's bound (LLMConfig: 1500)")
    parser.add_argument("--only", choices=["zero-shot", "audit"], help="one workload only")
    args = parser.parse_args()

    dataset = args.dataset or demo_dataset(args.workdir)
    loads = workloads(dataset, args.encounters)
    with LocalServer(n_threads=args.threads, log_path=args.workdir / "llama-server.log") as server:
        assert server.process is not None and server.log_path is not None
        built_for = [line for line in server.log_path.read_text().splitlines() if "built for" in line][-1]
        print(f"{built_for}\nthreads {args.threads}, max_tokens {args.max_tokens}, "
              f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
        for name, requests in loads.items():
            if args.only in (None, name):
                print(run(server, requests, args.max_tokens).line(name), flush=True)


if __name__ == "__main__":
    main()
