"""The call log: every model call of both studies as sent and answered, for the `llm_calls` table.

A `CallLog` collects the records of one unit of work (a page's call and its repair, an audited
model's answer, a category judge's call and its repair); the stage that ran the unit adds the keys
(run, judge, document or response, …) and writes them. Images are stored once each under
`<home>/calls/images/<sha256>.png` and referenced by hash; every text is redacted and bounded.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from common.redact import redact, redact_exact
from models.client import ModelResponse
from models.config import STORED_REPLY_CHARS, bounded
from models.replies import ReplyError, extract_json


class ImageStore:
    """Images of the call log, stored once each as `<sha256>.png` under the data home."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def put(self, data_url: str) -> str:
        digest = hashlib.sha256(data_url.encode()).hexdigest()
        path = self.root / f"{digest}.png"
        if not path.exists():
            _, _, payload = data_url.partition(",")
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}-{threading.get_ident()}.partial")
            tmp.write_bytes(base64.b64decode(payload))
            tmp.replace(path)
        return digest


class CallLog:
    """The records of one unit's calls (the first and any repair), as `llm_calls` stores them."""

    def __init__(self, images: ImageStore | None = None, *, study: str = "pdf", purpose: str = "judge_page") -> None:
        self.images = images
        self.study = study
        self.purpose = purpose
        self.records: list[dict[str, Any]] = []

    def _stored_messages(self, messages: list[dict[str, Any]]) -> str:
        store = self.images

        def swap(value: Any) -> Any:
            if isinstance(value, dict):
                if value.get("type") == "image_url" and isinstance(value.get("image_url"), dict):
                    url = str(value["image_url"].get("url", ""))
                    ref = store.put(url) if store is not None and url.startswith("data:") else \
                        hashlib.sha256(url.encode()).hexdigest()
                    return {"type": "image_url", "image_url": {"url": f"sha256:{ref}"}}
                return {k: swap(v) for k, v in value.items()}
            if isinstance(value, list):
                return [swap(v) for v in value]
            return value

        return json.dumps(swap(messages), ensure_ascii=False)

    def add(self, messages: list[dict[str, Any]], response: ModelResponse | None, *, repair: bool = False,
            error: str | None = None, reply_chars: int = STORED_REPLY_CHARS) -> None:
        """One call's record; its reply cut to `reply_chars` (the client's `ModelConfig.stored_reply_chars`)."""
        self.records.append({
            "attempt": len(self.records), "kind": "repair" if repair else "first",
            "study": self.study, "purpose": self.purpose,
            "messages": redact_exact(self._stored_messages(messages)),
            "reply": redact_exact(bounded(response.text, reply_chars)) if response else None,
            "parsed": None, "parse_error": None, "normalised": None,
            "cached": response.cached if response else False,
            "http_attempts": response.attempts if response else None,
            "latency_s": response.latency_s if response else None,
            "tokens_in": response.tokens_in if response else None,
            "tokens_out": response.tokens_out if response else None,
            "cost_usd": response.cost_usd if response else None,
            "params": json.dumps(response.params_sent if response else {}, sort_keys=True, default=str),
            "error": redact(error) if error else None,
        })

    def parsed(self, parsed_json: str, normalised: list[str] | None = None) -> None:
        """What the last reply parsed to (JSON text), and the normalisations reading it needed."""
        self.records[-1]["parsed"] = redact_exact(parsed_json)
        self.records[-1]["normalised"] = json.dumps(sorted(normalised or []))

    def failed_parse(self, problem: str) -> None:
        last = self.records[-1]
        last["parse_error"] = problem
        with contextlib.suppress(ReplyError):
            last["parsed"] = redact_exact(json.dumps(extract_json(last["reply"] or ""), ensure_ascii=False))

    def complete(self, client: Any, messages: list[dict[str, Any]], request: dict[str, Any], repeat: int = 0,
                 context: dict[str, Any] | None = None, *, repair: bool = False) -> ModelResponse:
        """`client.complete`, with the call (or its failure) recorded here."""
        from models.client import ModelCallError

        try:
            response = client.complete(messages, request, repeat, context)
        except ModelCallError as exc:
            self.add(messages, None, repair=repair, error=str(exc))
            raise
        config = getattr(client, "config", None)
        self.add(messages, response, repair=repair,
                 reply_chars=config.stored_reply_chars if config is not None else STORED_REPLY_CHARS)
        return response
