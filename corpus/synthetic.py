"""Synthetic, self-labelling mini-benchmark in the upstream dataset layout.

``build_synthetic_benchmark`` compiles a few seeded base papers with typst (tagged, PDF/UA-1,
the ``passed`` variant), derives ``failed`` and ``not_present`` variants with pikepdf
mutations whose effect on the evidence is known, and copies ``passed`` or ``failed``
unchanged for ``cannot_tell`` (the benchmark protocol withholds the evidence at evaluation
time, as upstream does). It writes::

    out/data/dataset.json
    out/data/processed/<criterion>/<label>/<base id>.pdf

so the loader that reads the real benchmark reads this one too. Every file goes through the
same metadata normalisation and writer, so dates, producer, XMP or file structure cannot
give a label away; output bytes depend only on the seed.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

import pikepdf

from corpus.mutations import CRITERION_MUTATIONS, apply_failed
from corpus.typst_docs import BaseDoc, compile_base_doc, make_base_doc

SUPPORTED_CRITERIA: tuple[str, ...] = tuple(CRITERION_MUTATIONS)
LABELS: tuple[str, ...] = ("passed", "failed", "not_present", "cannot_tell")
DATASET_NAME = "AccessBench-Synthetic"
DATASET_VERSION = "1"
VENUE = "AccessBench synthetic"
NO_MUTATION = "none"


def build_synthetic_benchmark(out: Path, *, seed: int = 0, base_docs: int = 3,
                              criteria: Sequence[str] | None = None) -> Path:
    """Write a labelled benchmark in the upstream layout under `out`; return path to out/data/dataset.json."""
    chosen = tuple(criteria) if criteria is not None else SUPPORTED_CRITERIA
    unknown = sorted(set(chosen) - set(SUPPORTED_CRITERIA))
    if unknown:
        raise ValueError(f"unsupported criteria {unknown}; supported: {list(SUPPORTED_CRITERIA)}")
    if base_docs < 1:
        raise ValueError("base_docs must be at least 1")

    out = Path(out)
    tasks: dict[str, dict[str, list[dict[str, object]]]] = {
        criterion: {label: [] for label in LABELS} for criterion in chosen
    }
    for index in range(base_docs):
        doc = make_base_doc(index, seed)
        base_pdf = compile_base_doc(doc)
        for criterion in chosen:
            rng = random.Random(f"accessbench-mutation:{seed}:{criterion}:{index}")
            for label, (mutation, data) in build_variants(criterion, doc, base_pdf, rng).items():
                rel = f"data/processed/{criterion}/{label}/{doc.doc_id}.pdf"
                target = out / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                tasks[criterion][label].append(_item(doc, rel, mutation))

    manifest = {"name": DATASET_NAME, "version": DATASET_VERSION, "seed": seed, "split": "synthetic",
                "tasks": tasks}
    path = out / "data" / "dataset.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def build_variants(criterion: str, doc: BaseDoc, base_pdf: bytes,
                   rng: random.Random) -> dict[str, tuple[str, bytes]]:
    """Return ``{label: (mutation name, pdf bytes)}`` for one base document and criterion."""
    np_name, np_mutation = CRITERION_MUTATIONS[criterion].not_present

    def not_present(pdf: pikepdf.Pdf) -> str:
        np_mutation(pdf, rng)
        return np_name

    variants = {
        "passed": _rewrite(base_pdf, doc, None),
        "failed": _rewrite(base_pdf, doc, lambda pdf: apply_failed(criterion, pdf, rng)),
        "not_present": _rewrite(base_pdf, doc, not_present),
    }
    # Upstream's Cannot Tell files are unmodified documents, some byte-identical to another
    # label's file; copy one of ours the same way.
    variants["cannot_tell"] = variants[rng.choice(("passed", "failed"))]
    return variants


def _item(doc: BaseDoc, rel: str, mutation: str) -> dict[str, object]:
    return {"openalex_id": doc.doc_id, "title": doc.title, "year": doc.year, "venue": VENUE,
            "type": "synthetic", "pdf_path": rel, "input_pdfs": [], "mutation": mutation}


def _rewrite(base_pdf: bytes, doc: BaseDoc,
             mutate: Callable[[pikepdf.Pdf], str] | None) -> tuple[str, bytes]:
    """Open the base, apply ``mutate`` (or nothing), normalise metadata and save deterministically.

    Returns the mutation's name (``"none"`` without one) and the PDF bytes.
    """
    with pikepdf.open(io.BytesIO(base_pdf)) as pdf:
        name = mutate(pdf) if mutate is not None else NO_MUTATION
        _normalise_metadata(pdf, doc)
        buf = io.BytesIO()
        # deterministic_id derives /ID from the content instead of time and randomness.
        pdf.save(buf, deterministic_id=True, compress_streams=True,
                 object_stream_mode=pikepdf.ObjectStreamMode.generate)
        return name, buf.getvalue()


def _normalise_metadata(pdf: pikepdf.Pdf, doc: BaseDoc) -> None:
    """Keep title, authors and language; drop dates, creator/producer and standard claims.

    typst writes its version, the compile time and ``pdfuaid:part`` (a PDF/UA claim). On an
    untagged variant that claim would be false, and on every variant it is label-adjacent
    metadata the judges must not see, so all variants get the same neutral XMP.
    """
    for key in list(pdf.docinfo.keys()):
        del pdf.docinfo[key]
    pdf.docinfo.Title = pikepdf.String(doc.title)
    pdf.docinfo.Author = pikepdf.String(", ".join(doc.authors))
    pdf.Root.Metadata = pdf.make_stream(_xmp(doc), Type=pikepdf.Name.Metadata, Subtype=pikepdf.Name.XML)


def _xmp(doc: BaseDoc) -> bytes:
    creators = "".join(f"<rdf:li>{escape(a)}</rdf:li>" for a in doc.authors)
    packet = (
        '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f'<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{escape(doc.title)}</rdf:li></rdf:Alt></dc:title>'
        f"<dc:creator><rdf:Seq>{creators}</rdf:Seq></dc:creator>"
        "<dc:language><rdf:Bag><rdf:li>en</rdf:li></rdf:Bag></dc:language>"
        "<dc:format>application/pdf</dc:format>"
        '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="r"?>'
    )
    return packet.encode("utf-8")
