"""The layout stage's work in a worker: one document's regions and per-page decisions, and its chain item."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from common.rows import Rows
from judges.criteria import SPECS
from judges.labels import Label
from tasks.engine.documents import add_run_id, document_files

# Regions feed table evidence (table regions, the search for drawn tables the tags miss); other
# criteria never read them, and the model costs ~0.4 s a page, so only these documents are laid out.
LAYOUT_CRITERIA = frozenset(spec.name for spec in SPECS if spec.needs_layout)


def layout_document(run_id: str, backend: str, weights: str | None, scope: str, item: dict[str, Any]
                    ) -> dict[str, list[dict[str, Any]]]:
    """Regions and per-page decisions of one document (its item, `layout_item_of`); raises when it cannot be laid
    out (an error row).

    ``scope`` is the run's `RunConfig.layout_scope`: ``drawn_tables`` lays out only the pages where a
    line-drawn table is found, the only regions the run's judges read (not for a document judged without its
    table tags, `tags_withheld`); of those, where the document's regions never reach the extract stage's table
    search (`regions_searched`), only the pages that search looks at."""
    from extractors.layout import layout_file  # the page plan and backends: PyMuPDF, in the worker

    doc = item["doc"]
    drawn_tables_only = scope == "drawn_tables" and not item["tags_withheld"]
    rows: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []
    files = document_files(doc, verify=True)
    for path in files:
        found, decided = layout_file(path, doc_id=doc["doc_id"], backend=backend, weights=weights,
                                     page_offset=len(pages), drawn_tables_only=drawn_tables_only,
                                     whole_document=len(files) == 1, regions_searched=item["regions_searched"])
        rows += found
        pages += decided
    return {"layout_regions": add_run_id(run_id, rows), "layout_pages": add_run_id(run_id, pages), "errors": []}


def load_backend(name: str, weights: str | None) -> None:
    """Load the backend (kept by this process for its documents); raises LayoutBackendError."""
    from extractors.layout import get_backend

    get_backend(name, weights)


def regions_searched(copies: Sequence[dict[str, Any]]) -> bool:
    """Whether the layout regions of a content (the run's documents of one file, `copies`, in run order) reach
    the extract stage's search for drawn tables the tags miss; where they do not, they can change no table
    record anywhere but where that search looks on its own (`extractors.layout.plan`, ``not_searched``).

    The extract stage computes a content once, for its first document (`StageIO.per_key` and the chain compute
    a group's first), with that document's regions: none unless its criterion is laid out, as a screened
    file's first criterion is not."""
    return not copies or copies[0]["criterion"] in LAYOUT_CRITERIA


def tags_withheld(copies: Sequence[dict[str, Any]]) -> bool:
    """Whether a laid-out document of the content has its table tags withheld by the protocol (an expected
    Cannot Tell, `tasks.benchmark.inputs`): the rules judge then reads its table regions wherever they are
    (`judges.rules.tables`), not only beside drawn tables, so its pages are laid out as for model judges."""
    return any(d["criterion"] in LAYOUT_CRITERIA and d.get("expected_label") == Label.CANNOT_TELL for d in copies)


def layout_item_of(doc: dict[str, Any], copies: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One document's work item: the document, whether its regions reach the drawn-table search and whether the
    judge reads them without the table tags."""
    return {"doc": doc, "doc_id": doc["doc_id"], "regions_searched": regions_searched(copies),
            "tags_withheld": tags_withheld(copies)}


def layout_item(doc: dict[str, Any], results: Mapping[str, Mapping[str, Rows]], chained: frozenset[str],
                copies: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The document's item, if its criterion reads layout regions (`tasks.engine.chain`)."""
    return layout_item_of(doc, copies) if doc["criterion"] in LAYOUT_CRITERIA else None


