"""PDF/UA-1 conformance: the `page` validator's verdict on every rule of its `ua1` profile, as rows.

`page` (PyPI `page-validation`, MIT, a Rust library with no dependencies) is the syntax layer: it checks the
machine-checkable part of ISO 14289-1 the way veraPDF does. It reports only the rules a file breaks; which rules
exist, what they enforce and where a reader meets them is declared in the rules catalog
(`judges/rules/catalog/conformance/pdfua1.toml`, read through `judges.conformance`), so a rule that did
not fail is `passed` where the document contains what it checks and `not_applicable` where it does not.

The validator runs inside the extract stage's bounded worker, with its own safety limits set from the run's
`--max-file-mb` and `--max-stream-mb`; a file it cannot read or that is over one of its limits is `not checked`
(the reason in the verdict row), never a crash.
"""

from __future__ import annotations

import re
from typing import Any

import pikepdf

MIB = 1 << 20
FAILURES_PER_RULE = 50  # rows kept per failed rule and file; the last says how many more there were


_PAGE_IN_MESSAGE = re.compile(r"\bpage (\d+)\b", re.IGNORECASE)


def document_features(qpdf: pikepdf.Pdf) -> set[str]:
    """The "@…" features of `applies` (judges/rules/catalog/conformance) a file has."""
    features: set[str] = set()
    root = qpdf.Root
    annotations = links = widgets = media = False
    for page in qpdf.pages:
        for annot in page.obj.get("/Annots", None) or []:
            if not isinstance(annot, pikepdf.Dictionary):
                continue
            annotations = True
            subtype = str(annot.get("/Subtype", ""))
            links |= subtype == "/Link"
            widgets |= subtype == "/Widget"
            media |= subtype in ("/Screen", "/Movie", "/Sound", "/RichMedia")
    features |= {name for name, present in (("@annotations", annotations), ("@links", links), ("@media", media))
                 if present}
    if widgets or "/AcroForm" in root:
        features.add("@forms")
    if "/Outlines" in root:
        features.add("@outlines")
    if "/OCProperties" in root:
        features.add("@optional_content")
    names = root.get("/Names", None)
    if isinstance(names, pikepdf.Dictionary) and "/EmbeddedFiles" in names:
        features.add("@embedded_files")
    return features


def validate(path: str, *, max_file_mb: float, max_stream_mb: float) -> tuple[list[dict[str, Any]], str | None]:
    """The validator's failures of one file (rule_id, message, object_id), or ([], why it could not be checked)."""
    import page  # the Rust extension loads only where a file is validated

    limits = page.SafetyLimits(max_input_size=int(max_file_mb * MIB),
                               max_decoded_stream_size=int(max_stream_mb * MIB),
                               max_total_decoded_content_size=int(16 * max_stream_mb * MIB))
    try:
        report = page.validate_pdf(path, profile="ua1", limits=limits)
    except page.SafetyLimitError as exc:
        return [], f"limit: over the validator's safety limits ({str(exc)[:200]})"
    except page.PageError as exc:
        return [], f"unreadable by the PDF/UA-1 validator ({type(exc).__name__}: {str(exc)[:200]})"
    # Plain values at once: each failure object keeps the validator's whole parse of the file alive (~45 MB
    # for a 15-page paper), which would otherwise sit under the extractors' own peak until the file is done.
    failures = []
    for failure in report.failures:
        obj = failure.object_id
        failures.append({"rule_id": str(failure.rule_id), "message": str(failure.message),
                         "object_id": f"{obj.object_number} {obj.generation}" if obj is not None else None})
    return failures, None


def extract_conformance(path: str, qpdf: pikepdf.Pdf, *, max_file_mb: float, max_stream_mb: float,
                        page_offset: int = 0, validated: tuple[list[dict[str, Any]], str | None] | None = None
                        ) -> tuple[list[dict[str, Any]], set[str], str | None]:
    """The validator's failures of one file (rule_id, message, object_id, page), the "@…" features the file
    has, and why it could not be checked (None when it was).

    `validated` is what :func:`validate` gave for the file when the caller ran it earlier (the extract stage
    does, before its extractors fill the file's page caches: the validator's own buffers then never sit on top
    of them)."""
    failures, error = validated if validated is not None else validate(path, max_file_mb=max_file_mb,
                                                                       max_stream_mb=max_stream_mb)
    if error is not None:
        return [], set(), error
    rows = []
    for failure in failures:
        message = failure["message"]
        on_page = _PAGE_IN_MESSAGE.search(message)
        rows.append({"rule_id": failure["rule_id"], "message": message[:500], "object_id": failure["object_id"],
                     "page": int(on_page.group(1)) + page_offset if on_page else None})
    return rows, document_features(qpdf), None
