# AccessBench developer commands. `make help` lists them.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help install run test test-fast check lock clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

# Installers are locked too; setuptools as in pyproject.toml's [build-system] requires.
BUILD_TOOLS := "setuptools>=77,<81" "pip>=24,<27"
CHECK := $(BIN)/python -S .ci/check_supply_chain.py

# Every file pip downloads must match a hash in the lock; the project itself adds no dependency.
# uv installs from the same hashed lock in seconds with a warm cache: the uv on PATH if there is one,
# else the lock's own uv, installed first by pip with its hashes. ACCESSBENCH_INSTALLER=pip skips uv.
INSTALLER ?= $(or $(ACCESSBENCH_INSTALLER),uv)
$(STAMP): pyproject.toml requirements.lock
	$(PY) -m venv $(VENV)
	@if [ "$(INSTALLER)" = uv ]; then \
	  uv=$$(command -v uv || true); \
	  if [ -z "$$uv" ]; then \
	    awk '/^uv==/{p=1} p{print; if ($$0 !~ /\\$$/) exit}' requirements.lock > $(VENV)/uv-requirement.txt; \
	    $(BIN)/python -m pip install -q --require-hashes -r $(VENV)/uv-requirement.txt || exit 1; \
	    uv=$(BIN)/uv; \
	  fi; \
	  echo "installing with $$uv"; \
	  $$uv pip install -q --compile-bytecode --python $(BIN)/python --require-hashes -r requirements.lock && \
	  $$uv pip install -q --python $(BIN)/python --no-deps --no-build-isolation -e .; \
	else \
	  $(BIN)/python -m pip install -q --require-hashes -r requirements.lock && \
	  $(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .; \
	fi
	$(CHECK)
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install AccessBench from the hashed lock

run: $(STAMP)  ## install, then run the benchmark on the embedded synthetic corpus
	$(BIN)/accessbench run

# Tests run on every core (pytest-xdist; a module's tests stay on one worker, sharing its fixtures), and
# with bytecode caching on even where PYTHONDONTWRITEBYTECODE is set: each CLI run a test starts would
# otherwise compile our modules again.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -q -n auto --dist loadscope --no-loadscope-reorder

test: $(STAMP)  ## install, check the environment's supply chain, then run the whole test suite
	$(CHECK)
	$(PYTEST)

test-fast: $(STAMP)  ## supply-chain check, then the tests without the slow end-to-end flows and dev-benchmark sweeps
	$(CHECK)
	$(PYTEST) -m "not slow and not benchmark_data"

check: $(STAMP)  ## lint and type-check
	$(BIN)/ruff check .
	$(BIN)/mypy

lock:  ## re-resolve requirements.lock (with hashes) from pyproject.toml
	printf '%s\n' $(BUILD_TOOLS) | $(BIN)/uv pip compile pyproject.toml - --extra dev --extra llm --extra aws --extra embedding \
		--python-version 3.11 --generate-hashes --custom-compile-command "make lock" -o requirements.lock
	$(CHECK) --lock-only

clean:  ## remove the virtualenv and the default data home
	rm -rf $(VENV) .accessbench
