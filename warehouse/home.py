"""Where AccessBench keeps its data: `--home`, else $ACCESSBENCH_HOME, else ./.accessbench.

The data home is a local folder. Its final stage tables and run state live in `<home>/artifacts`
unless the home is bound to an artifact URL (`s3://bucket/prefix`): `--artifacts URL` (or
$ACCESSBENCH_ARTIFACTS) records the binding in `<home>/artifacts.json`, so every later command on
that home (report, sql, runs, a resume) finds the tables without being told again. A home holds
one set of runs: binding a home that already has local runs, or rebinding one to another URL, is
refused.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from warehouse.artifact_roots import ArtifactRoot, ArtifactRootError, LocalRoot, open_root, parse_s3_url

DEFAULT_HOME = ".accessbench"
HOME_ENV = "ACCESSBENCH_HOME"
ARTIFACTS_ENV = "ACCESSBENCH_ARTIFACTS"
BINDING_FILE = "artifacts.json"


def resolve_home(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Return the absolute data home; nothing is created here."""
    raw = explicit or os.environ.get(HOME_ENV) or DEFAULT_HOME
    return Path(raw).expanduser().resolve()


# Folders and files of a home that AccessBench writes to or reads from (besides every entry directly in the
# home and in its artifacts folder, which are checked too).
HOME_ENTRIES = ("reports", "reports/plots", "cache", "cache/xdg", "prefect", "warehouse.duckdb", "calls",
                "calls/images", "dask", "artifacts", "artifacts/_state", "artifacts/render",
                "artifacts/render/images", "artifacts/extract", "artifacts/extract/crops", "artifacts/layout",
                "artifacts/judge")


class HomeLinkError(ValueError):
    """A symlink inside the data home points outside it: writes there would leave the home."""


def check_home_links(home: Path) -> None:
    """Refuse a data home where a folder or file AccessBench uses is a symlink that leads outside it.

    A link planted as `reports`, `cache`, `prefect`, `warehouse.duckdb` (even a dangling one),
    `artifacts/render/images` or `artifacts/extract/crops` would redirect the run's writes (or reads)
    outside the home. Links that stay inside the home are fine. Raises HomeLinkError naming the link.
    """
    root = Path(home).resolve()
    if not root.is_dir():
        return
    candidates = {root / rel for rel in HOME_ENTRIES}
    for folder in (root, root / "artifacts"):
        try:
            if folder.is_dir() and not folder.is_symlink():
                candidates.update(folder.iterdir())
        except OSError:
            continue
    for path in sorted(candidates):
        if not path.is_symlink():
            continue
        try:
            target = path.resolve()
        except (RuntimeError, OSError):
            target = None  # a loop: it cannot be used either
        if target is None or not (target == root or target.is_relative_to(root)):
            where = "a symlink loop" if target is None else f"a symlink to {target}, outside the home"
            raise HomeLinkError(f"refusing to use the data home {root}: {path.relative_to(root)} is {where}; "
                                f"remove the link (rm {path}) or use another --home")


def is_url(value: str | os.PathLike[str] | None) -> bool:
    return isinstance(value, str) and re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", value) is not None


def home_for_url(url: str) -> Path:
    """The local home of `--home s3://bucket/prefix`: `<$ACCESSBENCH_HOME or ./.accessbench>/s3/<bucket>/<prefix>`.

    One S3 location always gets the same local home (Prefect state, locks, scratch), which never
    holds the tables of another.
    """
    where = parse_s3_url(url)
    return resolve_home(Path(os.environ.get(HOME_ENV) or DEFAULT_HOME) / "s3" / where.bucket / where.prefix)


def recorded_artifacts(home: Path) -> str | None:
    """The artifact URL `home` is bound to, or None."""
    path = Path(home) / BINDING_FILE
    if not path.is_file():
        return None
    try:
        url = json.loads(path.read_text())["url"]
        return parse_s3_url(url).url
    except (ValueError, KeyError, TypeError) as exc:
        raise ArtifactRootError(f"{path} is damaged ({exc}); restore it, or delete it to use {home}/artifacts "
                                "again") from None


def artifact_url(home: Path, explicit: str | None = None) -> str | None:
    """Where `home`'s tables live: the binding, else `explicit` or $ACCESSBENCH_ARTIFACTS; None for local.

    A URL that disagrees with the binding is refused rather than silently ignored.
    """
    asked = explicit or os.environ.get(ARTIFACTS_ENV) or None
    asked = parse_s3_url(asked).url if asked else None
    recorded = recorded_artifacts(home)
    if recorded and asked and asked != recorded:
        raise ArtifactRootError(f"the data home {home} keeps its artifacts in {recorded}, not {asked}: pass "
                                f"--artifacts {recorded} (or unset ${ARTIFACTS_ENV}), or use another --home for "
                                f"{asked}")
    return recorded or asked


def has_local_runs(home: Path) -> bool:
    runs = Path(home) / "artifacts" / "_state" / "runs"
    return runs.is_dir() and any(runs.glob("run=*/run.parquet"))


def bind_artifacts(home: Path, url: str) -> str:
    """Record that `home` keeps its tables at `url` (idempotent); returns the normalised URL."""
    url = parse_s3_url(url).url
    recorded = recorded_artifacts(home)
    if recorded == url:
        return url
    if recorded is None and has_local_runs(home):
        raise ArtifactRootError(f"the data home {home} already holds runs in {home}/artifacts; use a new --home "
                                f"for artifacts in {url} (e.g. --home {home}-s3)")
    artifact_url(home, url)  # raises on a conflicting binding
    path = Path(home) / BINDING_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"url": url}) + "\n")
    os.replace(tmp, path)
    return url


def open_home_root(home: Path) -> ArtifactRoot:
    """The artifact root of `home` (see the module doc)."""
    url = artifact_url(home)
    return LocalRoot(home) if url is None else open_root(url)
