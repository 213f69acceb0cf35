"""Unreadable input becomes one ExtractionError with a stable kind, from every extractor."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from extractors import (
    ExtractionError,
    extract_fonts,
    extract_links,
    extract_orphan_link_elements,
    extract_struct_elements,
    extract_text_spans,
    open_pdf,
    open_pikepdf,
    render_pages,
    struct_summary,
)


def _extractors(tmp_path: Path) -> dict[str, Callable[[Path], list[dict]]]:
    return {
        "struct_elements": lambda p: extract_struct_elements(p, doc_id="d"),
        "links": lambda p: extract_links(p, doc_id="d"),
        "orphan_link_elements": lambda p: extract_orphan_link_elements(p, doc_id="d"),
        "fonts": lambda p: extract_fonts(p, doc_id="d"),
        "text_spans": lambda p: extract_text_spans(p, doc_id="d"),
        "pages": lambda p: render_pages(p, doc_id="d", out_dir=tmp_path / "png", dpi=20),
    }


@pytest.mark.parametrize(
    ("fixture", "kind"),
    [("encrypted_pdf", "encrypted"), ("corrupt_pdf", "corrupt"), ("zero_page_pdf", "empty")],
)
def test_bad_input_raises_one_kind_from_every_extractor(
    fixture: str, kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    path = request.getfixturevalue(fixture)
    for name, extract in _extractors(tmp_path).items():
        with pytest.raises(ExtractionError) as caught:
            extract(path)
        assert caught.value.kind == kind, name


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(ExtractionError) as missing:
        open_pdf(tmp_path / "nope.pdf")
    assert missing.value.kind == "missing"
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    with pytest.raises(ExtractionError) as zero_bytes:
        open_pikepdf(empty)
    assert zero_bytes.value.kind == "corrupt"


def test_message_says_what_to_do_and_hides_the_path(encrypted_pdf: Path) -> None:
    with pytest.raises(ExtractionError) as caught:
        open_pdf(encrypted_pdf)
    message = str(caught.value)
    assert message.startswith("encrypted:")
    assert "qpdf --decrypt" in message
    assert str(encrypted_pdf) not in message and encrypted_pdf.name not in message
    assert caught.value.path == str(encrypted_pdf)


def test_owner_password_only_is_readable(owner_only_pdf: Path) -> None:
    assert any(r["type"] == "H1" for r in extract_struct_elements(owner_only_pdf, doc_id="d"))
    assert extract_links(owner_only_pdf, doc_id="d")


def test_truncated_file_extracts_or_raises_extraction_error(truncated_pdf: Path, tmp_path: Path) -> None:
    for extract in _extractors(tmp_path).values():
        try:
            extract(truncated_pdf)
        except ExtractionError as exc:
            assert exc.kind in {"corrupt", "empty"}


def test_summary_reports_errors_instead_of_raising(encrypted_pdf: Path, corrupt_pdf: Path) -> None:
    assert struct_summary(encrypted_pdf)["error"].startswith("encrypted:")
    summary = struct_summary(corrupt_pdf)
    assert summary["error"].startswith("corrupt:") and summary["tagged"] is False


def test_error_messages_name_the_file_never_its_folders() -> None:
    from extractors.errors import ExtractionError, scrub_paths

    leaky = "/data/bench/processed/cannot_tell/W123.pdf"
    error = ExtractionError("corrupt", f"PyMuPDF cannot parse it (Failed to open file '{leaky}')", path=leaky)
    assert "cannot_tell" not in str(error) and "W123.pdf" in str(error)
    assert scrub_paths("see https://example.org/a/b.pdf") == "see https://example.org/a/b.pdf"
