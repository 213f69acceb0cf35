"""`python -m flows.cli.app ARGS` for the tests, as a process of its own, without paying for the imports of
third-party libraries in every one.

The end-to-end tests start about a hundred CLI commands. Each new interpreter spends 1–2 s of CPU
importing pyarrow, numpy, pydantic, rich and Prefect's other dependencies before it does anything.
Here a helper process per test process imports those once (`PRELOAD`) and forks a child for each
command. The child is a real process: its own pid, exit status, environment, working directory,
stdout and stderr (pipes read to their end, as `subprocess.run` reads them: a process the command
left holding them is waited for too), signals and exit handlers (it shares the helper's hash
seed). It then runs `flows.cli.app` as `python -m` does, so everything of AccessBench, PyMuPDF and all of
Prefect is imported fresh, in the order the product imports them, after the command's environment is
in place (Prefect reads its settings, onnxruntime and Dask their environment, at import: none of
them is preloaded). litellm, which reads only its own `LITELLM_*` variables at import, is imported by the
helper before the first command that may call a model, with that command's `LITELLM_*` variables; a
later command with other values imports its own.

`ACCESSBENCH_TEST_CLI=subprocess` runs each command as a new interpreter instead, as do runs on Dask
(see `_dask`). Commands a test needs to signal or kill while they run use `subprocess.Popen` directly.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import gc
import importlib
import json
import locale
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

# Third-party and standard-library modules only, none that reads settings from the environment when
# imported or changes how AccessBench runs. Not PyMuPDF: importing it builds pymupdf-layout's ONNX model
# (onnxruntime writes under $XDG_CACHE_HOME), which AccessBench defers to the layout stage
# (extractors/__init__.py).
PRELOAD = (
    "numpy", "PIL.Image", "pyarrow", "pyarrow.compute", "pyarrow.dataset", "pyarrow.fs", "pyarrow.parquet",
    "pyarrow.ipc", "duckdb", "pikepdf", "pydantic", "pydantic.v1", "pydantic_core", "pydantic_settings",
    "pydantic_extra_types.pendulum_dt", "annotated_types", "typing_extensions", "rich.console", "rich.table",
    "rich.progress", "rich.syntax", "httpx", "httpcore", "h11", "h2.connection", "anyio", "sniffio", "yaml",
    "jsonschema", "jsonpointer", "referencing", "rpds", "attr", "attrs", "dateutil.parser", "dateutil.rrule",
    "pendulum", "cloudpickle", "coolname", "griffe", "click", "typer", "websockets.asyncio.client", "psutil",
    "fsspec", "pathspec", "prometheus_client", "jinja2", "pygments.lexers", "tabulate", "dotenv", "amplitude",
    "humanize", "orjson", "toml", "slugify", "starlette.exceptions", "asgi_lifespan", "exceptiongroup",
    "cachetools", "colorama", "six", "tzdata", "asyncio", "concurrent.futures", "multiprocessing.pool",
    "sqlite3", "email.message", "email.utils", "http.client", "http.server", "urllib.request", "uuid",
    "zoneinfo", "decimal", "fractions", "statistics", "csv", "ssl", "tarfile", "zipfile", "gzip", "lzma", "bz2",
    "logging.config", "logging.handlers", "unittest.mock", "pydoc", "inspect", "difflib", "secrets", "platform",
    "wsgiref.simple_server",
)


def _preload() -> None:
    for name in PRELOAD:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    assert "pymupdf" not in sys.modules and "onnxruntime" not in sys.modules, "a preload imported PyMuPDF"


# litellm (about 4 s of CPU to import) is imported by the helper the first time a command may call a model,
# with the `LITELLM_*` variables that command has: litellm reads those (not API keys, read at each call)
# when imported. AccessBench sets LITELLM_LOCAL_MODEL_COST_MAP=True unless the user set it.
# PRELOAD_LITELLM_VAR=0 (tests/conftest.py sets it in sessions without the `slow` tests, `make test-fast`: the
# commands those start that may call a model stop before any call, and none imports litellm) leaves litellm to
# the commands that import it, each in its own child, as a new interpreter does.
_LLM_COMMANDS = ("run", "rerun", "audit")
PRELOAD_LITELLM_VAR = "ACCESSBENCH_TEST_PRELOAD_LITELLM"
_litellm_env: dict[str, str] | None = None  # the LITELLM_* variables litellm was imported with


def _litellm_settings(env: dict[str, str]) -> dict[str, str]:
    found = {k: v for k, v in env.items() if k.startswith("LITELLM_")}
    found.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return found


def _may_call_a_model(argv: list[str]) -> bool:
    """A rerun (of any run) or an audit, or a run with an LLM or hybrid judge."""
    commands = {a for a in argv if a in _LLM_COMMANDS}
    return bool(commands & {"rerun", "audit"}) or ("run" in commands and any(a.startswith(("llm:", "hybrid:"))
                                                                            for a in argv))


def _preload_litellm(request: dict[str, Any]) -> None:
    global _litellm_env
    if _litellm_env is not None or not _may_call_a_model(request["argv"]) or os.environ.get(PRELOAD_LITELLM_VAR) == "0":
        return
    settings = _litellm_settings(request["env"])
    saved = dict(os.environ)
    os.environ.update(settings)
    try:
        importlib.import_module("litellm")
        _litellm_env = settings
    except ImportError:
        pass
    finally:
        os.environ.clear()
        os.environ.update(saved)


def serve() -> None:
    """The helper: one JSON request per line on stdin, one JSON reply per line on stdout."""
    requests, replies = sys.stdin.buffer, sys.stdout
    _preload()
    replies.write(json.dumps({"ready": os.getpid()}) + "\n")
    replies.flush()
    for line in requests:
        request = json.loads(line)
        _preload_litellm(request)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(out_r)
            os.close(err_r)
            _child(request, out_w, err_w)  # never returns
        os.close(out_w)
        os.close(err_w)
        status, out, err = _communicate(pid, out_r, err_r, request["timeout"])
        replies.write(json.dumps({"pid": pid, "status": status, "stdout": base64.b64encode(out).decode(),
                                  "stderr": base64.b64encode(err).decode()}) + "\n")
        replies.flush()
    # Its test process waits for this exit (`_Helper.stop`, at that process's exit). With the preloads (litellm
    # above all) the interpreter's last garbage collection alone takes 1-2 s; every child is reaped and every
    # reply written, so that collection frees nothing anyone reads: skip it.
    gc.freeze()


def _communicate(pid: int, out_r: int, err_r: int, timeout_s: float) -> tuple[int | None, bytes, bytes]:
    """As `subprocess.run(capture_output=True)`: read both pipes to their end (every process that
    inherited them, a fork server or pool worker included, has exited or closed them), then the
    child's exit status; None once it ran past the limit (the child is killed)."""
    deadline = time.monotonic() + timeout_s
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    reading = {out_r, err_r}
    try:
        while reading:
            left = deadline - time.monotonic()
            if left <= 0:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None, b"".join(chunks[out_r]), b"".join(chunks[err_r])
            ready, _, _ = select.select(list(reading), [], [], left)
            for fd in ready:
                data = os.read(fd, 1 << 16)
                if data:
                    chunks[fd].append(data)
                else:
                    reading.discard(fd)
    finally:
        for fd in (out_r, err_r):
            with contextlib.suppress(OSError):
                os.close(fd)
    status = _wait(pid, max(deadline - time.monotonic(), 0.0))
    return status, b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _child(request: dict[str, Any], out_w: int, err_w: int) -> None:
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        for fd, pipe in ((1, out_w), (2, err_w)):
            os.dup2(pipe, fd)
            os.close(pipe)
        os.close(devnull)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own stdin, kept to its end
        os.environ.clear()
        os.environ.update(request["env"])
        if _litellm_env is not None and _litellm_settings(os.environ) != _litellm_env:
            for name in [m for m in sys.modules if m == "litellm" or m.startswith("litellm.")]:
                del sys.modules[name]  # imported with other settings: this command imports its own
        sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
        cwd = request.get("cwd") or os.getcwd()
        os.chdir(cwd)
        # As `python -m`: the working directory first on sys.path, then $PYTHONPATH.
        extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [cwd, *extra, *[p for p in sys.path[1:] if p not in extra]]
        sys.argv = ["-m", *request["argv"]]
        import runpy

        try:
            runpy.run_module("flows.cli.app", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except KeyboardInterrupt:
            code = 128 + signal.SIGINT
        except BaseException:  # noqa: BLE001 - reported as the interpreter would
            import traceback

            traceback.print_exc()
            code = 1
        # What the interpreter does on its way out: wait for non-daemon threads, run exit handlers.
        threading._shutdown()  # type: ignore[attr-defined]  # noqa: SLF001
        atexit._run_exitfuncs()  # noqa: SLF001
    except BaseException:  # noqa: BLE001 - the child's own set-up failed: say so on its stderr
        with contextlib.suppress(BaseException):
            import traceback

            traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _wait(pid: int, timeout_s: float) -> int | None:
    """The child's exit status as subprocess reports it (-N for signal N), or None once it ran past the limit."""
    deadline = time.monotonic() + timeout_s
    pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            left = deadline - time.monotonic()
            if left <= 0:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None
            if pidfd is not None:
                select.select([pidfd], [], [], min(left, 5.0))
            else:
                time.sleep(min(left, 0.02))
    finally:
        if pidfd is not None:
            os.close(pidfd)


class _Helper:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> subprocess.Popen[bytes]:
        if self.proc is None or self.proc.poll() is not None:
            repo = str(Path(__file__).resolve().parents[1])
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")]))}
            self.proc = subprocess.Popen([sys.executable, "-c", "from tests.cli_process import serve; serve()"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=repo)
            self._reply()  # ready
        return self.proc

    def _reply(self) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the tests' CLI helper process ended")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def run(self, argv: list[str], env: dict[str, str], cwd: str | None, timeout: float
            ) -> tuple[int | None, str, str]:
        proc = self.start()
        assert proc.stdin is not None
        proc.stdin.write((json.dumps({"argv": argv, "env": env, "cwd": cwd, "timeout": timeout}) + "\n").encode())
        proc.stdin.flush()
        reply = self._reply()
        return reply["status"], _text(reply["stdout"]), _text(reply["stderr"])

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _text(encoded: str) -> str:
    """Output as `text=True` gives it: the locale's encoding, universal newlines."""
    text = base64.b64decode(encoded).decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


_helper = _Helper()
atexit.register(_helper.stop)


def _dask(argv: list[str]) -> bool:
    """A run on Dask. Its LocalCluster stalls in a forked child (its workers idle while the flow waits for
    a batch), which a new interpreter, as every user's command is, never does: those get one."""
    return any(a == "--runner" and i + 1 < len(argv) and argv[i + 1].startswith("dask")
               for i, a in enumerate(argv)) or any(a.startswith("--runner=dask") for a in argv)


def run_cli(args: list[str] | tuple[str, ...], *, env: dict[str, str], cwd: Path | str | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """`python -m flows.cli.app *args` with this environment and working directory, its output captured,
    as `subprocess.run(..., capture_output=True, text=True, timeout=timeout)` gives it."""
    argv = [str(a) for a in args]
    command = [sys.executable, "-m", "flows.cli.app", *argv]
    if cwd is not None and not Path(cwd).is_dir():  # as subprocess.run says it
        raise FileNotFoundError(2, "No such file or directory", str(cwd))
    if (os.environ.get("ACCESSBENCH_TEST_CLI") == "subprocess" or _dask(argv)
            or not _helper.lock.acquire(blocking=False)):
        return subprocess.run(command, env=env, cwd=cwd, text=True, capture_output=True, timeout=timeout)
    try:
        status, stdout, stderr = _helper.run(argv, env, str(cwd) if cwd else None, timeout)
    finally:
        _helper.lock.release()
    if status is None:
        raise subprocess.TimeoutExpired(command, timeout, output=stdout, stderr=stderr)
    return subprocess.CompletedProcess(command, status, stdout, stderr)
