# AccessBench developer commands. `make help` lists them.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help install run test test-fast check lock clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml requirements.lock
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade "pip>=24,<27"
	# uv (pinned by the lock) installs in seconds what pip takes minutes for; pip when uv cannot be had.
	if $(BIN)/pip install -q -c requirements.lock uv; then \
	  $(BIN)/uv pip install -q --python $(BIN)/python -c requirements.lock -e ".[dev,llm,aws,embedding]"; \
	else $(BIN)/pip install -q -c requirements.lock -e ".[dev,llm,aws,embedding]"; fi
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install AccessBench with its locked dependencies

run: $(STAMP)  ## install, then run the benchmark on the embedded synthetic corpus
	$(BIN)/accessbench run

test: $(STAMP)  ## install, then run the whole test suite
	$(BIN)/pytest -q

test-fast: $(STAMP)  ## tests without the slow end-to-end flows
	$(BIN)/pytest -q -m "not slow"

check: $(STAMP)  ## lint and type-check
	$(BIN)/ruff check .
	$(BIN)/mypy

lock:  ## re-resolve requirements.lock from pyproject.toml
	$(BIN)/uv pip compile pyproject.toml --extra dev --extra llm --extra aws --extra embedding --python-version 3.11 -o requirements.lock

clean:  ## remove the virtualenv and the default data home
	rm -rf $(VENV) .accessbench
