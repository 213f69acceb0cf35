"""What `accessbench fix` checks so that it never makes a document worse (repairs/fix.py): the files it must leave
alone (`inspect_source`: over the run's limits, unreadable, needing a password, protected, signed), what it
keeps (encryption and permissions, the document information, active content never added) and the check of
each copy after writing (`verify_copy`: pages, text, renders, active content, size).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pikepdf
import pymupdf

from extractors.streams import StreamLimitError, StreamLimits, check_streams


class Refused(Exception):
    """A document fix leaves as it is, with the reason in one line: `kind` is limit, timeout, empty, not_pdf,
    damaged, encrypted (needs a password), protected (permissions forbid changes), signed, unverified (the
    copy would differ from the original) or pipeline (the run refused it)."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind, self.message = kind, message
        super().__init__(f"{kind}: {message}")

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:  # crosses from the repair worker by pickle
        return type(self), (self.kind, self.message)


@dataclass(frozen=True)
class FixLimits:
    """The limits of `accessbench run` (tasks.engine.options.StageSettings), applied to a repair as to a run."""

    max_file_mb: float = 512.0
    max_pages: int = 2000
    max_stream_mb: float = 256.0
    doc_timeout_s: float = 120.0
    worker_memory_mb: float = 1536.0

    @classmethod
    def of(cls, settings: Any) -> FixLimits:
        return cls(**{name: getattr(settings, name) for name in cls.__dataclass_fields__})


AMPLIFICATION = 4  # a repaired copy larger than this many times the original (plus 1 MiB) is a limit
RENDER_DPI, RENDER_TOLERANCE = 36, 8  # the after-writing check: page images at 36 dpi, no channel off by more


# ----------------------------------------------------------------- what the file protects, and its limits

def signatures(pdf: pikepdf.Pdf) -> list[str]:
    """What a change would invalidate: each signature field with a value, and each /Perms entry (UR3: the
    usage rights a Reader-extended form carries, DocMDP: a certification)."""
    found: list[str] = []
    acroform = pdf.Root.get("/AcroForm")
    fields = list(acroform.get("/Fields") or []) if isinstance(acroform, pikepdf.Dictionary) else []
    seen: set[tuple[int, int]] = set()
    while fields:
        field_ = fields.pop()
        if not isinstance(field_, pikepdf.Dictionary) or (field_.is_indirect and field_.objgen in seen):
            continue
        if field_.is_indirect:
            seen.add(field_.objgen)
        if field_.get("/FT") == pikepdf.Name.Sig and field_.get("/V") is not None:
            found.append(f"signature field “{_text(field_.get('/T')) or 'unnamed'}”")
        fields += list(field_.get("/Kids") or [])
    perms = pdf.Root.get("/Perms")
    if isinstance(perms, pikepdf.Dictionary):
        found += [f"/Perms {key}" for key in perms]
    return found


def _text(value: Any) -> str:
    try:
        return str(value) if value is not None else ""
    except (UnicodeDecodeError, ValueError):
        return ""


ACTIVE_KINDS = ("JavaScript", "launch action", "embedded file", "additional actions", "rich media")


def active_content(pdf: pikepdf.Pdf) -> Counter[str]:
    """How many JavaScript actions, launch actions, embedded files, additional-action dictionaries and rich
    media annotations the file holds."""
    found: Counter[str] = Counter()
    for obj in _dictionaries(pdf):
        if "/JS" in obj or obj.get("/S") == pikepdf.Name.JavaScript:
            found["JavaScript"] += 1
        if obj.get("/S") == pikepdf.Name.Launch:
            found["launch action"] += 1
        if obj.get("/Type") == pikepdf.Name.Filespec and "/EF" in obj:
            found["embedded file"] += 1
        if "/AA" in obj:
            found["additional actions"] += 1
        if obj.get("/Subtype") == pikepdf.Name.RichMedia:
            found["rich media"] += 1
    return found


def _dictionaries(pdf: pikepdf.Pdf) -> Iterator[pikepdf.Dictionary]:
    """Every dictionary of the file, indirect or held directly inside another object (an /OpenAction)."""
    for top in pdf.objects:
        pending = [top]
        while pending:
            obj = pending.pop()
            if isinstance(obj, pikepdf.Dictionary | pikepdf.Stream):
                yield obj  # type: ignore[misc]
                pending += [v for v in obj.values() if isinstance(v, pikepdf.Object) and not v.is_indirect]
            elif isinstance(obj, pikepdf.Array):
                pending += [v for v in obj if isinstance(v, pikepdf.Object) and not v.is_indirect]


@dataclass
class SourceFacts:
    """What `inspect_source` learnt: the signatures a change would invalidate, whether the file is encrypted
    (and so must stay so), and the active content it holds (kept, never added to)."""

    signatures: list[str]
    encrypted: bool
    active: Counter[str]


def inspect_source(original: Path, limits: FixLimits) -> SourceFacts:
    """Refuse (`Refused`) a file fix must not touch, before anything decodes it: empty, not a PDF, over the
    run's limits (file size, pages, stream sizes: a decompression bomb), damaged, needing a password, or
    encrypted with permissions that forbid changes."""
    size = original.stat().st_size
    if size == 0:
        raise Refused("empty", "the file is empty")
    if size > limits.max_file_mb * 2**20:
        raise Refused("limit", f"the file has {size / 2**20:,.0f} MiB, over --max-file-mb {limits.max_file_mb:g}")
    with open(original, "rb") as handle:
        if b"%PDF-" not in handle.read(1024):
            raise Refused("not_pdf", "not a PDF (no %PDF- header in its first 1,024 bytes)")
    try:
        pdf = pikepdf.open(original)
    except pikepdf.PasswordError:
        raise Refused("encrypted", "it needs a password to open; fix cannot read it (remove the password with "
                                   "its owner's consent, then fix that copy)") from None
    except (pikepdf.PdfError, ValueError, OSError) as exc:
        raise Refused("damaged", f"it cannot be read as a PDF ({str(exc).splitlines()[0][:160]})") from None
    with pdf:
        if len(pdf.pages) > limits.max_pages:
            raise Refused("limit", f"{len(pdf.pages):,} pages, over --max-pages {limits.max_pages:,}")
        try:
            check_streams(pdf, StreamLimits.from_mb(limits.max_stream_mb))
        except StreamLimitError as exc:
            raise Refused("limit", str(exc).removeprefix("limit: ")) from None
        if pdf.is_encrypted and not pdf.allow.modify_other:
            raise Refused("protected", "its permissions forbid changes (encrypted, no modify permission): fix "
                                       "leaves it as it is; ask its owner for an editable copy")
        return SourceFacts(signatures(pdf), pdf.is_encrypted, active_content(pdf))


def refuse_signed(facts: SourceFacts, allowed: bool) -> None:
    """`Refused("signed")` for a signed file, unless signatures may be invalidated."""
    if facts.signatures and not allowed:
        raise Refused("signed", f"it is signed ({', '.join(facts.signatures[:3])}) and any change would invalidate "
                                "that; fix leaves it as it is (pass --allow-invalidating-signatures to repair a copy "
                                "whose signatures no longer hold)")


# ----------------------------------------------------------------- writing and checking the copy

def _pdf_date(when: datetime) -> str:
    return when.strftime("D:%Y%m%d%H%M%S+00'00'")


def keep_metadata(pdf: pikepdf.Pdf, before: dict[str, Any], changed: bool) -> None:
    """The document information the remedies dropped back (/Producer, /Author, /CreationDate …), and the
    modification date set to now when anything changed (in the document information and, where the file has
    XMP, in xmp:ModifyDate and xmp:MetadataDate)."""
    if not before and not changed:
        return
    if not isinstance(pdf.trailer.get("/Info"), pikepdf.Dictionary):
        pdf.trailer.Info = pdf.make_indirect(pikepdf.Dictionary())
    info = pdf.trailer.Info
    for key, value in before.items():
        if key not in info:
            info[pikepdf.Name(key)] = value
    if not changed:
        return
    now = datetime.now(UTC).replace(microsecond=0)
    info.ModDate = pikepdf.String(_pdf_date(now))
    if isinstance(pdf.Root.get("/Metadata"), pikepdf.Stream):
        with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
            meta["xmp:ModifyDate"] = now.isoformat()
            meta["xmp:MetadataDate"] = now.isoformat()


def _image(page: pymupdf.Page) -> np.ndarray:
    return np.frombuffer(page.get_pixmap(dpi=RENDER_DPI).samples, dtype=np.uint8).astype(np.int16)


def verify_copy(original: Path, copy: Path, facts: SourceFacts) -> str | None:
    """Why `copy` is worse than `original` (None: it is not): another page count, text or rendering on a page,
    active content added, encryption or permissions lost. A copy far larger than its original is a limit."""
    size = copy.stat().st_size
    if size > AMPLIFICATION * original.stat().st_size + 2**20:
        raise Refused("limit", f"the repaired copy would be {size / 2**20:,.1f} MiB, over {AMPLIFICATION} x the "
                               "original; nothing written")
    with pikepdf.open(original) as before, pikepdf.open(copy) as after:
        if len(before.pages) != len(after.pages):
            return f"{len(after.pages)} pages instead of {len(before.pages)}"
        if facts.encrypted and (not after.is_encrypted or after.allow != before.allow):
            return "the encryption or permissions changed"
        added = active_content(after) - facts.active
        if added:
            return f"it adds active content ({', '.join(f'{n} {kind}' for kind, n in added.items())})"
    with pymupdf.open(original) as before_doc, pymupdf.open(copy) as after_doc:  # page by page: one page in memory
        for number, (page, page_after) in enumerate(zip(before_doc, after_doc, strict=True), start=1):
            if page.get_text() != page_after.get_text():
                return f"the text of page {number} changed"
            image, image_after = _image(page), _image(page_after)
            if image.shape != image_after.shape or np.abs(image - image_after).max() > RENDER_TOLERANCE:
                return f"the rendering of page {number} changed"
    return None
