"""Synthetic, self-labelling benchmark for all seven criteria in the upstream dataset layout.

``build_synthetic_benchmark`` compiles seeded base papers with typst (tagged, PDF/UA-1: the
``passed`` variant), derives ``failed`` variants with one seeded edit per document and
criterion (a pikepdf mutation or a re-render of the same content, see
:mod:`corpus.mutations`), ``not_present`` variants where the criterion has that label (no
figures, no tables, no links, untagged), and copies ``passed`` or ``failed`` unchanged for
``cannot_tell`` (the benchmark protocol withholds the evidence at evaluation time, as upstream
does). It writes::

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
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

import pikepdf

from corpus.mutations import CRITERION_MUTATIONS, Edit, NotApplicable, Rerender, failed_order
from corpus.typst_docs import DEFAULT_RENDER, BaseDoc, RenderOptions, compile_base_doc, make_base_doc
from judges.labels import Label

SUPPORTED_CRITERIA: tuple[str, ...] = tuple(CRITERION_MUTATIONS)
LABELS: tuple[str, ...] = tuple(label.value for label in Label)  # passed, failed, not_present, cannot_tell
DATASET_NAME = "AccessBench-Synthetic"
# Bump when the generator's output changes, so cached copies (keyed on seed and size) are rebuilt.
DATASET_VERSION = "3"
VENUE = "AccessBench synthetic"
NO_MUTATION = "none"


def labels_for(criterion: str) -> tuple[str, ...]:
    """The labels this criterion has (no Not Present for reading order, contrast, fonts)."""
    if CRITERION_MUTATIONS[criterion].not_present is None:
        return tuple(label for label in LABELS if label != Label.NOT_PRESENT)
    return LABELS


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
        criterion: {label: [] for label in labels_for(criterion)} for criterion in chosen
    }
    orders = {criterion: failed_order(criterion, seed) for criterion in chosen}
    for index in range(base_docs):
        source = VariantSource(make_base_doc(index, seed))
        for criterion in chosen:
            rng = random.Random(f"accessbench-mutation:{seed}:{criterion}:{index}")
            for label, (mutation, data) in build_variants(criterion, source, rng, orders[criterion], index).items():
                rel = f"data/processed/{criterion}/{label}/{source.doc.doc_id}.pdf"
                target = out / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                tasks[criterion][label].append(_item(source.doc, rel, mutation))

    manifest = {"name": DATASET_NAME, "version": DATASET_VERSION, "seed": seed, "split": "synthetic",
                "tasks": tasks}
    path = out / "data" / "dataset.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


class VariantSource:
    """One base document with its compiled renders cached (several criteria share them)."""

    def __init__(self, doc: BaseDoc) -> None:
        self.doc = doc
        self._compiled: dict[RenderOptions, bytes] = {}
        self._passed: tuple[str, bytes] | None = None

    def compiled(self, options: RenderOptions = DEFAULT_RENDER) -> bytes:
        if options not in self._compiled:
            self._compiled[options] = compile_base_doc(self.doc, options)
        return self._compiled[options]

    def passed(self) -> tuple[str, bytes]:
        if self._passed is None:
            self._passed = (NO_MUTATION, _rewrite(self.compiled(), self.doc, None))
        return self._passed

    def apply(self, edit: Edit, rng: random.Random) -> bytes:
        """The variant an edit produces (raises NotApplicable when it does not fit this document)."""
        if isinstance(edit, Rerender):
            return _rewrite(self.compiled(edit.options(self.doc, rng)), self.doc, None)
        return _rewrite(self.compiled(), self.doc, lambda pdf: edit(pdf, rng))


def build_variants(criterion: str, source: VariantSource, rng: random.Random, order: Sequence[str],
                   index: int) -> dict[str, tuple[str, bytes]]:
    """Return ``{label: (mutation name, pdf bytes)}`` for one base document and criterion.

    The failure edit is ``order[index mod n]``, or the next one that applies to this document.
    """
    spec = CRITERION_MUTATIONS[criterion]
    variants = {Label.PASSED.value: source.passed(),
                Label.FAILED.value: _first_applicable(source, rng, order, index, spec.failed)}
    if spec.not_present is not None:
        name, edit = spec.not_present
        variants[Label.NOT_PRESENT.value] = (name, source.apply(edit, rng))
    # Upstream's Cannot Tell files are unmodified documents, some byte-identical to another
    # label's file; copy one of ours the same way.
    variants[Label.CANNOT_TELL.value] = variants[rng.choice((Label.PASSED.value, Label.FAILED.value))]
    return variants


def _first_applicable(source: VariantSource, rng: random.Random, order: Sequence[str], index: int,
                      edits: Mapping[str, Edit]) -> tuple[str, bytes]:
    start = index % len(order)
    for name in [*order[start:], *order[:start]]:
        try:
            return name, source.apply(edits[name], rng)
        except NotApplicable:
            continue
    raise NotApplicable(f"no failure edit applies to {source.doc.doc_id}")


def _item(doc: BaseDoc, rel: str, mutation: str) -> dict[str, object]:
    return {"openalex_id": doc.doc_id, "title": doc.title, "year": doc.year, "venue": VENUE,
            "type": "synthetic", "pdf_path": rel, "input_pdfs": [], "mutation": mutation}


def _rewrite(data: bytes, doc: BaseDoc, mutate: Callable[[pikepdf.Pdf], None] | None) -> bytes:
    """Open a compiled PDF, apply ``mutate`` (or nothing), normalise metadata and save deterministically."""
    with pikepdf.open(io.BytesIO(data)) as pdf:
        if mutate is not None:
            mutate(pdf)
        _normalise_metadata(pdf, doc)
        buf = io.BytesIO()
        # deterministic_id derives /ID from the content instead of time and randomness.
        pdf.save(buf, deterministic_id=True, compress_streams=True,
                 object_stream_mode=pikepdf.ObjectStreamMode.generate)
        return buf.getvalue()


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
