"""Where a data home's final stage tables and run state live: its own `artifacts/` folder, or S3.

The store speaks to a root in *keys*, paths relative to it such as `judge/run=r1/judgments.parquet`
or `_state/runs/run=r1/run.parquet`; a root maps a key onto its medium. Everything that needs a
real file system (per-document staging parts, locks, page images, the Prefect database, caches)
stays in the local data home whichever root holds the tables.

- `LocalRoot`: `<home>/artifacts/<key>`. Every path is checked to lie inside the data home once
  symlinks are resolved; writes go to a temporary name and are renamed into place.
- `S3Root`: `s3://bucket/prefix/<key>` through pyarrow's S3 file system, credentials and endpoint
  from the standard AWS environment variables. An object appears whole when its upload completes,
  so readers never see half a table. Keys are checked segment by segment: nothing can name an
  object outside the prefix. Messages never carry a credential. Queries read small tables into
  memory once per process instead of once per scan (`S3Root.dataset`): a report runs dozens of
  queries over the same few objects.

A root kind is found by the URL's scheme in `ROOT_KINDS`.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import shutil
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pyarrow as pa

from common.redact import REDACTED, redact
from warehouse.paths import UnsafePathError, atomic_write_parquet, inside
from warehouse.schema import read_as

# pyarrow.parquet too is imported where a file is read or written: a stage worker, which hands its rows back,
# never loads it (~10 MB a process; issue 56).
if TYPE_CHECKING:  # imported where used (`dataset`): the worker processes never read a dataset
    import pyarrow.dataset as pads

WILDCARDS = re.compile(r"[*?\[]")
# Concurrent requests when many small objects are read at once (run state, schemas).
REMOTE_READERS = 16
# A query's table whose objects are this small in all is read into memory once and scanned there (see
# `S3Root.dataset`); objects read so are kept for this process up to `REMOTE_CACHE_BYTES` in all, and
# used again while a new listing shows the same size and modification time.
REMOTE_IN_MEMORY_BYTES = 32 * 2**20
REMOTE_CACHE_BYTES = 128 * 2**20


class ArtifactRootError(ValueError):
    """The artifact location is malformed, unreachable or lacks credentials; the message says what to do."""


class ArtifactRoot(ABC):
    """Final stage tables and run state, addressed by key (see the module doc)."""

    url: str  # where the tables are, for messages (never a credential)
    remote: bool = False

    @abstractmethod
    def write(self, key: str, table: pa.Table) -> None:
        """Store `table` as Parquet at `key`, replacing what was there in one step."""

    @abstractmethod
    def read(self, key: str) -> pa.Table | None:
        """The table at `key`, or None when there is none."""

    def read_many(self, keys: Sequence[str]) -> list[pa.Table]:
        tables = [self.read(key) for key in keys]
        return [t for t in tables if t is not None]

    def iter_many(self, keys: Sequence[str]) -> Iterator[pa.Table]:
        """The tables at `keys` (those still there), read one at a time as they are taken: a caller that
        keeps none holds one table at a time."""
        for key in keys:
            table = self.read(key)
            if table is not None:
                yield table
            table = None  # not held while the next one is read

    @abstractmethod
    def glob(self, pattern: str) -> list[str]:
        """Keys of the files matching `pattern` (`*`, `?`, `[…]` within one segment), sorted."""

    def glob_many(self, patterns: Sequence[str]) -> dict[str, list[str]]:
        return {pattern: self.glob(pattern) for pattern in dict.fromkeys(patterns)}

    @abstractmethod
    def tree(self, prefix: str) -> list[str]:
        """Keys of every file under the folder `prefix`, sorted."""

    @abstractmethod
    def has_folder(self, prefix: str) -> bool:
        """Whether the folder `prefix` exists (holds a file, for object stores)."""

    @abstractmethod
    def delete(self, key: str) -> None:
        """Remove the file at `key` (nothing when it is absent)."""

    @abstractmethod
    def copy(self, source: str, target: str) -> None:
        """Copy a file other than a table from one key to another."""

    @abstractmethod
    def read_schema(self, key: str) -> pa.Schema: ...

    @abstractmethod
    def dataset(self, keys: Sequence[str], schema: pa.Schema) -> pads.Dataset:
        """The Parquet files at `keys` as one pyarrow dataset with `schema`."""

    def read_schemas(self, keys: Sequence[str]) -> list[pa.Schema]:
        return [self.read_schema(key) for key in keys]

    def check(self) -> None:  # noqa: B027 - a local root has nothing to ask
        """Raise ArtifactRootError when the root cannot be used (a remote one is asked once)."""

    def location(self, key: str) -> str:
        return f"{self.url}/{key}"


def check_key(key: str) -> str:
    """`key` if each of its segments is an ordinary name; '..', '.', empty segments and backslashes
    could name something outside the root (or a different object than the one meant)."""
    if not key or key.startswith("/") or "\\" in key or any(ord(c) < 32 for c in key):
        raise ArtifactRootError(f"refusing artifact key {key!r}: not a relative path of plain names")
    if any(part in ("", ".", "..") for part in key.split("/")):
        raise ArtifactRootError(f"refusing artifact key {key!r}: '.', '..' and empty segments are not allowed")
    return key


def _literal_prefix(pattern: str) -> str:
    """The folders of `pattern` before its first wildcard segment ('' when the first has one)."""
    literal = []
    for part in pattern.split("/")[:-1]:
        if WILDCARDS.search(part):
            break
        literal.append(part)
    return "/".join(literal)


def match_key(key: str, pattern: str) -> bool:
    """Path-style glob: same number of segments, each matched by fnmatch (a `*` never crosses '/')."""
    parts, wanted = key.split("/"), pattern.split("/")
    return len(parts) == len(wanted) and all(fnmatch.fnmatchcase(p, w) for p, w in zip(parts, wanted, strict=True))


class LocalRoot(ArtifactRoot):
    """`<home>/artifacts/`: every path checked inside the data home, writes renamed into place."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.base = self.home / "artifacts"
        self.url = str(self.base)

    def path(self, key: str) -> Path:
        try:
            check_key(key)
        except ArtifactRootError as exc:
            raise UnsafePathError(str(exc)) from None
        return inside(self.home, self.base / key)

    def write(self, key: str, table: pa.Table) -> None:
        atomic_write_parquet(table, self.path(key))

    def read(self, key: str) -> pa.Table | None:
        # Through one open file: a table another run replaces (renamed into place) while this reads it is read
        # whole, old or new. By path, pyarrow takes the size of one file and the bytes of the other
        # ("Page was smaller than expected"), which failed a run sharing the home with another.
        try:
            with pa.OSFile(str(self.path(key))) as handle:
                import pyarrow.parquet as pq

                # ParquetFile, not read_table: the same table (every column and its metadata), without loading
                # pyarrow.dataset (~17 MB in the run's process; issue 56).
                return pq.ParquetFile(handle).read()
        except FileNotFoundError:
            return None

    def glob(self, pattern: str) -> list[str]:
        # Symlinked files are left out: a table is a file the store wrote, never a link to elsewhere.
        found = (p for p in self.base.glob(pattern) if p.is_file() and not p.is_symlink())
        return sorted(p.relative_to(self.base).as_posix() for p in found)

    def tree(self, prefix: str) -> list[str]:
        folder = self.path(prefix)
        if not folder.is_dir():
            return []
        return sorted(p.relative_to(self.base).as_posix() for p in folder.rglob("*") if not p.is_dir())

    def has_folder(self, prefix: str) -> bool:
        return self.path(prefix).exists()

    def delete(self, key: str) -> None:
        self.path(key).unlink(missing_ok=True)

    def copy(self, source: str, target: str) -> None:
        src, dst = self.path(source), self.path(target)
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            if dst.exists():
                dst.unlink()
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    def read_schema(self, key: str) -> pa.Schema:
        with pa.OSFile(str(self.path(key))) as handle:  # as `read`
            import pyarrow.parquet as pq
            return pq.read_schema(handle)

    def dataset(self, keys: Sequence[str], schema: pa.Schema) -> pads.Dataset:
        import pyarrow.dataset as pads

        return pads.dataset([str(self.path(key)) for key in keys], schema=schema, format="parquet")


# -- S3 -------------------------------------------------------------------------------------------

# S3's bucket naming rules (MinIO and other S3-compatible stores follow them).
BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
PREFIX_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._=-]{0,254}")
# Where AWS's own credential chain finds credentials without keys in the environment.
CHAIN_ENV = ("AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
             "AWS_CONTAINER_CREDENTIALS_FULL_URI")
URL_EXAMPLE = "s3://my-bucket/accessbench"


@dataclass(frozen=True)
class S3Location:
    bucket: str
    prefix: str  # '' or 'a/b' (no leading or trailing slash)

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"

    @property
    def base(self) -> str:
        """The root as pyarrow names it: `bucket/prefix`."""
        return f"{self.bucket}/{self.prefix}" if self.prefix else self.bucket


def _shown(url: str) -> str:
    """`url` for a message: anything before an '@' in its authority (a key pasted into it) is hidden."""
    scheme, sep, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        authority = f"{REDACTED}@" + authority.rpartition("@")[2]
    return f"{scheme}{sep}{authority}{slash}{path}" if sep else url


def parse_s3_url(url: str) -> S3Location:
    """`s3://bucket[/prefix]` checked and normalised; ArtifactRootError says what is wrong."""
    if not isinstance(url, str) or not url.strip():
        raise ArtifactRootError(f"empty artifact URL: use s3://BUCKET/PREFIX, e.g. {URL_EXAMPLE}")
    shown = _shown(url)
    if not url.startswith("s3://"):
        raise ArtifactRootError(f"artifact URL {shown!r}: only s3://BUCKET/PREFIX is supported, e.g. {URL_EXAMPLE}")
    rest = url[len("s3://"):]
    if any(c in rest for c in "?#@\\") or any(ord(c) < 33 for c in rest):
        raise ArtifactRootError(f"artifact URL {shown!r}: no credentials, query, fragment, spaces or backslashes "
                                "in it; credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY")
    bucket, _, prefix = rest.partition("/")
    if not BUCKET.fullmatch(bucket) or ".." in bucket:
        raise ArtifactRootError(f"artifact URL {shown!r}: {bucket!r} is not a valid bucket name (3-63 lowercase "
                                "letters, digits, '.' or '-', starting and ending with a letter or digit)")
    prefix = prefix.strip("/")
    for segment in prefix.split("/") if prefix else []:
        if not PREFIX_SEGMENT.fullmatch(segment):
            raise ArtifactRootError(f"artifact URL {shown!r}: prefix segment {segment!r} is not allowed; use "
                                    "letters, digits, '.', '_', '-' or '=', starting with a letter or digit, "
                                    "with single slashes between segments")
    return S3Location(bucket, prefix)


def s3_options(env: Mapping[str, str], bucket: str) -> dict[str, Any]:
    """Keyword arguments for pyarrow's S3FileSystem from the standard AWS environment variables."""
    options: dict[str, Any] = {"connect_timeout": 5.0, "request_timeout": 60.0}
    key, secret = env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY")
    if bool(key) != bool(secret):
        raise ArtifactRootError("S3 credentials: set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                                "(one of them is empty)")
    if key:
        options.update(access_key=key, secret_key=secret, session_token=env.get("AWS_SESSION_TOKEN") or None)
    elif not any(env.get(name) for name in CHAIN_ENV):
        raise ArtifactRootError("no S3 credentials in the environment: set AWS_ACCESS_KEY_ID and "
                                "AWS_SECRET_ACCESS_KEY (plus AWS_SESSION_TOKEN for temporary ones), or AWS_PROFILE")
    endpoint = env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    if endpoint:
        parts = urlsplit(endpoint)
        try:
            port_ok = parts.port is None or 0 < parts.port < 65536
        except ValueError:
            port_ok = False
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password \
                or parts.path not in ("", "/") or parts.query or parts.fragment or not port_ok:
            raise ArtifactRootError(f"S3 endpoint {_shown(endpoint)!r} (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL): use "
                                    "http(s)://HOST[:PORT], e.g. http://127.0.0.1:9000")
        options.update(endpoint_override=parts.netloc, scheme=parts.scheme)
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
    if not region and not endpoint:
        from pyarrow.fs import resolve_s3_region

        try:
            region = resolve_s3_region(bucket)
        except OSError as exc:
            raise ArtifactRootError(f"could not find the region of bucket {bucket!r} ({redact(str(exc), env)}); "
                                    "set AWS_REGION") from None
    options["region"] = region or "us-east-1"  # S3-compatible servers (MinIO, moto) accept any region
    return options


@functools.lru_cache(maxsize=8)
def _s3_filesystem(items: tuple[tuple[str, Any], ...]) -> Any:
    from pyarrow.fs import AwsStandardS3RetryStrategy, S3FileSystem

    return S3FileSystem(**dict(items), retry_strategy=AwsStandardS3RetryStrategy(max_attempts=3))


class S3Root(ArtifactRoot):
    """`s3://bucket/prefix/<key>` through pyarrow's S3 file system (see the module doc)."""

    remote = True

    def __init__(self, url: str, env: Mapping[str, str] | None = None) -> None:
        self.where = parse_s3_url(url)
        self.url = self.where.url
        self.env = dict(os.environ if env is None else env)
        options = s3_options(self.env, self.where.bucket)
        self.endpoint = (f"{options['scheme']}://{options['endpoint_override']}" if "endpoint_override" in options
                         else f"AWS S3 ({options['region']})")
        self.fs = _s3_filesystem(tuple(sorted(options.items())))
        self._listed: dict[str, tuple[int, int]] = {}  # key -> (size, mtime ns) of the latest listing

    def full(self, key: str) -> str:
        return f"{self.where.base}/{check_key(key)}"

    @contextmanager
    def _errors(self, action: str, key: str = "") -> Iterator[None]:
        """An S3 failure as one clear line, credentials removed (a missing object is not a failure here)."""
        try:
            yield
        except FileNotFoundError:
            raise
        except OSError as exc:
            where = self.location(key) if key else self.url
            raise ArtifactRootError(f"S3 {action} failed for {where} at {self.endpoint}: "
                                    f"{redact(str(exc).strip(), self.env)}") from None

    def check(self) -> None:
        from pyarrow.fs import FileType

        with self._errors("access check"):
            info = self.fs.get_file_info(self.where.bucket)
        if info.type == FileType.NotFound:
            raise ArtifactRootError(f"bucket {self.where.bucket!r} does not exist at {self.endpoint}: create it, or "
                                    "fix the URL (and AWS_ENDPOINT_URL for an S3-compatible server)")

    def write(self, key: str, table: pa.Table) -> None:
        # Encoded in memory first: an encoding error never starts an upload, and the object appears
        # only when its upload completes.
        sink = pa.BufferOutputStream()
        import pyarrow.parquet as pq
        pq.write_table(table, sink, compression="zstd")
        _forget(self.full(key))
        with self._errors("write", key), self.fs.open_output_stream(self.full(key)) as out:
            out.write(sink.getvalue())

    def read(self, key: str) -> pa.Table | None:
        try:
            return self._get(key)
        except FileNotFoundError:
            return None

    def _get(self, key: str) -> pa.Table:
        """The object at `key` in one GET (a random-access file asks for its size, footer and columns apart)."""
        with self._errors("read", key), self.fs.open_input_stream(self.full(key)) as stream:
            data = stream.read()
        import pyarrow.parquet as pq
        return pq.ParquetFile(pa.BufferReader(data)).read()  # as `LocalRoot.read`

    def read_many(self, keys: Sequence[str]) -> list[pa.Table]:
        return [t for t in self._parallel(self.read, keys) if t is not None]

    def iter_many(self, keys: Sequence[str]) -> Iterator[pa.Table]:
        return iter(self.read_many(keys))  # fetched in parallel: a remote store's latency weighs more

    def _parallel(self, fn: Callable[[str], Any], keys: Sequence[str]) -> list[Any]:
        if len(keys) < 2:
            return [fn(key) for key in keys]
        with ThreadPoolExecutor(max_workers=min(REMOTE_READERS, len(keys))) as pool:
            return list(pool.map(fn, keys))

    def _files(self, prefix: str) -> list[str]:
        from pyarrow.fs import FileSelector, FileType

        base = f"{self.where.base}/{check_key(prefix)}" if prefix else self.where.base
        with self._errors("listing", prefix):
            infos = self.fs.get_file_info(FileSelector(base, recursive=True, allow_not_found=True))
        start = len(self.where.base) + 1
        found = {info.path[start:]: (info.size, info.mtime_ns or 0) for info in infos if info.type == FileType.File}
        self._listed.update(found)
        return sorted(found)

    def glob(self, pattern: str) -> list[str]:
        return [key for key in self._files(_literal_prefix(pattern)) if match_key(key, pattern)]

    def glob_many(self, patterns: Sequence[str]) -> dict[str, list[str]]:
        everything = self._files("")  # one listing for all the catalog's tables
        return {pattern: [key for key in everything if match_key(key, pattern)] for pattern in dict.fromkeys(patterns)}

    def tree(self, prefix: str) -> list[str]:
        return self._files(prefix)

    def has_folder(self, prefix: str) -> bool:
        return bool(self._files(prefix))

    def delete(self, key: str) -> None:
        try:
            _forget(self.full(key))
            with self._errors("delete", key):
                self.fs.delete_file(self.full(key))
        except FileNotFoundError:
            pass

    def copy(self, source: str, target: str) -> None:
        _forget(self.full(target))
        with self._errors("copy", source):
            self.fs.copy_file(self.full(source), self.full(target))

    def read_schema(self, key: str) -> pa.Schema:
        with self._errors("read", key), self.fs.open_input_file(self.full(key)) as handle:
            import pyarrow.parquet as pq
            return pq.read_schema(handle)

    def read_schemas(self, keys: Sequence[str]) -> list[pa.Schema]:
        if self._in_memory(keys):  # read whole, once: `dataset` scans the same objects next
            return [table.schema for table in self._parallel(self._listed_table, keys)]
        return self._parallel(self.read_schema, keys)

    def dataset(self, keys: Sequence[str], schema: pa.Schema) -> pads.Dataset:
        """The objects at `keys` as one dataset of `schema`. Objects a listing showed, small enough in all
        (`REMOTE_IN_MEMORY_BYTES`), are read once and scanned in memory: every scan of a pyarrow dataset on
        S3 asks for each object again (a report's queries made ~1,600 requests for a 25-document run)."""
        import pyarrow.dataset as pads

        if self._in_memory(keys):
            tables = self._parallel(self._listed_table, keys)
            return pads.InMemoryDataset(pa.concat_tables([read_as(t, schema) for t in tables]), schema=schema)
        with self._errors("listing"):
            return pads.dataset([self.full(key) for key in keys], schema=schema, format="parquet", filesystem=self.fs)

    def _in_memory(self, keys: Sequence[str]) -> bool:
        return bool(keys) and all(key in self._listed for key in keys) and \
            sum(self._listed[key][0] for key in keys) <= REMOTE_IN_MEMORY_BYTES

    def _listed_table(self, key: str) -> pa.Table:
        """The object at `key` as the latest listing showed it: from this process's cache while its size and
        modification time are unchanged, else read (and kept)."""
        size, mtime = self._listed[key]
        path = self.full(key)
        with _REMOTE_CACHE_LOCK:
            cached = _REMOTE_CACHE.get(path)
            if cached is not None and cached[:2] == (size, mtime):
                _REMOTE_CACHE.move_to_end(path)
                return cached[2]
        table = self._get(key)
        _remember(path, size, mtime, table)
        return table


_REMOTE_CACHE: OrderedDict[str, tuple[int, int, pa.Table]] = OrderedDict()  # full path -> (size, mtime, table)
_REMOTE_CACHE_LOCK = threading.Lock()


def _remember(path: str, size: int, mtime: int, table: pa.Table) -> None:
    with _REMOTE_CACHE_LOCK:
        _REMOTE_CACHE[path] = (size, mtime, table)
        _REMOTE_CACHE.move_to_end(path)
        while sum(entry[0] for entry in _REMOTE_CACHE.values()) > REMOTE_CACHE_BYTES and len(_REMOTE_CACHE) > 1:
            _REMOTE_CACHE.popitem(last=False)


def _forget(path: str) -> None:
    """This process writes, copies over or deletes the object: never serve the old content again."""
    with _REMOTE_CACHE_LOCK:
        _REMOTE_CACHE.pop(path, None)


ROOT_KINDS: dict[str, Callable[[str], ArtifactRoot]] = {"s3": S3Root}


def open_root(url: str) -> ArtifactRoot:
    """The root an artifact URL names (its scheme picks the kind)."""
    scheme = url.partition("://")[0] if "://" in url else ""
    kind = ROOT_KINDS.get(scheme)
    if kind is None:
        raise ArtifactRootError(f"artifact URL {_shown(url)!r}: use one of {', '.join(f'{k}://' for k in ROOT_KINDS)}"
                                f" (e.g. {URL_EXAMPLE}); leave it unset for <home>/artifacts")
    return kind(url)
