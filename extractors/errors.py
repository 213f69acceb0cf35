"""The one way extractors open a PDF, and the error they raise when they cannot.

Every extractor opens its input through :func:`open_pdf` (PyMuPDF) or
:func:`open_pikepdf` (pikepdf, for the object-level tag tree). Both turn the ways a
file can be unreadable into one :class:`ExtractionError` (a ``common.errors.TerminalError``) whose ``kind`` is stable
(callers in ``tasks/`` store it in an error row and the run goes on) and whose
message says what to do next; :func:`reading` does the same for damage found
later, while pages are read. Any other exception escaping an extractor is a bug.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from common.errors import TerminalError

if TYPE_CHECKING:  # imported where a file is opened: a process that only names the errors never loads them
    import pikepdf
    import pymupdf

ExtractionKind = Literal["missing", "encrypted", "corrupt", "empty"]


class ExtractionError(TerminalError):
    """A document no extractor can read; terminal, so do not retry it.

    ``kind`` is one of ``missing``, ``encrypted``, ``corrupt`` or ``empty`` (no pages); its
    advice is the kind's in ``common.errors.KINDS``. The message names
    the problem and the fix but never the file path: error rows can reach reports,
    and paths leak benchmark labels. The path is kept on ``.path`` for logs.
    """

    def __init__(self, kind: ExtractionKind, detail: str, *, path: str | Path | None = None) -> None:
        self.kind: ExtractionKind = kind
        self.detail = scrub_paths(detail, path)
        self.path = str(path) if path is not None else None
        super().__init__(f"{kind}: {self.detail}; {self.advice}")


_ABSOLUTE = re.compile(r"(?<![\w:/.\\])(?:/(?:[^/\s'\"]+/)+|[A-Za-z]:\\(?:[^\\\s'\"]+\\)+)([^/\\\s'\"]+)")


def scrub_paths(text: str, *paths: str | Path | None) -> str:
    """`text` with file paths cut to their last part: folders can name a benchmark label
    (`…/cannot_tell/…`) and a user's home; the file name alone says which file it was."""
    for path in paths:
        if path is None:
            continue
        for form in {str(path), str(Path(path).resolve())}:
            text = text.replace(form, Path(path).name)
    return _ABSOLUTE.sub(lambda m: m.group(1), text)


def _check_file(path: str | Path) -> Path:
    file = Path(path)
    if not file.is_file():
        raise ExtractionError("missing", "no such file", path=file)
    if file.stat().st_size == 0:
        raise ExtractionError("corrupt", "the file is 0 bytes", path=file)
    return file


def open_mupdf(path: str | Path) -> pymupdf.Document:
    """PyMuPDF's open for any name the file system allows: MuPDF takes names as UTF-8, so a name
    that is not (bytes from another encoding) is opened through a Python file object."""
    import pymupdf

    if not _utf8_name(path):
        return pymupdf.open(stream=Path(path).read_bytes(), filetype="pdf")
    return pymupdf.open(path, filetype="pdf")


def _utf8_name(path: str | Path) -> bool:
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def open_pdf(path: str | Path) -> pymupdf.Document:
    """Open ``path`` with PyMuPDF, or raise :class:`ExtractionError`.

    PyMuPDF silently repairs damaged cross-reference tables, so a truncated file
    usually opens; it only fails here when nothing usable is left (no pages).
    """
    file = _check_file(path)
    try:
        # filetype="pdf": without it PyMuPDF guesses from the name and would happily
        # open a text or image file as a one-page document.
        doc = open_mupdf(file)
    except (RuntimeError, ValueError) as exc:  # FileDataError and MuPDF format errors
        raise ExtractionError("corrupt", f"PyMuPDF cannot parse it ({exc})", path=file) from exc
    if doc.needs_pass:
        doc.close()
        raise ExtractionError("encrypted", "the PDF is encrypted with a user password", path=file)
    if doc.page_count == 0:
        repaired = doc.is_repaired
        doc.close()
        if repaired:
            raise ExtractionError("corrupt", "damaged beyond repair: no pages recovered", path=file)
        raise ExtractionError("empty", "the PDF has zero pages", path=file)
    return doc


def open_pikepdf(path: str | Path) -> pikepdf.Pdf:
    """Open ``path`` with pikepdf (qpdf), or raise :class:`ExtractionError`.

    Files encrypted with only an owner password (the common "no copying" kind)
    open normally: reading them needs no password.
    """
    import pikepdf

    file = _check_file(path)
    try:
        # qpdf describes a file by its name, which must be UTF-8; other names are opened as bytes.
        pdf = pikepdf.open(file) if _utf8_name(file) else pikepdf.open(io.BytesIO(file.read_bytes()))
    except pikepdf.PasswordError as exc:
        raise ExtractionError("encrypted", "the PDF is encrypted with a user password", path=file) from exc
    except pikepdf.PdfError as exc:
        raise ExtractionError("corrupt", f"qpdf cannot parse it ({exc})", path=file) from exc
    try:
        page_count = len(pdf.pages)
    except pikepdf.PdfError as exc:  # a broken page tree surfaces lazily
        pdf.close()
        raise ExtractionError("corrupt", f"unreadable page tree ({exc})", path=file) from exc
    if page_count == 0:
        pdf.close()
        raise ExtractionError("empty", "the PDF has zero pages", path=file)
    return pdf


@contextmanager
def reading(path: str | Path | object, what: str) -> Iterator[None]:
    """Turn qpdf or MuPDF failures while reading ``what`` into a "corrupt" ExtractionError.

    ``path`` may also be an ``extractors.source.PdfSource`` (its ``path`` is used).
    """
    import pikepdf
    from pymupdf import mupdf

    try:
        yield
    except (pikepdf.PdfError, mupdf.FzErrorBase) as exc:
        file = str(getattr(path, "path", path))
        raise ExtractionError("corrupt", f"cannot read the {what} ({exc})", path=file) from exc
