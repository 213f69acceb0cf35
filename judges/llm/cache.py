"""Response cache: one JSON file per request, keyed on a sha256 of everything sent.

The key covers the model id, the messages (images replaced by their sha256, so the key is small and
stable), the parameters actually sent and the repeat index — repeats are distinct calls by design. The
API base and keys are not part of the key: the same request to a proxy or to the provider is the same
request, and secrets must never reach the disk.

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


def cache_key(model: str, messages: list[dict[str, Any]], params: dict[str, Any], repeat: int) -> str:
    payload = {"model": model, "messages": messages_digest(messages), "params": params, "repeat": repeat}
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


class ResponseCache:
    """Sharded JSON files; safe for concurrent readers and writers."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @classmethod
    def under_home(cls, home: Path) -> ResponseCache:
        return cls(Path(home) / "cache" / "llm")

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            record = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
            return None  # a missing or damaged entry is a miss; the call is simply made again
        return record if isinstance(record, dict) and "text" in record else None

    def put(self, key: str, record: dict[str, Any]) -> None:
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
