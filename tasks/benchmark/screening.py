"""One overall verdict per screened file (`run --pdfs`, or a dataset without expected labels).

A user screening a collection needs to know, per file, whether it `fails`, `passes`, or `could not be
checked` (and why: not a PDF, encrypted, empty file, truncated, …). The verdict sits on top of the
benchmark's labels, never instead of them: a file fails when any criterion is Failed, or when its
semantic tagging is Not Present (an untagged file: PDF/UA-1 7.1 requires a structure tree); it could not
be checked when no criterion got a label (every one unjudged, or the file never got past an error).

The aggregate stage stores the verdicts in the `screening` table; the reports compute them
with the same function from the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from common.filenames import shown_name
from corpus.unreadable import DAMAGED, EMPTY, REASONS, without_file_note
from judges.conformance import DOES_NOT_CONFORM
from judges.conformance import NOT_CHECKED as PDFUA_NOT_CHECKED
from judges.conformance import verdict as pdfua_verdict
from judges.labels import Label

FAILS, PASSES, NOT_CHECKED = "fails", "passes", "could not be checked"
VERDICT_ORDER = {NOT_CHECKED: 0, FAILS: 1, PASSES: 2}  # most urgent first
UNJUDGED = "unjudged"
UNTAGGED = "untagged (no structure tree: PDF/UA-1 7.1)"


def trips(verdict: str, warnings: int, fail_on: str) -> bool:
    """Whether a file's verdict (and its count of warnings) meets `--fail-on` (tasks.engine.options.FAIL_ON)."""
    if fail_on == "never":
        return False
    return verdict in (FAILS, NOT_CHECKED) or (fail_on == "warnings" and warnings > 0)


def shorten(text: str, limit: int = 160) -> str:
    """`text` whole when it fits in `limit` characters, else cut at the last word boundary before it, with …"""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return (cut if cut else text[:limit]) + " …"


def error_reason(kind: str | None, message: str) -> str:
    """A short reason, for a person, from an error row that kept a file from being checked."""
    text = without_file_note(message.strip())
    low = text.lower()
    for reason in REASONS:  # said first by the corpus stage (corpus.unreadable)
        if low.startswith(reason.lower()):
            return reason
    if "encrypted" in low or kind == "encrypted":
        return "encrypted"
    if "emptyfileerror" in low or "empty stream" in low:
        return EMPTY
    if "no pages" in low or kind == "empty":
        return "no pages"
    if "damaged beyond repair" in low:
        return DAMAGED
    if kind == "limit":
        return "over a limit: " + shorten(text.removeprefix("limit: "))
    if kind == "skipped":
        return "skipped: " + shorten(text.removeprefix("skipped: "))
    if kind == "missing":
        return "missing"
    if "unreadable pdf" in low:
        return "unreadable PDF"
    return (f"{kind}: " if kind else "") + shorten(text)


def file_key(files: Sequence[str] | None, doc_id: str) -> str:
    """A screened file as the user named it: its path under the screened folder (several: joined)."""
    return " + ".join(shown_name(f) for f in files) if files else doc_id


def conformance_of(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per document its PDF/UA-1 verdict and the rules it failed ("<rule id> (<clause>)"), from `conformance` rows."""
    by_doc: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_doc.setdefault(row["doc_id"], []).append(row)
    return {doc_id: {"verdict": pdfua_verdict(found),
                     "failed": sorted({f"{r['rule_id']} ({r['clause'] or '?'})" for r in found
                                       if r["status"] == "failed"})}
            for doc_id, found in by_doc.items()}


def verdict_of(labels: Mapping[str, Sequence[str]], errors: Sequence[tuple[str | None, str]],
               conformance: Mapping[str, Any] | None = None) -> tuple[str, str | None]:
    """(verdict, reason) of one file from its labels per criterion (one per judge), its error rows
    (kind, message), warnings left out, and its PDF/UA-1 verdict (`conformance_of`): a file that does not
    conform to PDF/UA-1 fails even where every criterion passed (a syntax rule that no reader meets directly,
    e.g. the PDF/UA identifier, still breaks the standard the file is screened against)."""
    judged = {c: [lab for lab in labs if lab != UNJUDGED] for c, labs in labels.items()}
    if not any(judged.values()):
        if errors:
            return NOT_CHECKED, "; ".join(dict.fromkeys(error_reason(kind, message) for kind, message in errors))
        return NOT_CHECKED, "no criterion got a label"
    failed = sorted(c for c, labs in judged.items() if Label.FAILED in labs)
    reasons = []
    if any(Label.NOT_PRESENT in labs for c, labs in judged.items() if c == "semantic_tagging"):
        reasons.append(UNTAGGED)
    if failed:
        reasons.append("failed: " + ", ".join(failed))
    nonconforming = bool(conformance) and conformance.get("verdict") == DOES_NOT_CONFORM  # type: ignore[union-attr]
    if nonconforming:
        rules = list(conformance.get("failed") or [])  # type: ignore[union-attr]
        reasons.append(f"does not conform to PDF/UA-1: {len(rules)} rule(s) failed"
                       + (f", e.g. {', '.join(rules[:3])}" if rules else ""))
    unchecked = sorted(c for c, labs in judged.items() if not labs)
    if unchecked:  # some criteria got no label: the verdict stands on the others, and says so
        reasons.append("not checked: " + ", ".join(unchecked))
    return (FAILS if failed or nonconforming or UNTAGGED in reasons else PASSES), "; ".join(reasons) or None


def screening_rows(run_id: str, documents: Iterable[Mapping[str, Any]], doc_labels: Iterable[Mapping[str, Any]],
                   errors: Iterable[Mapping[str, Any]], warning_kinds: Iterable[str] = (),
                   conformance: Iterable[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """One row per screened file (a run holds one document per file and criterion), most urgent first."""
    warnings = set(warning_kinds)
    pdfua = conformance_of(conformance)
    file_of: dict[str, str] = {}
    files: dict[str, dict[str, Any]] = {}
    for doc in documents:
        key = file_key(doc.get("files"), doc["doc_id"])
        file_of[doc["doc_id"]] = key
        entry = files.setdefault(key, {"doc_ids": [], "pages": None, "labels": {}, "errors": []})
        entry["doc_ids"].append(doc["doc_id"])
        entry["labels"].setdefault(doc["criterion"], [])
        if doc.get("pages"):
            entry["pages"] = max(entry["pages"] or 0, int(doc["pages"]))
    first_repeat: dict[str, int] = {}
    rows_by_doc = list(doc_labels)
    for row in rows_by_doc:
        first_repeat[row["doc_id"]] = min(first_repeat.get(row["doc_id"], row["repeat"]), row["repeat"])
    for row in rows_by_doc:
        if row["doc_id"] in file_of and row["repeat"] == first_repeat[row["doc_id"]]:
            files[file_of[row["doc_id"]]]["labels"].setdefault(row["criterion"], []).append(row["label"])
    for err in errors:
        if err.get("doc_id") in file_of and err.get("kind") not in warnings:
            found = files[file_of[err["doc_id"]]]["errors"]
            item = (err.get("kind"), str(err.get("message") or ""))
            if item not in found:
                found.append(item)
    out = []
    for key, entry in files.items():
        checked = next((pdfua[d] for d in entry["doc_ids"] if d in pdfua), None)
        verdict, reason = verdict_of(entry["labels"], entry["errors"], checked)
        by_label = {label: sorted(c for c, labs in entry["labels"].items() if label in labs)
                    for label in (*(lab.value for lab in Label), UNJUDGED)}
        by_label[UNJUDGED] = sorted(c for c, labs in entry["labels"].items() if not labs or UNJUDGED in labs)
        out.append({"run_id": run_id, "file": key, "verdict": verdict, "reason": reason,
                    "failed": by_label[Label.FAILED], "not_present": by_label[Label.NOT_PRESENT],
                    "cannot_tell": by_label[Label.CANNOT_TELL], "unjudged": by_label[UNJUDGED],
                    "pages": entry["pages"], "doc_ids": sorted(entry["doc_ids"]),
                    "conformance": checked["verdict"] if checked else PDFUA_NOT_CHECKED,
                    "conformance_failed": checked["failed"] if checked else []})
    out.sort(key=lambda r: (VERDICT_ORDER[r["verdict"]], -len(r["failed"]), r["file"]))
    return out
