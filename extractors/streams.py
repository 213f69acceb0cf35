"""A PDF's streams measured before any extractor decodes them: decompression bombs are refused.

A few kilobytes of PDF can declare gigabytes: a FlateDecode stream (or two Flate filters in a row)
that inflates to 4 GB, an image of 40,000 x 40,000 pixels, a font file, ToUnicode CMap or XMP packet
of gigabytes, or form XObjects that draw each other ten times over ten levels (ten billion draws).
MuPDF and qpdf would decode each of those into memory. :func:`check_streams` looks at every stream
of the file first, with bounded memory:

- the declared sizes: the raw length, and an image's Width x Height x components x bits per
  component, against ``max_stream_bytes``;
- the decoded size: each filter of the chain is run here, streaming, and decoding stops the moment
  the output passes the cap (``zlib.decompressobj`` with ``max_length``; LZW and RunLength by
  their run lengths), so no more than one chunk is ever held;
- the whole document's decoded bytes, against ``max_document_bytes``;
- form XObject expansion: how many XObjects one page draws once nested forms are expanded
  (counted from the ``Do`` operators in the page's and the forms' content), against ``max_draws``.

Over any of them, :class:`StreamLimitError` (a terminal ``limit`` error) names the stream and the
option that raises the cap. Image codecs (DCT, JPX, JBIG2, CCITT) are checked by their declared
size only. A stream this module cannot decode (a damaged Flate stream, an unknown filter) is left to
the extractors, which already treat damage as their error.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import pikepdf

from extractors.stream_limits import DEFAULT_MAX_DRAWS as DEFAULT_MAX_DRAWS
from extractors.stream_limits import DEFAULT_MAX_STREAM_MB as DEFAULT_MAX_STREAM_MB
from extractors.stream_limits import DOCUMENT_FACTOR as DOCUMENT_FACTOR
from extractors.stream_limits import StreamLimitError as StreamLimitError
from extractors.stream_limits import StreamLimits as StreamLimits

CHUNK = 1 << 20  # bytes decoded at a time
IMAGE_CODECS = {"/DCTDecode", "/DCT", "/JPXDecode", "/JBIG2Decode", "/CCITTFaxDecode", "/CCF"}
_DO = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do(?![A-Za-z0-9])")


class _Undecodable(Exception):
    """A filter this module does not run (or damaged data): the stream's size is not measured."""


@dataclass
class _Budget:
    limits: StreamLimits
    total: int = 0
    draws: dict[tuple[int, int], dict[bytes, int]] = field(default_factory=dict)


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


def _names(value: object) -> list[str]:
    if isinstance(value, pikepdf.Array):
        return [str(v) for v in value]
    return [str(value)] if value is not None else []


def _chunks(data: bytes) -> Iterator[bytes]:
    view = memoryview(data)
    for start in range(0, len(data), CHUNK):
        yield bytes(view[start:start + CHUNK])


def _inflate(chunks: Iterable[bytes]) -> Iterator[bytes]:
    inflater = zlib.decompressobj()
    try:
        for chunk in chunks:
            data = chunk
            while data and not inflater.eof:
                out = inflater.decompress(data, CHUNK)
                if out:
                    yield out
                data = inflater.unconsumed_tail
            if inflater.eof:
                return
        while not inflater.eof:  # output still held back by max_length
            out = inflater.decompress(inflater.unconsumed_tail, CHUNK)
            if not out:
                return
            yield out
    except zlib.error:
        return  # a damaged tail: MuPDF decodes what it can, as many bytes as were counted


def _bounded(chunks: Iterable[bytes], cap: int) -> bytes:
    """The whole input of a filter that shrinks its data (ASCIIHex, ASCII85), refused past `cap`."""
    out = bytearray()
    for chunk in chunks:
        out += chunk
        if len(out) > cap:
            raise _Over(len(out))
    return bytes(out)


class _Over(Exception):
    def __init__(self, size: int) -> None:
        self.size = size


def _ascii_hex(chunks: Iterable[bytes], cap: int) -> Iterator[bytes]:
    text = re.sub(rb"\s", b"", _bounded(chunks, cap)).split(b">", 1)[0]
    try:
        yield binascii.unhexlify(text + b"0" * (len(text) % 2))
    except binascii.Error as exc:
        raise _Undecodable from exc


def _ascii85(chunks: Iterable[bytes], cap: int) -> Iterator[bytes]:
    text = re.sub(rb"\s", b"", _bounded(chunks, cap)).split(b"~>", 1)[0].removeprefix(b"<~")
    try:
        yield base64.a85decode(text)
    except ValueError as exc:
        raise _Undecodable from exc


def _run_length(chunks: Iterable[bytes]) -> Iterator[bytes]:
    pending = b""
    for chunk in chunks:
        data, out, i = pending + chunk, bytearray(), 0
        while i < len(data):
            n = data[i]
            if n == 128:  # end of data
                if out:
                    yield bytes(out)
                return
            if n < 128:
                if i + 1 + n + 1 > len(data):
                    break
                out += data[i + 1:i + 2 + n]
                i += 2 + n
            else:
                if i + 1 >= len(data):
                    break
                out += data[i + 1:i + 2] * (257 - n)
                i += 2
            if len(out) >= CHUNK:
                yield bytes(out)
                out.clear()
        pending = data[i:]
        if out:
            yield bytes(out)


def _lzw_sizes(chunks: Iterable[bytes], early: int) -> Iterator[int]:
    """How many bytes an LZW stream decodes to, counted per code (the table holds lengths, not bytes)."""
    lengths: list[int] = []
    width, buffer, bits, previous = 9, 0, 0, -1

    def reset() -> None:
        lengths[:] = [1] * 256 + [0, 0]

    reset()
    for chunk in chunks:
        produced = 0
        for byte in chunk:
            buffer = (buffer << 8) | byte
            bits += 8
            while bits >= width:
                bits -= width
                code = (buffer >> bits) & ((1 << width) - 1)
                buffer &= (1 << bits) - 1
                if code == 256:
                    reset()
                    width, previous = 9, -1
                    continue
                if code == 257:
                    yield produced
                    return
                if code < len(lengths):
                    length = lengths[code]
                elif code == len(lengths) and previous >= 0:
                    length = lengths[previous] + 1
                else:
                    raise _Undecodable
                if previous >= 0 and len(lengths) < 4096:
                    lengths.append(lengths[previous] + 1)
                produced += length
                previous = code
                if len(lengths) + early >= (1 << width) and width < 12:
                    width += 1
        yield produced


def decoded_size(stream: pikepdf.Stream, cap: int, *, draws: dict[bytes, int] | None = None) -> int | None:
    """Bytes `stream` decodes to, stopping at the first count past `cap` (returned as it is).

    Runs every filter of the chain up to the first image codec; None when a filter is unknown or
    the data is damaged. With `draws`, counts the names of the XObjects the content draws (`Do`).
    """
    filters = _names(stream.get("/Filter"))
    parms = stream.get("/DecodeParms")
    parms_list = list(parms) if isinstance(parms, pikepdf.Array) else [parms] * len(filters)
    chunks: Iterable[bytes] = _chunks(stream.read_raw_bytes())  # decrypted, not decoded
    count_lzw: int | None = None
    for index, name in enumerate(filters):
        if name in IMAGE_CODECS:
            break
        if name in ("/FlateDecode", "/Fl"):
            chunks = _inflate(chunks)
        elif name in ("/ASCIIHexDecode", "/AHx"):
            chunks = _ascii_hex(chunks, cap)
        elif name in ("/ASCII85Decode", "/A85"):
            chunks = _ascii85(chunks, cap)
        elif name in ("/RunLengthDecode", "/RL"):
            chunks = _run_length(chunks)
        elif name in ("/LZWDecode", "/LZW") and index == len(filters) - 1 and draws is None:
            parm = parms_list[index] if index < len(parms_list) else None
            early = int(parm.get("/EarlyChange", 1)) if isinstance(parm, pikepdf.Dictionary) else 1
            count_lzw = early
        else:
            return None
    total = 0
    tail = b""
    try:
        if count_lzw is not None:
            for produced in _lzw_sizes(chunks, count_lzw):
                total += produced
                if total > cap:
                    return total
            return total
        for chunk in chunks:
            total += len(chunk)
            if draws is not None:
                window = tail + chunk
                for match in _DO.finditer(window):
                    if match.end() > len(tail):  # not counted with the previous chunk
                        draws[match.group(1)] = draws.get(match.group(1), 0) + 1
                tail = window[-256:]
            if total > cap:
                return total
    except _Over as over:
        return over.size
    except _Undecodable:
        return None
    return total


def _declared_image_bytes(stream: pikepdf.Stream) -> int:
    try:
        width, height = int(stream.get("/Width", 0)), int(stream.get("/Height", 0))
        bpc = int(stream.get("/BitsPerComponent", 8)) if not stream.get("/ImageMask") else 1
    except (TypeError, ValueError):
        return 0
    space = stream.get("/ColorSpace")
    first = str(space[0]) if isinstance(space, pikepdf.Array) and len(space) else str(space)
    components = {"/DeviceCMYK": 4, "/DeviceRGB": 3, "/CalRGB": 3, "/Lab": 3}.get(first, 1)
    if first == "/ICCBased" and isinstance(space, pikepdf.Array):
        try:
            components = int(space[1].get("/N", 3))
        except (TypeError, ValueError, IndexError, AttributeError):
            components = 3
    return max(0, width) * max(0, height) * components * max(1, bpc) // 8


def _what(stream: pikepdf.Stream) -> str:
    kind = str(stream.get("/Subtype") or stream.get("/Type") or "")
    labels = {"/Image": "an image", "/Form": "a form XObject", "/XML": "an XMP metadata stream",
              "/Metadata": "an XMP metadata stream", "/CMap": "a CMap", "/XObject": "an XObject"}
    label = labels.get(kind, "a stream")
    if kind.startswith("/Type1C") or kind in ("/CIDFontType0C", "/OpenType"):
        label = "an embedded font"
    return f"{label} (object {stream.objgen[0]})" if stream.objgen[0] else label


def _font_streams(pdf: pikepdf.Pdf) -> dict[tuple[int, int], str]:
    """Embedded font files and ToUnicode CMaps by object id (named so in a message)."""
    found: dict[tuple[int, int], str] = {}
    metadata = pdf.Root.get("/Metadata")
    if isinstance(metadata, pikepdf.Stream):
        found[metadata.objgen] = f"the XMP metadata (object {metadata.objgen[0]})"
    direct = []
    for page in pdf.pages:
        resources = page.obj.get("/Resources")
        fonts = resources.get("/Font") if isinstance(resources, pikepdf.Dictionary) else None
        if isinstance(fonts, pikepdf.Dictionary):
            direct += [value for _, value in fonts.items()]
    for obj in [*pdf.objects, *direct]:
        if not isinstance(obj, pikepdf.Dictionary):
            continue
        if obj.get("/Type") == pikepdf.Name.FontDescriptor:
            for key in ("/FontFile", "/FontFile2", "/FontFile3"):
                ref = obj.get(key)
                if isinstance(ref, pikepdf.Stream):
                    found[ref.objgen] = f"an embedded font (object {ref.objgen[0]})"
        elif obj.get("/Type") == pikepdf.Name.Font:
            cmap = obj.get("/ToUnicode")
            if isinstance(cmap, pikepdf.Stream):
                found[cmap.objgen] = f"a ToUnicode CMap (object {cmap.objgen[0]})"
    return found


def check_streams(pdf: pikepdf.Pdf, limits: StreamLimits | None = None) -> None:
    """Raise :class:`StreamLimitError` when a stream of `pdf` is over a limit (see the module doc)."""
    limits = limits or StreamLimits()
    cap = limits.max_stream_bytes
    fonts = _font_streams(pdf)
    contents: set[tuple[int, int]] = set()
    for page in pdf.pages:
        value = page.obj.get("/Contents")
        for ref in (value if isinstance(value, pikepdf.Array) else [value]):
            if isinstance(ref, pikepdf.Stream):
                contents.add(ref.objgen)
    total = 0
    draws: dict[tuple[int, int], dict[bytes, int]] = {}
    for obj in pdf.objects:
        if not isinstance(obj, pikepdf.Stream):
            continue
        what = (fonts[obj.objgen] if obj.objgen in fonts else
                f"a page's content stream (object {obj.objgen[0]})" if obj.objgen in contents else _what(obj))
        if obj.get("/Subtype") == pikepdf.Name.Image:
            declared = _declared_image_bytes(obj)
            if declared > cap:
                raise StreamLimitError(f"{what} declares {_mib(declared)} of pixels, over the "
                                       f"{_mib(cap)} stream limit")
        declared_length = obj.get("/Length")
        if isinstance(declared_length, int) and declared_length > cap:
            raise StreamLimitError(f"{what} declares a length of {_mib(declared_length)}, over the "
                                   f"{_mib(cap)} stream limit")
        counted: dict[bytes, int] | None = (
            {} if obj.objgen in contents or obj.get("/Subtype") == pikepdf.Name.Form else None)
        try:
            size = decoded_size(obj, cap, draws=counted)
        except pikepdf.PdfError:
            size = None  # unreadable raw data: the extractors report the damage
        if size is None:
            continue
        if size > cap:
            raise StreamLimitError(f"{what} decodes to more than {_mib(cap)} (decoding stopped there), over "
                                   "the stream limit")
        total += size
        if total > limits.document_bytes:
            raise StreamLimitError(f"the document's streams decode to more than {_mib(limits.document_bytes)} "
                                   f"together ({DOCUMENT_FACTOR} x the stream limit)")
        if counted:
            draws[obj.objgen] = counted
    if draws:
        _check_draws(pdf, draws, limits.max_draws)


def _xobjects(resources: object) -> dict[bytes, pikepdf.Object]:
    if not isinstance(resources, pikepdf.Dictionary):
        return {}
    xobjects = resources.get("/XObject")
    if not isinstance(xobjects, pikepdf.Dictionary):
        return {}
    return {key.lstrip("/").encode("latin-1", "replace"): value for key, value in xobjects.items()}


def _check_draws(pdf: pikepdf.Pdf, draws: dict[tuple[int, int], dict[bytes, int]], max_draws: int) -> None:
    """Refuse a page whose nested form XObjects expand to more than `max_draws` draws."""
    memo: dict[tuple[int, int], int] = {}

    def expanded(stream: pikepdf.Object, inherited: object, stack: frozenset[tuple[int, int]]) -> int:
        key = stream.objgen
        if key in memo:
            return memo[key]
        if key in stack:
            return 1  # a cycle: MuPDF stops it; counted once
        names = draws.get(key, {})
        own = stream.get("/Resources") if isinstance(stream, pikepdf.Stream) else None
        table = _xobjects(own if own is not None else inherited)
        count = 1
        for name, times in names.items():
            target = table.get(name)
            if isinstance(target, pikepdf.Stream) and target.get("/Subtype") == pikepdf.Name.Form:
                count += times * expanded(target, own if own is not None else inherited, stack | {key})
            else:
                count += times
            if count > max_draws:
                break
        memo[key] = count
        return count

    for number, page in enumerate(pdf.pages, start=1):
        resources = page.obj.get("/Resources")
        value = page.obj.get("/Contents")
        total = 0
        for ref in (value if isinstance(value, pikepdf.Array) else [value]):
            if isinstance(ref, pikepdf.Stream):
                total += expanded(ref, resources, frozenset()) - 1
            if total > max_draws:
                raise StreamLimitError(f"page {number} draws more than {max_draws:,} XObjects once its nested "
                                       "forms are expanded (a form bomb)", "the file cannot be read safely")


def check_pdf_bytes(data: bytes, limits: StreamLimits | None = None) -> None:
    """:func:`check_streams` for a PDF held in memory; a file pikepdf cannot open is left to the caller."""
    try:
        pdf = pikepdf.open(io.BytesIO(data))
    except (pikepdf.PdfError, pikepdf.PasswordError, ValueError):
        return
    with pdf:
        check_streams(pdf, limits)
