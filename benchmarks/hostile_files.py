"""Peak memory and wall time of a full run over a fault corpus (issue 12's "done when" check).

The folder holds a generated paper, a 14,400 x 14,400 pt page (the largest PDF allows), a FIFO
named x.pdf, a symlink to /dev/zero and one to /etc/passwd. The run must finish, every hostile
file must end as an error row, and no process may pass the ceiling (2 GiB by default). Peak RSS
is the largest resident size of any process of the run (the CLI and its worker processes), from
getrusage(RUSAGE_CHILDREN). Run from the repository root::

    python -m benchmarks.hostile_files --ceiling-gib 2 [--bombs]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import pikepdf
import pymupdf

from corpus.typst_docs import compile_base_doc, make_base_doc

HUGE_PT = 14_400
_BLOCK = 1 << 24  # zeros per deflate block of a bomb


def zero_bomb(size: int) -> bytes:
    """A zlib stream that inflates to `size` zero bytes (a multiple of 16 MiB), in about size / 1000 bytes.

    Made without compressing `size` bytes: one full-flushed deflate block of 16 MiB zeros repeats
    (a full flush restarts the dictionary, so every block after the first is the same bytes), and the
    Adler-32 of n zeros is ((n mod 65521) << 16) | 1.
    """
    blocks = max(1, size // _BLOCK)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros = bytes(_BLOCK)
    first = deflate.compress(zeros) + deflate.flush(zlib.Z_FULL_FLUSH)
    repeat = deflate.compress(zeros) + deflate.flush(zlib.Z_FULL_FLUSH)
    end = deflate.flush()
    adler = (((blocks * _BLOCK) % 65521) << 16) | 1
    return b"\x78\xda" + first + repeat * (blocks - 1) + end + adler.to_bytes(4, "big")


def _flate_stream(pdf: pikepdf.Pdf, size: int, *, twice: bool = False, **keys: Any) -> pikepdf.Stream:
    """A stream that decodes to `size` bytes; `twice`: two Flate filters, so kilobytes on disk."""
    data = zero_bomb(size)
    stream = pikepdf.Stream(pdf, zlib.compress(data, 9) if twice else data)
    stream.Filter = pikepdf.Array([pikepdf.Name.FlateDecode] * (2 if twice else 1))
    for key, value in keys.items():
        stream[f"/{key}"] = value
    return stream


def _page(pdf: pikepdf.Pdf, content: bytes = b"BT /F1 12 Tf 72 720 Td (Hello) Tj ET") -> pikepdf.Page:
    pdf.add_blank_page(page_size=(612, 792))
    page = pdf.pages[-1]
    page.obj.Contents = pikepdf.Stream(pdf, content)
    return page


def write_bomb(path: Path, kind: str, size: int = 4 << 30) -> Path:
    """A small PDF that decodes (or draws) far more than it weighs; `kind` is one of BOMBS."""
    pdf = pikepdf.new()
    if kind == "content":  # the page's content stream inflates to `size` bytes
        page = _page(pdf)
        page.obj.Contents = pdf.make_indirect(_flate_stream(pdf, size))
    elif kind == "font":  # an embedded font file
        page = _page(pdf)
        font_file = pdf.make_indirect(_flate_stream(pdf, size, twice=True, Length1=size))
        descriptor = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.FontDescriptor, FontName=pikepdf.Name.Bomb,
                                                          Flags=32, FontFile2=font_file))
        page.obj.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.TrueType, BaseFont=pikepdf.Name.Bomb,
            FontDescriptor=descriptor)))
    elif kind == "cmap":  # a ToUnicode CMap
        page = _page(pdf)
        page.obj.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica,
            ToUnicode=pdf.make_indirect(_flate_stream(pdf, size, twice=True)))))
    elif kind == "xmp":  # the document's XMP metadata packet
        _page(pdf)
        # Without /Type /Metadata: qpdf writes metadata streams uncompressed (it would inflate the bomb).
        pdf.Root.Metadata = pdf.make_indirect(_flate_stream(pdf, size, twice=True))
    elif kind == "image":  # 40,000 x 40,000 RGB pixels declared
        page = _page(pdf, b"q 612 0 0 792 0 0 cm /Im1 Do Q")
        image = _flate_stream(pdf, 16 << 20, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Image, Width=40_000,
                              Height=40_000, ColorSpace=pikepdf.Name.DeviceRGB, BitsPerComponent=8)
        page.obj.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im1=pdf.make_indirect(image)))
    elif kind == "forms":  # ten levels of forms, each drawing the next ten times: 10^10 draws
        inner = pdf.make_indirect(pikepdf.Stream(pdf, b"0 0 1 1 re f", Type=pikepdf.Name.XObject,
                                                 Subtype=pikepdf.Name.Form, BBox=[0, 0, 1, 1]))
        for _ in range(10):
            inner = pdf.make_indirect(pikepdf.Stream(
                pdf, b"/X Do " * 10, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Form, BBox=[0, 0, 1, 1],
                Resources=pikepdf.Dictionary(XObject=pikepdf.Dictionary(X=inner))))
        page = _page(pdf, b"/X Do")
        page.obj.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(X=inner))
    else:
        raise ValueError(f"unknown bomb {kind!r}; choose from {', '.join(BOMBS)}")
    pdf.save(path, compress_streams=False, stream_decode_level=pikepdf.StreamDecodeLevel.none,
             fix_metadata_version=False)
    return path


BOMBS = ("content", "font", "cmap", "xmp", "image", "forms")


def build_fault_corpus(folder: Path, bombs: bool = False) -> None:
    """The fault corpus; with `bombs`, also one file of each kind in BOMBS (each a few KB to a few MB)."""
    folder.mkdir(parents=True, exist_ok=True)
    for kind in BOMBS if bombs else ():
        write_bomb(folder / f"bomb-{kind}.pdf", kind)
    (folder / "paper.pdf").write_bytes(compile_base_doc(make_base_doc(0, 0)))
    doc = pymupdf.open()
    page = doc.new_page(width=HUGE_PT, height=HUGE_PT)
    page.draw_rect(pymupdf.Rect(0, 0, HUGE_PT, HUGE_PT / 2), color=None, fill=(0.9, 0.95, 1.0))
    for row in range(20):
        page.insert_text((72, 200 + row * 700), f"Poster line {row}: results of the survey", fontsize=48)
    doc.save(folder / "huge.pdf")
    doc.close()
    os.mkfifo(folder / "x.pdf")
    (folder / "zero.pdf").symlink_to("/dev/zero")
    (folder / "passwd.pdf").symlink_to("/etc/passwd")


def _cli(home: Path, *args: str, timeout: float = 1800, api_url: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ACCESSBENCH_HOME": str(home)}
    if not api_url:
        env.pop("PREFECT_API_URL", None)
    env.pop("PREFECT_HOME", None)
    return subprocess.run([sys.executable, "-m", "flows.cli.app", *args], env=env, text=True, capture_output=True,
                          timeout=timeout)


def measure(folder: Path, home: Path, workers: int = 2, *, api_url: bool = False) -> dict[str, Any]:
    """Run the benchmark flow over `folder`; the peak RSS of any process, wall time, error rows.

    The run starts the data home's own Prefect server, as a user's first run does; with `api_url` it uses
    the server of PREFECT_API_URL instead, if one is set (the tests' shared server)."""
    started = time.monotonic()
    run = _cli(home, "run", "--pdfs", str(folder), "--run-id", "fault", "--workers", str(workers),
               "--criteria", "color_contrast", "fonts_readability", api_url=api_url)
    wall = time.monotonic() - started
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    query = ("select d.metadata->>'$.path' as file, e.stage, e.kind from errors e join documents d "
             "using (run_id, doc_id) group by all order by all")
    errors = json.loads(_cli(home, "sql", query, "--format", "json").stdout or "[]")
    return {"returncode": run.returncode, "stderr_tail": run.stderr[-2000:], "wall_s": round(wall, 1),
            "peak_rss_mib": round(peak_kib / 1024, 1), "errors": errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ceiling-gib", type=float, default=2.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bombs", action="store_true",
                        help="add one decompression or drawing bomb of each kind (4 GiB decoded) to the corpus")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="accessbench-faults-") as tmp:
        folder = Path(tmp) / "pdfs"
        build_fault_corpus(folder, bombs=args.bombs)
        result = measure(folder, Path(tmp) / "home", args.workers)
    print(f"exit code {result['returncode']}; wall {result['wall_s']} s; peak RSS of any process "
          f"{result['peak_rss_mib']} MiB (ceiling {args.ceiling_gib * 1024:.0f} MiB)")
    for row in result["errors"]:
        print(f"  error row: {row['file']}: {row['stage']} / {row['kind']}")
    if result["returncode"] != 0:
        print(result["stderr_tail"], file=sys.stderr)
    over = result["peak_rss_mib"] > args.ceiling_gib * 1024
    sys.exit(1 if result["returncode"] != 0 or over else 0)


if __name__ == "__main__":
    main()
