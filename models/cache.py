"""Response cache: one JSON file per request, keyed on a sha256 of everything sent.

The key covers the endpoint (api base), the model id, the full messages (images replaced by their sha256,
so the key is small and stable), the parameters actually sent, and the call's place in the run — document,
page and repeat index. A different server is a different experiment, and repeats (and identical pages of
different documents) are independent samples by design. Keys (secrets) are never part of anything
stored. `mode` says whether the cache is read, written, both (`on`) or neither (`off`).

Files live under `<home>/cache/llm/<key[:2]>/<key>.json` and are written to a temporary file and
renamed, so concurrent threads (or processes) never see a half-written entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def _digest_images(value: Any) -> Any:
    """Replace inline image data (data URLs) by their sha256 so keys do not carry megabytes."""
    if isinstance(value, dict):
        out = {k: _digest_images(v) for k, v in value.items()}
        if value.get("type") == "image_url" and isinstance(value.get("image_url"), dict):
            url = value["image_url"].get("url", "")
            out["image_url"] = {**value["image_url"], "url": "sha256:" + hashlib.sha256(url.encode()).hexdigest()}
        return out
    if isinstance(value, list):
        return [_digest_images(v) for v in value]
    return value


def messages_digest(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    digested: list[dict[str, Any]] = _digest_images(messages)
    return digested


def cache_key(model: str, messages: list[dict[str, Any]], params: dict[str, Any], repeat: int, *,
              api_base: str | None = None, context: dict[str, Any] | None = None) -> str:
    """The request's identity: endpoint, model, messages, parameters, and where in a run it belongs."""
    payload = {"model": model, "api_base": (api_base or "").rstrip("/"), "messages": messages_digest(messages),
               "params": params, "repeat": repeat, "context": context or {}}
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


CACHE_MODES = ("on", "off", "read", "write")


class ResponseCache:
    """Sharded JSON files; safe for concurrent readers and writers."""

    def __init__(self, root: Path, mode: str = "on") -> None:
        if mode not in CACHE_MODES:
            raise ValueError(f"unknown cache mode {mode!r}; choose one of {', '.join(CACHE_MODES)}")
        self.root = Path(root)
        self.mode = mode

    @classmethod
    def under_home(cls, home: Path, mode: str = "on") -> ResponseCache:
        return cls(cache_root(home), mode)

    @property
    def reads(self) -> bool:
        return self.mode in ("on", "read")

    @property
    def writes(self) -> bool:
        return self.mode in ("on", "write")

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        if not self.reads:
            return None
        try:
            record = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
            return None  # a missing or damaged entry is a miss; the call is simply made again
        return record if isinstance(record, dict) and "text" in record else None

    def put(self, key: str, record: dict[str, Any]) -> None:
        if not self.writes:
            return
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {**record, "key": key, "stored_at": datetime.now(UTC).isoformat(timespec="seconds")}
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(record, handle, ensure_ascii=False, sort_keys=True)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("*/*.json")) if self.root.exists() else 0

    def info(self) -> dict[str, Any]:
        """Entries, bytes on disk, and entries per model."""
        entries, size = 0, 0
        models: dict[str, int] = {}
        for path in self.root.glob("*/*.json") if self.root.exists() else ():
            entries += 1
            size += path.stat().st_size
            try:
                model = json.loads(path.read_text(encoding="utf-8")).get("model") or "?"
            except (json.JSONDecodeError, UnicodeDecodeError, OSError):
                model = "(unreadable)"
            models[model] = models.get(model, 0) + 1
        return {"root": str(self.root), "entries": entries, "bytes": size, "models": dict(sorted(models.items()))}

    def clear(self, model: str | None = None) -> int:
        """Delete every entry (or one model's); returns how many were deleted."""
        removed = 0
        for path in list(self.root.glob("*/*.json")) if self.root.exists() else ():
            if model is not None:
                try:
                    if json.loads(path.read_text(encoding="utf-8")).get("model") != model:
                        continue
                except (json.JSONDecodeError, UnicodeDecodeError, OSError):
                    pass
            path.unlink(missing_ok=True)
            removed += 1
        return removed


def cache_root(home: Path) -> Path:
    return Path(home) / "cache" / "llm"
