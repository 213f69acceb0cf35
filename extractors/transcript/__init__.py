"""Screen-reader transcripts: what a reader announces for a PDF, in the order it announces it.

Two backends, chosen by name through :func:`get_transcriber`:

- ``emulated`` (the default, :func:`transcribe`): an emulated screen reader. For a
  tagged PDF it walks the tag tree in logical (structure) order and announces roles
  the way NVDA or JAWS do in Acrobat ("heading level 2, Methods", "list, 3 items",
  "list item, 1 of 3, ...", "table, 4 rows, 3 columns", "column header, Year",
  "row 2, Year 2020", "link, see the project archive", "graphic, <alt>" or
  "unlabelled graphic", "end of list", "end of table"). Artifacts are not in the tree,
  so they are never read; Alt replaces a Figure's or Formula's content and ActualText
  replaces an element's text. An untagged PDF is read as plain text blocks in content
  order (role ``text``), which is all a screen reader gets from one.
- ``aws-transcribe`` (:func:`transcribe_audio`): a recording of a real screen reader,
  transcribed by Amazon Transcribe (boto3, optional), one row per spoken segment.

Both return records of :data:`TRANSCRIPT_SCHEMA`. Nothing here writes files, except
that ``aws-transcribe`` uploads the audio to the S3 bucket it is given.
"""

from __future__ import annotations

from common.lazy_exports import lazy_exports
from common.registry import UnknownName
from extractors.transcript.base import (
    AWS_INSTALL,
    MAX_ANNOUNCEMENT,
    MAX_ENTRIES_PER_PAGE,
    MAX_TEXT,
    TRANSCRIBERS,
    TRUNCATED,
    Transcriber,
    TranscriptError,
)

# The backends are imported when used (PEP 562 for their functions; `get_transcriber` through the registry): the
# emulated one reads PDFs with PyMuPDF and pikepdf, which the run's own process, checking names, never loads.
_BACKEND_FUNCTIONS = {"transcribe": "extractors.transcript.emulated", "transcribe_audio": "extractors.transcript.aws"}


# The table's schema (pyarrow) on first use too: a worker that transcribes imports none (issue 56).
__getattr__ = lazy_exports(globals(), {**_BACKEND_FUNCTIONS, "TRANSCRIPT_SCHEMA": "warehouse.tables"})

__all__ = [
    "AWS_INSTALL",
    "MAX_ANNOUNCEMENT",
    "MAX_ENTRIES_PER_PAGE",
    "MAX_TEXT",
    "TRANSCRIBERS",
    "TRANSCRIPT_SCHEMA",
    "TRUNCATED",
    "Transcriber",
    "TranscriptError",
    "check_transcriber",
    "get_transcriber",
    "transcribe",
    "transcribe_audio",
]

def check_transcriber(name: str) -> None:
    """Raise TranscriptError for a name no backend is declared under (nothing is imported)."""
    try:
        TRANSCRIBERS.require(name)
    except UnknownName as exc:
        raise TranscriptError(str(exc)) from None


def get_transcriber(name: str = "emulated") -> Transcriber:
    """The transcript backend registered as ``name`` ("emulated" reads a PDF; "aws-transcribe" audio)."""
    try:
        return TRANSCRIBERS.factory(name)
    except UnknownName as exc:
        raise TranscriptError(str(exc)) from None
