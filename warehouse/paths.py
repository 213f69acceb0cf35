"""Run ids and local paths the store may touch: nothing outside the data home, ever.

Run ids become folder (or key) names, so they must match RUN_ID_PATTERN; every local path the
store writes or deletes is checked to lie inside the data home after symlinks are resolved, and
deletes never follow a symlink. Writes go to a temporary name in the same folder and are renamed
into place, so a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa

# Letters, digits, '.', '_', '-'; starts with a letter or digit; at most 128 characters.
RUN_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class UnsafePathError(ValueError):
    """A run id or path that would reach outside the data home."""


def check_run_id(run_id: str) -> str:
    """Return `run_id` if it is safe as a folder name, else raise UnsafePathError."""
    if not isinstance(run_id, str) or not RUN_ID_PATTERN.fullmatch(run_id):
        raise UnsafePathError(
            f"invalid run id {run_id!r}: use 1-128 letters, digits, '.', '_' or '-', starting with a letter "
            "or digit (e.g. 2025-weekly.1)"
        )
    return run_id


def inside(home: Path, path: Path) -> Path:
    """`path` if it lies inside `home` once symlinks in its folders are resolved; else raise.

    The last component is not resolved: a symlink there is the object acted on (replaced or
    unlinked), never its target.
    """
    root = Path(home).resolve()
    path = Path(path)
    # A last component of '..' or '.' names a folder, not an entry: resolve it like the rest.
    where = path.resolve() if path.name in ("", ".", "..") else path.parent.resolve() / path.name
    if where != root and not where.is_relative_to(root):
        raise UnsafePathError(f"refusing to touch {path}: it resolves outside the data home {root}")
    return where


def remove_tree(home: Path, path: Path) -> None:
    """Delete the folder `path` inside `home`; a symlink is unlinked, never followed."""
    target = inside(home, path)
    if target == Path(home).resolve():
        raise UnsafePathError(f"refusing to delete the data home itself ({target})")
    if target.is_symlink():
        target.unlink()
    elif target.exists():
        shutil.rmtree(target)  # rmtree unlinks symlinks inside the tree without following them


FULL = (errno.ENOSPC, errno.EDQUOT)


class DiskFull(OSError):
    """A write failed because the disk (or the quota) holding `path` is full."""

    def __init__(self, path: Path, free: int | None) -> None:
        self.path = Path(path)
        self.free = free
        free_text = "unknown" if free is None else human_size(free)
        super().__init__(errno.ENOSPC, f"no space left on the disk holding {self.path} ({free_text} free)")


def human_size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} bytes"


def free_bytes(path: Path) -> int | None:
    """Free bytes on the file system of `path` (its nearest existing folder), None where unknown."""
    where = Path(path)
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        return shutil.disk_usage(where).free
    except OSError:
        return None


@contextmanager
def disk_full_as_error(path: Path) -> Iterator[None]:
    """Within the block, an OSError for a full disk or quota becomes :class:`DiskFull` naming `path`."""
    try:
        yield
    except DiskFull:
        raise
    except OSError as exc:
        # pyarrow's writers raise OSError with no errno, the reason only in the message.
        if exc.errno not in FULL and not any(os.strerror(code) in str(exc) for code in FULL):
            raise
        raise DiskFull(path, free_bytes(path)) from exc


def atomic_write_parquet(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with disk_full_as_error(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            import pyarrow.parquet as pq
            pq.write_table(table, tmp, compression="zstd")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
