"""Text from PDFs and models as every output format can carry it safely: one function per kind of output.

- :func:`visible` — a terminal (and the plain-text formats printed to one): control characters that a
  terminal would obey (ESC/OSC sequences, a carriage return that overwrites the line, C1 controls, DEL,
  bidirectional overrides such as U+202E) shown as ``\\x1b`` / ``\\u202e``; with ``newlines=False`` also
  newlines and tabs, for a value that must stay on its line (a file name in a table row).
- :func:`xml_text` — JUnit XML (and anything else XML 1.0): the characters XML 1.0 forbids (C0 controls
  but tab/newline/carriage return, lone surrogates, U+FFFE/U+FFFF) shown the same way, so the file stays
  well-formed.
- :func:`csv_cell` — a CSV cell a spreadsheet opens: text starting with ``=``, ``+``, ``-``, ``@`` (or a tab or
  carriage return) is prefixed with ``'`` so it is read as text, never as a formula.
- :func:`write_atomic` — a report file appears whole or not at all: written beside it, then renamed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# What a terminal would obey: C0 controls (newline and tab apart), DEL and C1 controls, bidirectional marks,
# embeddings, overrides and isolates, and the Unicode line and paragraph separators.
_TERMINAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_TERMINAL_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# Not allowed in XML 1.0 (https://www.w3.org/TR/xml/#charsets), and surrogates (a name that is not UTF-8 read
# with surrogateescape) that no encoder writes; C1 controls are allowed but shown escaped too.
_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u202a-\u202e\u2066-\u2069]")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _surrogates(text: str) -> str:
    """Lone surrogates (bytes of a non-UTF-8 name, read with surrogateescape) as the bytes they stand for."""
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def visible(text: str, newlines: bool = True) -> str:
    """`text` for a terminal: controls (all but newline and tab, or all with `newlines=False`) as escapes."""
    return (_TERMINAL if newlines else _TERMINAL_LINE).sub(_escape, _surrogates(text))


def xml_text(text: str) -> str:
    """`text` with every character XML 1.0 cannot hold (and terminal controls) as visible escapes."""
    return _XML.sub(_escape, _surrogates(text))


def csv_cell(value: object) -> object:
    """A CSV cell a spreadsheet reads as text: a string starting with a formula character gets a leading `'`."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def write_atomic(path: Path, text: str, encoding: str = "utf-8") -> None:
    """Write `text` to `path` whole or not at all: a failure (an encoding error, a full disk) leaves an earlier
    file as it was and no partial one."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with open(partial, "w", encoding=encoding) as handle:
            handle.write(text)
        partial.replace(path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
