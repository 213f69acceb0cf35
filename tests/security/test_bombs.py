"""Decompression and form bombs: refused as `limit` rows at the corpus stage, in bounded memory; a worker that
allocates past its memory ceiling ends as a `limit` row, not a dead run.

Bombs are generated in tmp_path (a 4 GiB Flate bomb is 4 MiB on disk, the others kilobytes).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zlib
from functools import partial
from pathlib import Path

import pikepdf
import pytest

from benchmarks.hostile_files import BOMBS, write_bomb, zero_bomb
from corpus.manifest import FileLimits, load_pdf_folder
from extractors.streams import StreamLimitError, StreamLimits, check_streams, decoded_size
from tasks.engine.failures import Failure, classify, guarded
from tasks.engine.isolation import DocumentTimeout, WorkerMemoryLimit, run_isolated, shared_workers
from tests.security.workload import allocate, vm_data_mib

REPO = Path(__file__).resolve().parents[2]


def test_the_zero_bomb_inflates_to_what_it_says() -> None:
    data = zero_bomb(64 << 20)
    assert len(data) < 100_000
    assert len(zlib.decompress(data)) == 64 << 20  # a valid zlib stream, checksum included


@pytest.mark.parametrize("kind", BOMBS)
def test_every_bomb_is_a_limit_row_and_a_good_file_is_not(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    write_bomb(folder / "bomb.pdf", kind, size=1 << 30)
    assert (folder / "bomb.pdf").stat().st_size < 2 << 20
    good = pikepdf.new()
    good.add_blank_page()
    good.pages[0].obj.Contents = good.make_indirect(pikepdf.Stream(good, b"BT ET " * 10_000))
    good.save(folder / "good.pdf")
    rows = {row["files"][0]: row for row in load_pdf_folder(
        folder, "r", ["fonts_readability"], limits=FileLimits(max_stream_bytes=16 << 20))}
    assert rows["good.pdf"]["error"] is None
    bomb = rows["bomb.pdf"]
    assert bomb["error_kind"] == "limit", bomb["error"]
    assert "limit:" in bomb["error"] and bomb.get("sha256") is None


def test_messages_name_the_stream_and_the_option(tmp_path: Path) -> None:
    expected = {"content": "content stream", "font": "embedded font", "cmap": "ToUnicode CMap",
                "xmp": "XMP metadata", "image": "image", "forms": "form bomb"}
    for kind, words in expected.items():
        with pikepdf.open(write_bomb(tmp_path / f"{kind}.pdf", kind, size=1 << 30)) as pdf, \
                pytest.raises(StreamLimitError) as caught:
            check_streams(pdf, StreamLimits(max_stream_bytes=16 << 20))
        assert words in str(caught.value)
        if kind != "forms":
            assert "--max-stream-mb" in str(caught.value)


@pytest.mark.heavy
def test_a_4_gib_bomb_is_refused_by_a_process_that_stays_small(tmp_path: Path) -> None:
    """At the default cap, in a fresh process whose peak resident size is then read back."""
    folder = tmp_path / "pdfs"
    folder.mkdir()
    write_bomb(folder / "content.pdf", "content", size=4 << 30)
    write_bomb(folder / "xmp.pdf", "xmp", size=3 << 30)
    # VmHWM, the peak resident size of this process's own memory: getrusage's ru_maxrss would also count
    # the peak of the process it was forked from (Linux keeps it across exec), a test worker's 1+ GiB.
    script = textwrap.dedent(f"""
        from pathlib import Path
        from corpus.manifest import load_pdf_folder
        rows = load_pdf_folder({str(folder)!r}, "r", ["fonts_readability"])
        assert all(row["error_kind"] == "limit" for row in rows), rows
        peak = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmHWM"))
        print(int(peak.split()[1]) // 1024)
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) < 1024  # MiB: far under the 2 GiB ceiling


def _stream(data: bytes, filters: list[str], **keys: object) -> pikepdf.Stream:
    pdf = pikepdf.new()
    stream = pikepdf.Stream(pdf, data)
    stream.Filter = pikepdf.Array([pikepdf.Name(f) for f in filters])
    for key, value in keys.items():
        stream[f"/{key}"] = value
    return pdf.make_indirect(stream)


def test_decoded_sizes_match_qpdf_for_each_filter() -> None:
    payload = b"BT /F1 12 Tf (Hello) Tj ET\n" * 5000
    pdf = pikepdf.new()
    for filters in (["/FlateDecode"], ["/FlateDecode", "/FlateDecode"], ["/ASCIIHexDecode", "/FlateDecode"],
                    ["/ASCII85Decode"], ["/RunLengthDecode"], ["/LZWDecode"]):
        # Encoded by qpdf itself where it can (Flate), else by hand; decoded by qpdf for the truth.
        stream = pikepdf.Stream(pdf, payload)
        data = payload
        for name in reversed(filters):
            if name == "/FlateDecode":
                data = zlib.compress(data)
            elif name == "/ASCIIHexDecode":
                data = data.hex().encode() + b">"
            elif name == "/ASCII85Decode":
                import base64

                data = base64.a85encode(data) + b"~>"
            elif name == "/RunLengthDecode":
                data = b"".join(bytes([len(data[i:i + 128]) - 1]) + data[i:i + 128]
                                for i in range(0, len(data), 128)) + b"\x80"
            elif name == "/LZWDecode":
                data = _lzw(data)
        stream.write(data, filter=pikepdf.Array([pikepdf.Name(f) for f in filters]))
        assert stream.read_bytes(pikepdf.StreamDecodeLevel.specialized) == payload, filters
        assert decoded_size(stream, 1 << 30) == len(payload), filters
        stopped = decoded_size(stream, 1000)
        assert stopped is not None and stopped > 1000, filters  # reported over the cap, without decoding it all


def _lzw(data: bytes) -> bytes:
    """A plain LZW encoder (PDF's: 9-12 bit codes, EarlyChange 1), for the size counter's test."""
    width, out, bits, nbits = 9, bytearray(), 0, 0

    def emit(code: int) -> None:
        nonlocal bits, nbits
        bits, nbits = (bits << width) | code, nbits + width
        while nbits >= 8:
            nbits -= 8
            out.append((bits >> nbits) & 0xFF)
        bits &= (1 << nbits) - 1

    def fresh() -> dict[bytes, int]:
        return {bytes([i]): i for i in range(256)}

    table, next_code, word = fresh(), 258, b""
    emit(256)
    for byte in data:
        candidate = word + bytes([byte])
        if candidate in table:
            word = candidate
            continue
        emit(table[word])
        table[candidate] = next_code
        next_code += 1
        word = bytes([byte])
        if next_code >= 4094:
            emit(256)
            table, next_code, width = fresh(), 258, 9
        elif next_code >= (1 << width):
            width += 1
    emit(table[word])
    emit(257)
    if nbits:
        out.append((bits << (8 - nbits)) & 0xFF)
    return bytes(out)


def test_a_nested_form_that_is_drawn_a_few_times_is_fine(tmp_path: Path) -> None:
    pdf = pikepdf.new()
    pdf.add_blank_page()
    form = pdf.make_indirect(pikepdf.Stream(pdf, b"0 0 1 1 re f", Type=pikepdf.Name.XObject,
                                            Subtype=pikepdf.Name.Form, BBox=[0, 0, 1, 1]))
    page = pdf.pages[0]
    page.obj.Contents = pdf.make_indirect(pikepdf.Stream(pdf, b"/X Do " * 500))
    page.obj.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(X=form))
    check_streams(pdf, StreamLimits(max_draws=1000))
    with pytest.raises(StreamLimitError, match="page 1 draws more than 100 XObjects"):
        check_streams(pdf, StreamLimits(max_draws=100))


def test_a_worker_over_its_memory_ceiling_gives_a_limit_row_and_the_others_finish() -> None:
    with shared_workers(2, preload=["tasks.benchmark.render"], memory_mb=512):
        started = dict(run_isolated(vm_data_mib, [0, 1], workers=2, timeout_s=60))
        results = dict(run_isolated(partial(guarded, allocate), [0.01, 3.0, 0.01], workers=2, timeout_s=60))
        again = dict(run_isolated(allocate, [3.0, 0.1], workers=2, timeout_s=60))
        after = dict(run_isolated(vm_data_mib, [0, 1], workers=2, timeout_s=60))
    assert max(after.values()) < max(started.values()) + 512  # the refused allocations were never made
    assert results[0] == results[2] == int(0.01 * 2**30)
    failure = results[1]
    assert isinstance(failure, Failure) and failure.kind == "limit" and not failure.transient
    assert "--worker-memory-mb" in failure.message and "512 MiB" in failure.message
    assert isinstance(again[0], WorkerMemoryLimit) and classify(again[0]).kind == "limit"
    assert again[1] == int(0.1 * 2**30)  # the pool goes on after the refusal


def test_a_document_timeout_is_terminal_so_a_resume_does_not_pay_it_again() -> None:
    failure = classify(DocumentTimeout("processing took longer than 5 s"))
    assert failure.kind == "timeout" and not failure.transient
    assert classify(TimeoutError("a model call")).transient  # other timeouts stay retryable
