"""The error taxonomy, declared once: every kind of per-document error, whether a retry may help
(transient) or not (terminal), and one line of advice for the person running the pipeline.

As in dlt, errors written for users derive from one of two base classes: :class:`TerminalError` (the input
or the configuration must change first: a malformed, encrypted or missing PDF) or :class:`TransientError`
(the same work may succeed later: a timeout, throttling, a lost connection). A concrete error names its
``kind``, an entry of :data:`KINDS`; ``extractors.errors.ExtractionError`` is one. The runner
(``tasks.engine.failures.classify``) stores the kind and its transience in the ``errors`` table: a transient error
leaves its document not done, so a resumed run retries it; a terminal one is recorded once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorKind:
    """A kind of per-document error: stable name (the `errors.kind` value), transient or terminal, advice."""

    name: str
    transient: bool
    advice: str
    warning: bool = False  # a warning row, not a failure: the document's evidence stays usable


KINDS: dict[str, ErrorKind] = {kind.name: kind for kind in (
    # Transient: the same work may succeed later; a resume retries the document.
    # A document past --doc-timeout is terminal (DocumentTimeout: a resume does not pay the time again);
    # a model call past its deadline is retried on resume.
    ErrorKind("timeout", True, "ran past its time limit: a model call is retried when the run resumes; a "
                               "document is not (raise --doc-timeout, then accessbench rerun the stage)"),
    ErrorKind("rate_limit", True, "the service throttled the request: resume the run later to retry it"),
    ErrorKind("connection", True, "a connection failed: check the network or the service, then resume the run"),
    ErrorKind("memory", True, "the process ran out of memory: resume with fewer --workers or a lower "
                              "--max-page-megapixels"),
    # Terminal: the input or the configuration must change first.
    ErrorKind("missing", False, "check the path in the corpus manifest; the file is not there or not readable"),
    ErrorKind("encrypted", False, "the PDF needs a password: decrypt it first "
                                  "(qpdf --decrypt --password=PASSWORD in.pdf out.pdf) and re-add the decrypted copy"),
    ErrorKind("corrupt", False, "the file is not a readable PDF: re-download or re-export it "
                                "(qpdf --check in.pdf shows the damage)"),
    ErrorKind("empty", False, "the PDF has no pages: re-export it from its source document"),
    ErrorKind("limit", False, "the input is over a limit: raise --max-file-mb or --max-pages to read it"),
    ErrorKind("skipped", False, "the file was skipped (a symlink out of the folder, or not a regular file)"),
    ErrorKind("corpus", False, "fix the corpus entry (manifest or file), then rerun the corpus stage"),
    ErrorKind("unsupported", False, "choose a judge that covers the criterion, or leave it out with --criteria"),
    ErrorKind("unjudged", False, "fix the extraction error of the document; it is counted wrong meanwhile"),
    ErrorKind("transcript", False, "check the transcript backend's configuration and the document's audio"),
    ErrorKind("internal", False, "a bug in AccessBench: report it with the message"),
    # Warnings, not failures: the document's rows stand.
    ErrorKind("repaired", False, "the damaged file was read from MuPDF's repair: re-export or fix it", warning=True),
    ErrorKind("label_conflict", False, "byte-identical files carry different expected labels: fix the dataset's "
                                       "manifest", warning=True),
    ErrorKind("conformance", False, "the PDF/UA-1 validator could not check the file (its verdict is 'not "
                                    "checked'); the other evidence stands", warning=True),
)}
# Error rows that leave a document's evidence usable.
WARNING_KINDS = frozenset(name for name, kind in KINDS.items() if kind.warning)


def kind_of(name: str) -> ErrorKind:
    """The kind named `name`; a kind without an entry (a stage's own, e.g. `bad_question`) is terminal."""
    return KINDS.get(name) or ErrorKind(name, False, "see the message")


class DocumentTimeout(Exception):
    """The document took longer than its time limit: terminal, so a resumed run does not pay the time again
    for the same input (a rerun of the stage, with a higher --doc-timeout, tries it again)."""

    transient = False


class AccessBenchError(Exception):
    """An error written for users: `kind` names its entry in :data:`KINDS`; the message says what is wrong."""

    kind: str  # set by each concrete error (a class attribute or per instance)
    transient: bool = False

    @property
    def advice(self) -> str:
        return kind_of(getattr(self, "kind", "internal")).advice


class TerminalError(AccessBenchError):
    """Retrying cannot help: the input or the configuration must change first."""

    transient = False


class TransientError(AccessBenchError):
    """The same work may succeed later: a resumed run retries the document."""

    transient = True
