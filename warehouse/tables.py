"""Every table AccessBench writes, declared once: its name, the stage that writes it, and its Arrow schema.

Light on purpose (pyarrow and the catalog's `TableSpec` only, no stage, extractor or model client): `accessbench
sql`, `runs` and the reports read the tables from here without importing the stages, and the stages, extractors
and repairs import their schemas from here. The order of each study's stages, by name, is declared here too
(`BENCHMARK_STAGE_NAMES`, `AUDIT_STAGE_NAMES`); `tasks.benchmark.registry` and `tasks.audit.registry` build their
pipelines in it. `tests/warehouse/test_tables.py` checks that each stage writes exactly the tables declared for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

import pyarrow as pa

from warehouse.catalog import TableSpec
from warehouse.text_columns import CONTRAST_COLUMNS as CONTRAST_COLUMNS  # text_spans' contrast columns

RESOLUTIONS_PATTERN = "review/run=*/resolutions/*.parquet"  # written by warehouse.review

BENCHMARK_STAGE_NAMES: tuple[str, ...] = ("corpus", "render", "layout", "extract", "transcript", "inputs", "judge",
                                          "aggregate", "metrics")
AUDIT_STAGE_NAMES: tuple[str, ...] = ("questions", "responses", "category_judgments", "audit_metrics")


class _Named(Protocol):
    @property
    def name(self) -> str: ...


S = TypeVar("S", bound=_Named)


def in_order(names: Sequence[str], stages: Iterable[S]) -> tuple[S, ...]:
    """`stages` in the order of `names`; every stage named exactly once, or ValueError."""
    by_name = {stage.name: stage for stage in stages}
    if sorted(by_name) != sorted(names) or len(set(names)) != len(names):
        raise ValueError(f"stage order {list(names)} does not name each of the stages {sorted(by_name)} once")
    return tuple(by_name[name] for name in names)


def with_run_id(schema: pa.Schema) -> pa.Schema:
    """Artifact tables carry the run id in front of the extractor's own columns."""
    if "run_id" in schema.names:
        return schema
    return pa.schema([pa.field("run_id", pa.string(), nullable=False), *schema])


BBOX = pa.list_(pa.float32())  # [x0, y0, x1, y1] in PDF points
# What a page judgment is keyed by: the judgments and each of their findings.
JUDGED_PAGE = (
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("judge", pa.string(), nullable=False),
        pa.field("model", pa.string()),
        pa.field("repeat", pa.int32(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
)
JUDGED_PAGE_KEYS = tuple(f.name for f in JUDGED_PAGE)


# -- corpus stage (the schema `corpus.manifest` builds rows in) -----------------------------------------
DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("expected_label", pa.string()),
        pa.field("base_doc", pa.string()),
        pa.field("files", pa.list_(pa.string())),  # relative to `root`, as the manifest lists them
        pa.field("root", pa.string()),
        pa.field("pages", pa.int32()),
        pa.field("sha256", pa.string()),
        pa.field("source", pa.string()),  # dataset|pdfs|synthetic
        pa.field("title", pa.string()),
        pa.field("metadata", pa.string()),  # JSON: manifest fields (provenance only)
        pa.field("pdf_metadata", pa.string()),  # JSON: producer, dates (provenance only)
        pa.field("error", pa.string()),
        pa.field("error_kind", pa.string()),  # corpus | limit | skipped
    ]
)


ITEM_SET_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),  # synthetic | dataset | screening
        pa.field("name", pa.string()),  # the manifest's name (a dataset, the synthetic generator)
        pa.field("split", pa.string()),  # the manifest's split (dev, test, synthetic, sample …)
        pa.field("items", pa.int32()),  # (document, criterion) items in the run; files for screening
        pa.field("of_items", pa.int32()),  # items the source holds for the run's criteria (before --limit/--sample)
        pa.field("selection", pa.string()),  # how items were chosen: "", "limit N", "sample N, seed S"
        pa.field("label", pa.string(), nullable=False),  # how reports name it
    ]
)


DOCUMENTS = TableSpec("documents", "corpus", DOCUMENTS_SCHEMA)
ITEM_SET = TableSpec("item_set", "corpus", ITEM_SET_SCHEMA)

# -- render stage ---------------------------------------------------------------------------------------
PAGES_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),  # 1-based + page_offset
        pa.field("width_pt", pa.float32(), nullable=False),  # as displayed, after /Rotate
        pa.field("height_pt", pa.float32(), nullable=False),
        pa.field("rotation", pa.int32(), nullable=False),  # /Rotate: 0, 90, 180, 270
        pa.field("dpi", pa.float32(), nullable=False),  # resolution actually used
        pa.field("width_px", pa.int32(), nullable=False),
        pa.field("height_px", pa.int32(), nullable=False),
        pa.field("image_path", pa.string(), nullable=False),  # absolute path of the PNG
        pa.field("has_text", pa.bool_(), nullable=False),  # any extractable non-space character
        pa.field("char_count", pa.int32(), nullable=False),  # non-space characters
        pa.field("image_count", pa.int32(), nullable=False),  # raster images drawn (placements)
        # Tab order (PDF/UA-1 7.18.3): the page's /Tabs name without the slash (S, R, C, ...), null when absent;
        # and the number of entries in its /Annots (links, widgets, ...).
        pa.field("tabs", pa.string()),
        pa.field("annotation_count", pa.int32()),
    ]
)


PAGES = TableSpec("pages", "render", with_run_id(PAGES_SCHEMA))

# -- layout stage ---------------------------------------------------------------------------------------
LAYOUT_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),  # 1-based, plus the file's page offset
        pa.field("region_index", pa.int32(), nullable=False),  # the backend's order on the page
        pa.field("kind", pa.string(), nullable=False),  # text | title | list | table | figure
        pa.field("raw_kind", pa.string()),  # the backend's own class, e.g. 'section-header'
        pa.field("bbox", pa.list_(pa.float64())),  # [x0, y0, x1, y1], points, top-left origin
        pa.field("score", pa.float64()),  # null when the backend gives none (pymupdf)
        pa.field("backend", pa.string(), nullable=False),
    ]
)


LAYOUT_PAGES_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),  # 1-based, plus the file's page offset
        pa.field("ran", pa.bool_(), nullable=False),  # did the layout model run on this page
        pa.field("reason", pa.string(), nullable=False),  # one of RUN_REASONS or SKIP_REASONS
        pa.field("backend", pa.string(), nullable=False),
    ]
)


LAYOUT_REGIONS = TableSpec("layout_regions", "layout", with_run_id(LAYOUT_SCHEMA))
LAYOUT_PAGES = TableSpec("layout_pages", "layout", with_run_id(LAYOUT_PAGES_SCHEMA))

# -- extract stage (each extractor builds its rows in its schema) ---------------------------------------
STRUCT_ELEMENTS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("elem_id", pa.int32(), nullable=False),  # preorder index, 0-based
        pa.field("parent_id", pa.int32()),  # null for kids of StructTreeRoot
        pa.field("depth", pa.int32(), nullable=False),
        pa.field("order", pa.int32(), nullable=False),  # index among sibling elements
        pa.field("raw_type", pa.string(), nullable=False),  # /S as written
        pa.field("type", pa.string(), nullable=False),  # after RoleMap; raw if unknown
        pa.field("standard", pa.bool_()),  # `type` is a standard structure type (PDF 1.7/2.0)
        pa.field("page", pa.int32()),  # 1-based + page_offset
        pa.field("alt", pa.string()),
        pa.field("actual_text", pa.string()),
        pa.field("lang", pa.string()),
        pa.field("title", pa.string()),  # /T
        pa.field("attributes", pa.string(), nullable=False),  # JSON object, /C then /A
        pa.field("scope", pa.string()),  # Scope attribute: Row, Column, Both
        pa.field("elem_key", pa.string()),  # /ID
        pa.field("mcid_count", pa.int32(), nullable=False),
        pa.field("mcids", pa.list_(pa.int32()), nullable=False),  # in /K order
        pa.field("objr_count", pa.int32(), nullable=False),
        pa.field("objr_annots", pa.list_(pa.int32()), nullable=False),  # index in page /Annots
        pa.field("text", pa.string()),  # own marked content, whitespace-normalised
        pa.field("bbox", BBOX),  # own content on `page`; PDF points, top-left origin
        pa.field("subtree_bbox", BBOX),  # own content and descendants' on `page`
        pa.field("obj_num", pa.int32()),  # object number; null for direct objects
    ]
)


STRUCT_SUMMARY_SCHEMA = pa.schema(  # one row per PDF file; callers add doc_id
    [
        pa.field("tagged", pa.bool_(), nullable=False),  # StructTreeRoot with kids
        pa.field("marked", pa.bool_()),  # /MarkInfo /Marked; null when absent
        pa.field("has_rolemap", pa.bool_(), nullable=False),
        pa.field("element_count", pa.int32(), nullable=False),
        pa.field("truncated", pa.bool_(), nullable=False),  # stopped at MAX_ELEMENTS
        pa.field("repeated_refs", pa.int32(), nullable=False),  # cycles or shared kids
        pa.field("orphan_mcids", pa.int32()),  # page-content MCIDs the tree never cites
        pa.field("lang", pa.string()),  # catalog /Lang
        pa.field("has_title", pa.bool_(), nullable=False),  # Info or XMP title present
        pa.field("display_doc_title", pa.bool_()),  # ViewerPreferences; null when absent
        pa.field("pages", pa.int32()),
        pa.field("pdfua_part", pa.int32()),  # XMP pdfuaid:part (the PDF/UA conformance claim); null when absent
        pa.field("xmp_title", pa.bool_()),  # XMP dc:title present (PDF/UA-1 7.1 asks for it there, not in Info)
        pa.field("accessibility_permitted", pa.bool_()),  # permission bit 10 (PDF/UA-1 7.16); True unencrypted
        pa.field("error", pa.string()),  # "kind: message" when the file is unreadable
    ]
)


LINKS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),  # 1-based + page_offset
        pa.field("annot_index", pa.int32(), nullable=False),  # position in the page's /Annots
        pa.field("kind", pa.string(), nullable=False),  # uri|goto|named|launch|gotor|javascript|other|none
        pa.field("target", pa.string()),  # URI, "page N", destination or action name
        pa.field("target_page", pa.int32()),  # resolved page of an internal link (+ page_offset)
        pa.field("rect", pa.list_(pa.float32())),  # PDF points, top-left origin
        pa.field("anchor_text", pa.string(), nullable=False),  # words under the link ("" if none)
        pa.field("dest_valid", pa.bool_()),  # internal links: destination resolves to a page
        pa.field("uri_well_formed", pa.bool_()),  # uri links only
        pa.field("struct_parent", pa.int32()),  # /StructParent
        pa.field("has_link_element", pa.bool_(), nullable=False),  # a Link element refers to it
        pa.field("element_id", pa.int32()),  # struct_elements.elem_id of the (Link) element claiming it
        pa.field("element_type", pa.string()),  # its standard type (Link, Reference, ...)
        pa.field("contents", pa.string()),  # /Contents, the annotation's alternate text
    ]
)
ORPHAN_LINK_ELEMENTS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("elem_id", pa.int32(), nullable=False),  # as in struct_elements
        pa.field("page", pa.int32()),
        # no_annotation: no OBJR kid; annotation_missing: OBJR target is on no page's
        # /Annots; not_a_link: OBJR target is an annotation of another subtype.
        pa.field("reason", pa.string(), nullable=False),
    ]
)


FONTS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("font_name", pa.string(), nullable=False),  # as in text_spans.font_name
        pa.field("base_font", pa.string(), nullable=False),  # /BaseFont as written ("" if absent)
        pa.field("font_type", pa.string(), nullable=False),  # /Subtype: Type1, TrueType, Type0, Type3 ...
        pa.field("descendant_type", pa.string()),  # Type0 only: CIDFontType0 or CIDFontType2
        pa.field("embedded", pa.bool_(), nullable=False),  # font program in the file (Type3: always)
        pa.field("subset", pa.bool_(), nullable=False),  # ABCDEF+ prefix
        pa.field("has_tounicode", pa.bool_(), nullable=False),
        pa.field("encoding", pa.string()),
        pa.field("xref", pa.int32(), nullable=False),  # font object number, unique per file
        pa.field("pages", pa.list_(pa.int32()), nullable=False),  # pages whose resources use it
        pa.field("char_count", pa.int64(), nullable=False),  # non-space characters drawn with it
        pa.field("sizes", pa.list_(pa.float32()), nullable=False),  # distinct sizes, 0.5 pt steps
        # Per page: visible glyphs drawn (whitespace-mapped ones left out), visible glyphs mapped to no
        # text (whitespace only), and glyphs whose mapping the font itself contradicts.
        pa.field("glyph_pages", pa.list_(pa.struct([
            pa.field("page", pa.int32()), pa.field("glyphs", pa.int32()), pa.field("textless", pa.int32()),
            pa.field("wrong", pa.int32())]))),
        pa.field("textless_distinct", pa.int32()),  # distinct non-space glyphs whose mapping is whitespace
        pa.field("mapping_conflict", pa.string()),  # how the font contradicts its Unicode mapping (None: it does not)
    ]
)
TEXT_SPANS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("span_index", pa.int32(), nullable=False),  # order on the page, 0-based
        pa.field("block", pa.int32(), nullable=False),  # MuPDF block and line numbers on the page
        pa.field("line", pa.int32(), nullable=False),
        pa.field("font_name", pa.string(), nullable=False),
        pa.field("size", pa.float32(), nullable=False),  # points
        pa.field("bold", pa.bool_(), nullable=False),
        pa.field("italic", pa.bool_(), nullable=False),
        pa.field("superscript", pa.bool_(), nullable=False),
        pa.field("color", pa.string(), nullable=False),  # #rrggbb
        pa.field("alpha", pa.float32(), nullable=False),  # 0 transparent .. 1 opaque
        pa.field("text", pa.string(), nullable=False),
        pa.field("char_count", pa.int32(), nullable=False),
        pa.field("bbox", pa.list_(pa.float32()), nullable=False),  # PDF points, top-left origin
        pa.field("render_invisible", pa.bool_(), nullable=False),  # neither filled nor stroked, or alpha 0
        pa.field("clipped", pa.bool_(), nullable=False),  # drawn outside the clip path
        pa.field("unmapped_chars", pa.int32(), nullable=False),  # U+FFFD, private-use, BOM/noncharacters, controls
    ]
)


CONTRAST_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),  # 1-based, plus the file's page offset
        pa.field("span_index", pa.int32(), nullable=False),  # order of non-blank spans on the page
        pa.field("text", pa.string()),  # at most 200 characters
        pa.field("font", pa.string()),
        pa.field("size", pa.float64()),  # points
        pa.field("bold", pa.bool_()),
        pa.field("bbox", pa.list_(pa.float64())),  # [x0, y0, x1, y1], points, top-left origin
        pa.field("fill_color", pa.string()),  # '#rrggbb' as drawn (opacity applied)
        pa.field("background_color", pa.string()),  # '#rrggbb'; null when the span is off the page
        pa.field("contrast_ratio", pa.float64()),  # WCAG 2.2, 1..21
        pa.field("large_text", pa.bool_()),  # common.thresholds.is_large_text
        pa.field("threshold", pa.float64()),  # LARGE_TEXT_RATIO for large text, else NORMAL_TEXT_RATIO
        pa.field("passes", pa.bool_()),  # null for invisible spans
        pa.field("char_count", pa.int32()),  # non-whitespace characters
        pa.field("invisible", pa.bool_()),
        # render_mode | transparent | off_page | clipped | no_visible_pixels; null when visible
        pa.field("invisible_reason", pa.string()),
    ]
)


READING_ORDER_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),  # 1-based + page_offset
        pa.field("block_index", pa.int32(), nullable=False),  # unit id on the page, 0-based, content order
        pa.field("bbox", pa.list_(pa.float32()), nullable=False),  # PDF points, top-left origin
        pa.field("text", pa.string(), nullable=False),  # first 200 characters
        pa.field("struct_rank", pa.int32()),  # 0-based rank on the page in tag-tree order; null: not tagged
        pa.field("content_rank", pa.int32(), nullable=False),  # rank in content-stream order
        pa.field("visual_rank", pa.int32(), nullable=False),  # rank in geometric reading order
        pa.field("column", pa.int32()),  # 0, 1, ... left to right; null: spans columns, header or footer
        pa.field("role", pa.string(), nullable=False),  # see ROLES
        pa.field("elem_id", pa.int32()),  # block-level struct element (struct_elements.elem_id)
        pa.field("font_size", pa.float32(), nullable=False),  # dominant size of the unit's text, points
        pa.field("mupdf_block", pa.int32(), nullable=False),  # MuPDF block number (text_spans.block)
        # Footnote markers the unit cites: superscript digits or symbols, or digits glued to a
        # word ("varied.1"); the full text is searched, not the 200 characters kept in `text`.
        pa.field("marks", pa.list_(pa.string()), nullable=False),
        # The order of the element's own marked-content sequences on this page (set on the element's
        # first unit on the page, null elsewhere and where not measured; see _sequence_order):
        # how many were placed, how many steps of the structure order go back up the page within one
        # column, and how many steps cross from one column to another.
        pa.field("mcid_sequences", pa.int32()),
        pa.field("mcid_back_steps", pa.int32()),
        pa.field("mcid_column_switches", pa.int32()),
        # Text no element covers on a tagged page: true where it is drawn inside an /Artifact marked-content
        # sequence of the page's content (a running header, leader dots, or prose hidden from the reader),
        # false where it is in no marked content at all; null for tagged units and untagged documents.
        pa.field("artifact", pa.bool_()),
    ]
)


TABLES_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("table_id", pa.int32(), nullable=False),  # Table elem_id; -1, -2, ... for untagged tables
        pa.field("page", pa.int32()),  # 1-based + page_offset; null when the Table has no content
        pa.field("bbox", BBOX),  # PDF points, top-left origin
        pa.field("rows", pa.int32(), nullable=False),
        pa.field("cols", pa.int32(), nullable=False),
        pa.field("header_rows", pa.int32()),  # leading rows made of TH only; null for untagged tables
        pa.field("header_cols", pa.int32()),  # leading columns of TH below the header rows
        pa.field("th_count", pa.int32()),
        pa.field("td_count", pa.int32()),
        pa.field("has_scope", pa.float32()),  # share of TH with Scope; null without TH
        pa.field("has_headers_attr", pa.float32()),  # share of TD with a non-empty Headers; null without TD
        pa.field("spans", pa.int32(), nullable=False),  # cells with RowSpan or ColSpan > 1
        pa.field("tagged", pa.bool_(), nullable=False),
        pa.field("source", pa.string(), nullable=False),  # tags | visual
        pa.field("caption", pa.string()),
        pa.field("issues", pa.list_(pa.string()), nullable=False),  # codes, see the module docstring
    ]
)
TABLE_CELLS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("table_id", pa.int32(), nullable=False),
        pa.field("row", pa.int32(), nullable=False),  # grid slot of the cell's top-left corner, 0-based
        pa.field("col", pa.int32(), nullable=False),
        pa.field("kind", pa.string()),  # TH | TD; null for cells of untagged tables
        pa.field("scope", pa.string()),  # Scope attribute as written
        pa.field("text", pa.string(), nullable=False),
        pa.field("rowspan", pa.int32(), nullable=False),
        pa.field("colspan", pa.int32(), nullable=False),
        pa.field("headers", pa.list_(pa.string()), nullable=False),  # Headers attribute: IDs of header cells
        pa.field("associated_headers", pa.list_(pa.string()), nullable=False),  # texts of the headers that apply
        pa.field("elem_id", pa.int32()),
    ]
)


FIGURES_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("figure_index", pa.int32(), nullable=False),  # 0-based, pages in order, top to bottom
        pa.field("page", pa.int32()),  # 1-based + page_offset; null for a Figure element without content
        pa.field("bbox", pa.list_(pa.float32())),  # PDF points, top-left origin
        pa.field("kind", pa.string(), nullable=False),  # image | vector | figure_tag_only
        pa.field("elem_id", pa.int32()),  # Figure element (or the element whose content it is)
        pa.field("alt", pa.string()),
        pa.field("actual_text", pa.string()),
        pa.field("is_artifact", pa.bool_()),  # no struct element covers it; null when untagged
        pa.field("caption", pa.string()),
        pa.field("image_xref", pa.int32()),  # image object number; null for vector, inline images
        pa.field("width_px", pa.int32()),
        pa.field("height_px", pa.int32()),
        pa.field("small", pa.bool_(), nullable=False),  # under 2% of the page area
        pa.field("crop_path", pa.string()),  # set by the caller from render_figure_crops
    ]
)


CONFORMANCE_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("file_index", pa.int32(), nullable=False),
        pa.field("profile", pa.string(), nullable=False),  # ua1
        pa.field("rule_id", pa.string(), nullable=False),  # the validator's id (PDFUA1-…)
        pa.field("clause", pa.string()),  # ISO 14289-1
        pa.field("matterhorn", pa.string()),  # Matterhorn Protocol 1.1 checkpoint
        pa.field("status", pa.string(), nullable=False),  # failed | passed | not_applicable | not_checked
        pa.field("object_id", pa.string()),  # "12 0" of a failure, where the validator names one
        pa.field("page", pa.int32()),  # of a failure, where the message names one (numbered on across files)
        pa.field("message", pa.string()),  # the validator's message of a failure; the reason of not_checked
        pa.field("fold", pa.string()),  # "<criterion>.<sub_criterion>" a failure is judged under ("" syntax only)
    ]
)


DOC_STRUCTURE_SCHEMA = pa.schema(
    [pa.field("run_id", pa.string(), nullable=False), pa.field("doc_id", pa.string(), nullable=False),
     pa.field("file_index", pa.int32(), nullable=False), *STRUCT_SUMMARY_SCHEMA]
)
TEXT_SPANS_WITH_CONTRAST = pa.schema(
    [*TEXT_SPANS_SCHEMA, *(CONTRAST_SCHEMA.field(name).with_nullable(True) for name in CONTRAST_COLUMNS)]
)
STRUCT_ELEMENTS = TableSpec("struct_elements", "extract", with_run_id(STRUCT_ELEMENTS_SCHEMA))
LINKS = TableSpec("links", "extract", with_run_id(LINKS_SCHEMA))
ORPHAN_LINK_ELEMENTS = TableSpec("orphan_link_elements", "extract", with_run_id(ORPHAN_LINK_ELEMENTS_SCHEMA))
FONTS = TableSpec("fonts", "extract", with_run_id(FONTS_SCHEMA))
TEXT_SPANS = TableSpec("text_spans", "extract", with_run_id(TEXT_SPANS_WITH_CONTRAST))
DOC_STRUCTURE = TableSpec("doc_structure", "extract", DOC_STRUCTURE_SCHEMA)
READING_ORDER = TableSpec("reading_order", "extract", with_run_id(READING_ORDER_SCHEMA))
TABLES = TableSpec("tables", "extract", with_run_id(pa.schema([*TABLES_SCHEMA, pa.field("crop_path", pa.string())])))
TABLE_CELLS = TableSpec("table_cells", "extract", with_run_id(TABLE_CELLS_SCHEMA))
FIGURES = TableSpec("figures", "extract", with_run_id(FIGURES_SCHEMA))
# Every PDF/UA-1 rule of the page validator per file: failed (one row per failure), passed, not_applicable.
CONFORMANCE = TableSpec("conformance", "extract", with_run_id(CONFORMANCE_SCHEMA))

# -- transcript stage -----------------------------------------------------------------------------------
TRANSCRIPT_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("seq", pa.int32(), nullable=False),  # 0-based, the order things are spoken in
        pa.field("page", pa.int32()),  # 1-based + page_offset; null for recorded speech
        pa.field("announcement", pa.string(), nullable=False),  # what the reader says
        # heading, paragraph, caption, note, list, list_item, table, header_cell, cell, link, figure,
        # formula, form, text (untagged or unstructured words), speech (recorded audio), truncated
        pa.field("role", pa.string(), nullable=False),
        pa.field("element", pa.int32()),  # struct_elements.elem_id; null when untagged
        pa.field("level", pa.int32()),  # heading level; null otherwise
        pa.field("text", pa.string()),  # the raw text behind the announcement, at most MAX_TEXT chars
    ]
)


TRANSCRIPTS = TableSpec("transcripts", "transcript", with_run_id(TRANSCRIPT_SCHEMA))

# -- inputs stage ---------------------------------------------------------------------------------------
JUDGE_INPUTS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("image_path", pa.string()),
        pa.field("evidence", pa.string()),  # JSON: evidence name → payload; absent = not available
        pa.field("available", pa.list_(pa.string())),
        pa.field("withheld", pa.list_(pa.string())),  # by the Cannot Tell protocol (never shown to judges)
        pa.field("input_hash", pa.string()),
    ]
)
JUDGE_INPUTS = TableSpec("judge_inputs", "inputs", JUDGE_INPUTS_SCHEMA)

# -- judge stage ----------------------------------------------------------------------------------------
JUDGMENTS_SCHEMA = pa.schema(
    [
        *JUDGED_PAGE,
        pa.field("label", pa.string()),
        pa.field("sub_criteria", pa.string()),  # JSON: name → verdict
        pa.field("issues", pa.string()),  # JSON list of {sub_criterion, location, problem, remediation}
        pa.field("remediation", pa.string()),
        pa.field("summary", pa.string()),
        pa.field("raw_response", pa.string()),
        pa.field("prompt_version", pa.string()),
        pa.field("prompt_hash", pa.string()),
        pa.field("params", pa.string()),  # JSON of the parameters actually used
        pa.field("flags", pa.string()),  # JSON: hallucination flags (label without evidence, invented values)
        pa.field("review", pa.string()),  # why a person should look (hybrid judge); null otherwise
        pa.field("tier_labels", pa.string()),  # JSON: what each tier of the hybrid judge said
        pa.field("tokens_in", pa.int64()),
        pa.field("tokens_out", pa.int64()),
        pa.field("cost_usd", pa.float64()),
        pa.field("latency_s", pa.float64()),
        pa.field("normalised", pa.string()),  # JSON list: what reading the reply needed (the call log has each call's)
        pa.field("error", pa.string()),
    ]
)
JUDGMENTS = TableSpec("judgments", "judge", JUDGMENTS_SCHEMA)
REVIEW_QUEUE_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),  # what `accessbench review resolve` takes
        pa.field("judge", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("label", pa.string()),  # the label the judge gave meanwhile
        pa.field("tier_labels", pa.string()),  # JSON: what each tier said
        pa.field("reason", pa.string(), nullable=False),
        pa.field("repeats", pa.int32()),  # how many repeats raised it
        pa.field("issues", pa.string()),
    ]
)
REVIEW_QUEUE = TableSpec("review_queue", "judge", REVIEW_QUEUE_SCHEMA)
# One row per finding of every judgment: what `judgments.issues` holds as JSON text, as rows a query can count.
FINDINGS_SCHEMA = pa.schema(
    [
        *JUDGED_PAGE,
        pa.field("seq", pa.int32(), nullable=False),  # its place among the judgment's findings (from 0)
        pa.field("rule_id", pa.string()),  # the rules catalog's id; null for a model's finding
        pa.field("severity", pa.string(), nullable=False),  # error | warning | candidate, as the rule weighed here
        pa.field("sub_criterion", pa.string()),
        pa.field("location", pa.string()),
        # [x0, y0, x1, y1], PDF points from the page's top left: what the finding is about (a figure, a table, a
        # run of text, a reading-order block), where the rule's evidence gives a box; null otherwise.
        pa.field("bbox", pa.list_(pa.float64())),
        pa.field("problem", pa.string()),
        pa.field("remediation", pa.string()),
    ]
)
FINDINGS = TableSpec("findings", "judge", FINDINGS_SCHEMA)
LLM_CALLS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("call_id", pa.string(), nullable=False),  # what `accessbench calls show` takes
        pa.field("study", pa.string()),  # pdf | audit | fix
        # judge_page | confirm_candidate | answer | judge_categories | draft_alt_text | draft_link_description
        pa.field("purpose", pa.string()),
        pa.field("judge", pa.string(), nullable=False),  # the PDF judge, the audited model, the category judge, or fix
        pa.field("model", pa.string()),
        pa.field("doc_id", pa.string(), nullable=False),  # the PDF; for the audit the question (answer) or response
        pa.field("criterion", pa.string()),  # PDF study only
        pa.field("page", pa.int32()),  # PDF study only
        pa.field("repeat", pa.int32(), nullable=False),
        pa.field("attempt", pa.int32(), nullable=False),  # 0 the call, 1 its repair request
        pa.field("kind", pa.string()),  # first | repair
        pa.field("prompt_version", pa.string()),
        pa.field("params", pa.string()),  # JSON: what was sent besides the messages
        pa.field("messages", pa.string()),  # JSON, images as sha256:<hex> (files under <home>/calls/images)
        pa.field("reply", pa.string()),  # raw reply text (redacted, bounded)
        pa.field("parsed", pa.string()),  # JSON the reply parsed to, when it did
        pa.field("parse_error", pa.string()),  # why the reply was not usable (sent back as the repair request)
        pa.field("normalised", pa.string()),  # JSON list: how the reply was read (e.g. ["fenced", "paper_shape"])
        pa.field("cached", pa.bool_()),
        pa.field("http_attempts", pa.int32()),
        pa.field("latency_s", pa.float64()),
        pa.field("tokens_in", pa.int64()),
        pa.field("tokens_out", pa.int64()),
        pa.field("cost_usd", pa.float64()),
        pa.field("error", pa.string()),
    ]
)
LLM_CALLS = TableSpec("llm_calls", "judge", LLM_CALLS_SCHEMA)
# Every finding of a checker judge (`--judge checker:<name>`) on a document, mapped to a criterion or not.
CHECKER_FINDINGS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("judge", pa.string(), nullable=False),  # checker
        pa.field("model", pa.string()),  # the checker and its version: "outloud 0.2.1"
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("rule_id", pa.string(), nullable=False),  # the checker's own rule id
        pa.field("severity", pa.string()),  # as the checker says it
        pa.field("page", pa.int32()),  # 1-based, numbered on across a document's files; null: the whole document
        pa.field("location", pa.string()),
        pa.field("message", pa.string()),
        pa.field("count", pa.int32()),  # occurrences the checker folded into this finding
        pa.field("criterion", pa.string()),  # where the mapping counts the rule (judges/checkers/<name>.toml); null
        pa.field("sub_criterion", pa.string()),  # for a rule it maps nowhere
        pa.field("fails", pa.bool_()),  # its severity fails its sub-criterion (the mapping's `fail`)
    ]
)
CHECKER_FINDINGS = TableSpec("checker_findings", "judge", CHECKER_FINDINGS_SCHEMA)
# One row per checker judge and document: whether the checker ran, and how long it took.
CHECKER_RUNS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("judge", pa.string(), nullable=False),
        pa.field("model", pa.string()),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("checker", pa.string(), nullable=False),
        pa.field("version", pa.string()),
        pa.field("ran", pa.bool_(), nullable=False),  # false: the protocol withheld what the checker reads
        pa.field("reason", pa.string()),  # why it did not run
        pa.field("error", pa.string()),  # why it could not check the file (it ran)
        pa.field("files", pa.int32()),
        pa.field("seconds", pa.float64()),  # the checker's own time on the document's files
        pa.field("findings", pa.int32()),
        pa.field("failing", pa.int32()),  # findings that fail the document's criterion
    ]
)
CHECKER_RUNS = TableSpec("checker_runs", "judge", CHECKER_RUNS_SCHEMA)

# -- aggregate stage ------------------------------------------------------------------------------------
DOC_LABELS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("judge", pa.string(), nullable=False),
        pa.field("model", pa.string()),
        pa.field("repeat", pa.int32(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("label", pa.string(), nullable=False),
        pa.field("pages", pa.int32()),
        pa.field("failed_pages", pa.list_(pa.int32())),
        pa.field("error_pages", pa.int32()),
        pa.field("reason", pa.string()),  # why a document is `unjudged` (no page got a usable judgment)
    ]
)
DOC_LABELS = TableSpec("doc_labels", "aggregate", DOC_LABELS_SCHEMA)


SCREENING_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),  # the file stem; metadata ids match it
        pa.field("path", pa.string(), nullable=False),
        pa.field("pages", pa.int32()),
        pa.field("tagged", pa.bool_()),
        pa.field("struct_elements", pa.int32()),
        pa.field("figures", pa.int32()),  # distinct images large enough to be content
        pa.field("figure_tags", pa.int32()),
        pa.field("tables", pa.int32()),  # Table tags, or "Table N" captions when untagged
        pa.field("headings", pa.int32()),  # H/H1-H6 tags, else outline entries
        pa.field("lists", pa.int32()),  # L tags, else text blocks with bullet-led lines
        pa.field("links", pa.int32()),  # link annotations
        pa.field("external_links", pa.int32()),
        pa.field("two_column", pa.bool_()),
        pa.field("fonts", pa.int32()),
        pa.field("unembedded_fonts", pa.int32()),
        pa.field("text_chars", pa.int32()),  # characters on the sampled pages
        pa.field("repaired", pa.bool_()),  # damaged cross-reference data that MuPDF rebuilt on open
        pa.field("error", pa.string()),
    ]
)


SCREENING_VERDICTS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("file", pa.string(), nullable=False),  # as the user named it: its path under the screened folder
        pa.field("verdict", pa.string(), nullable=False),  # fails | passes | could not be checked
        pa.field("reason", pa.string()),  # why it fails or could not be checked (null: passes)
        pa.field("failed", pa.list_(pa.string())),  # criteria labelled Failed
        pa.field("not_present", pa.list_(pa.string())),  # criteria labelled Not Present
        pa.field("cannot_tell", pa.list_(pa.string())),  # criteria labelled Cannot Tell
        pa.field("unjudged", pa.list_(pa.string())),  # criteria without a label (see `errors`)
        pa.field("pages", pa.int32()),
        pa.field("doc_ids", pa.list_(pa.string())),  # the run's documents of the file (one per criterion)
        # The PDF/UA-1 validator's verdict (extract stage, `conformance` table): conforms | does not conform |
        # not checked, and the rules it failed.
        pa.field("conformance", pa.string()),
        pa.field("conformance_failed", pa.list_(pa.string())),
    ]
)
SCREENING_VERDICTS = TableSpec("screening", "aggregate", SCREENING_VERDICTS_SCHEMA)

# -- metrics stage --------------------------------------------------------------------------------------
RUN_METRICS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("judge", pa.string()),
        pa.field("model", pa.string()),
        pa.field("criterion", pa.string()),
        pa.field("expected_label", pa.string()),  # null = all labels of the criterion
        pa.field("n", pa.int64()),
        pa.field("accuracy", pa.float64()),
        pa.field("accuracy_sd", pa.float64()),
        pa.field("macro_f1", pa.float64()),
    ]
)
RUN_METRICS = TableSpec("run_metrics", "metrics", RUN_METRICS_SCHEMA)
# One row per Failed judgment: the paper's remediation rubric (judges.remediation_quality).
REMEDIATION_SCORES_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("judge", pa.string(), nullable=False),
        pa.field("model", pa.string()),
        pa.field("repeat", pa.int32(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("issues", pa.int32(), nullable=False),  # issues scored (0: the remediation text alone)
        pa.field("specificity", pa.float64(), nullable=False),  # share of issues naming a page and an element
        pa.field("actionability", pa.float64(), nullable=False),  # share naming a tag, attribute or value
        pa.field("technical_validity", pa.float64()),  # share of checkable issues whose references exist
        pa.field("score", pa.float64(), nullable=False),  # mean of the three (validity None = 0)
        pa.field("named", pa.list_(pa.string())),  # structure types, attributes, WCAG SCs, PDF/UA clauses named
        pa.field("invalid", pa.list_(pa.string())),  # those that do not exist
    ]
)
REMEDIATION_SCORES = TableSpec("remediation_scores", "metrics", REMEDIATION_SCORES_SCHEMA)

# -- written outside the stages: `accessbench sample`, review -------------------------------------------
SAMPLES_SCHEMA = pa.schema(
    [
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("rank", pa.int32(), nullable=False),  # 1-based draw order within the criterion
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("path", pa.string(), nullable=False),
        pa.field("field", pa.string(), nullable=False),
        pa.field("title", pa.string()),
        pa.field("year", pa.int32()),
        pa.field("citations", pa.int64()),
        pa.field("prior_score", pa.float64()),
        pa.field("two_column", pa.bool_()),
        pa.field("seed", pa.int64(), nullable=False),
    ]
)


RESOLUTIONS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("criterion", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("label", pa.string(), nullable=False),
        pa.field("note", pa.string()),
        pa.field("reviewer", pa.string()),
        pa.field("resolved_at", pa.timestamp("us", tz="UTC"), nullable=False),
    ]
)

# -- the inclusivity audit's stages ---------------------------------------------------------------------
QUESTIONS_SCHEMA = pa.schema([
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("question_id", pa.string(), nullable=False),
    pa.field("theme", pa.string()),
    pa.field("text", pa.string(), nullable=False),
    pa.field("note", pa.string()),
])
QUESTIONS = TableSpec("questions", "questions", QUESTIONS_SCHEMA)


RESPONSES_SCHEMA = pa.schema([
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("response_id", pa.string(), nullable=False),
    pa.field("model", pa.string(), nullable=False),
    pa.field("variant", pa.string(), nullable=False),
    pa.field("question_id", pa.string(), nullable=False),
    pa.field("repeat", pa.int32()),  # 0.. --repeats - 1 (answers sampled again at the same temperature)
    pa.field("text", pa.string()),
    pa.field("source", pa.string(), nullable=False),  # model | import | fixture (hand-written, not model output)
    pa.field("prompt_version", pa.string()),
    pa.field("prompt_hash", pa.string()),
    pa.field("params", pa.string()),  # JSON of the parameters actually sent
    pa.field("tokens_in", pa.int64()),
    pa.field("tokens_out", pa.int64()),
    pa.field("cost_usd", pa.float64()),
    pa.field("latency_s", pa.float64()),
    pa.field("cached", pa.bool_()),
    pa.field("error", pa.string()),
])
RESPONSES = TableSpec("responses", "responses", RESPONSES_SCHEMA)
RESPONSE_CALLS = TableSpec("llm_calls", "responses", LLM_CALLS_SCHEMA)  # every audited model's call


CATEGORY_JUDGMENTS_SCHEMA = pa.schema([
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("response_id", pa.string(), nullable=False),
    pa.field("question_id", pa.string(), nullable=False),
    pa.field("model", pa.string(), nullable=False),  # the model that wrote the response
    pa.field("variant", pa.string(), nullable=False),
    pa.field("judge", pa.string(), nullable=False),  # lexicon | embedding | llm:<model>
    pa.field("judge_model", pa.string()),
    pa.field("category", pa.string(), nullable=False),
    pa.field("covered", pa.bool_()),  # null: voided (error, or snippet not found)
    pa.field("depth", pa.int32()),
    pa.field("snippet", pa.string()),
    pa.field("flags", pa.string()),  # JSON, e.g. {"snippet_not_found": true}
    pa.field("prompt_version", pa.string()),
    pa.field("prompt_hash", pa.string()),
    pa.field("params", pa.string()),
    # One call judges all nine categories: its reply and accounting sit on the call's first row only.
    pa.field("raw_response", pa.string()),
    pa.field("tokens_in", pa.int64()),
    pa.field("tokens_out", pa.int64()),
    pa.field("cost_usd", pa.float64()),
    pa.field("latency_s", pa.float64()),
    pa.field("error", pa.string()),
])
CATEGORY_JUDGMENTS = TableSpec("category_judgments", "category_judgments", CATEGORY_JUDGMENTS_SCHEMA)
JUDGE_CALLS = TableSpec("llm_calls", "category_judgments", LLM_CALLS_SCHEMA)  # every LLM category judge's call


AUDIT_RUN_METRICS_SCHEMA = pa.schema([
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("metric", pa.string(), nullable=False),  # qlcs | dlcs | depth_at_k | prompt_delta | coverage_kappa | …
    pa.field("judge", pa.string()),
    pa.field("judge_b", pa.string()),  # the second judge of an agreement row
    pa.field("model", pa.string()),
    pa.field("variant", pa.string()),
    pa.field("category", pa.string()),
    pa.field("k", pa.int32()),
    pa.field("value", pa.float64()),
    pa.field("n", pa.int64()),
])
AUDIT_RUN_METRICS = TableSpec("audit_run_metrics", "audit_metrics", AUDIT_RUN_METRICS_SCHEMA)

# -- every stage: error rows ----------------------------------------------------------------------------
ERRORS_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("stage", pa.string(), nullable=False),
        pa.field("doc_id", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("message", pa.string()),
        pa.field("retryable", pa.bool_()),  # transient: a resumed run retries the document
    ]
)

# -- accessbench fix ------------------------------------------------------------------------------------
FIX_STAGE = "fix"
FIXES_SCHEMA = pa.schema([
    pa.field("run_id", pa.string(), nullable=False),  # the re-judge run
    pa.field("original_run_id", pa.string(), nullable=False),  # the run whose findings were repaired
    pa.field("original_file", pa.string(), nullable=False),
    pa.field("fixed_file", pa.string(), nullable=False),
    pa.field("remedy", pa.string(), nullable=False),
    pa.field("rule_ids", pa.list_(pa.string()), nullable=False),  # the findings it answered
    pa.field("changes", pa.list_(pa.string()), nullable=False),
    pa.field("left", pa.string()),  # why the finding stays, when the remedy could not clear it
    pa.field("drafts", pa.list_(pa.string())),  # changes for a person to review (a derived title, model drafts)
    pa.field("refused", pa.string()),  # "kind: why" for a file left as it is (remedy "", nothing written)
])
# <home>/artifacts/fix/run=<re-judge run>/fixes.parquet: `accessbench sql "select * from fixes"`
FIXES_TABLE = TableSpec("fixes", FIX_STAGE, FIXES_SCHEMA)


# -- every table ----------------------------------------------------------------------------------------

# Tables more than one stage writes are one view over every stage's files ("*"): errors, and the call log (the PDF
# judges, the audit's respondents and its LLM category judge all write `llm_calls`).
SHARED_TABLES: tuple[TableSpec, ...] = (
    TableSpec("errors", "*", ERRORS_SCHEMA),
    TableSpec("llm_calls", "*", LLM_CALLS_SCHEMA),
)
SHARED = frozenset(spec.name for spec in SHARED_TABLES)

# Each stage's own tables, by stage (a stage's `llm_calls` files are read through the shared view).
STAGE_TABLES: dict[str, tuple[TableSpec, ...]] = {
    "corpus": (DOCUMENTS, ITEM_SET),
    "render": (PAGES,),
    "layout": (LAYOUT_REGIONS, LAYOUT_PAGES),
    "extract": (STRUCT_ELEMENTS, LINKS, ORPHAN_LINK_ELEMENTS, FONTS, TEXT_SPANS, DOC_STRUCTURE, READING_ORDER, TABLES,
                TABLE_CELLS, FIGURES, CONFORMANCE),
    "transcript": (TRANSCRIPTS,),
    "inputs": (JUDGE_INPUTS,),
    "judge": (JUDGMENTS, REVIEW_QUEUE, FINDINGS, CHECKER_FINDINGS, CHECKER_RUNS),
    "aggregate": (DOC_LABELS, SCREENING_VERDICTS),
    "metrics": (RUN_METRICS, REMEDIATION_SCORES),
    "questions": (QUESTIONS,),
    "responses": (RESPONSES,),
    "category_judgments": (CATEGORY_JUDGMENTS,),
    "audit_metrics": (AUDIT_RUN_METRICS,),
}

# Tables written outside the stages: review resolutions, `accessbench sample`, `accessbench fix`
OTHER_TABLES: tuple[TableSpec, ...] = (
    TableSpec("review_resolutions", "review", RESOLUTIONS_SCHEMA, pattern=RESOLUTIONS_PATTERN),
    TableSpec("sample_screening", "sample", with_run_id(SCREENING_SCHEMA)),
    TableSpec("samples", "sample", with_run_id(SAMPLES_SCHEMA)),
    FIXES_TABLE,
)


def tables_of(stages: Iterable[str]) -> tuple[TableSpec, ...]:
    """Every table a query over the outputs of the named stages needs: theirs, in stage order, and the shared ones."""
    return (*(spec for stage in stages for spec in STAGE_TABLES[stage]), *SHARED_TABLES)


# Every table `accessbench sql` and the reports see: the benchmark's, the audit's, the shared ones, the others
ALL_TABLES: tuple[TableSpec, ...] = (
    *tables_of(BENCHMARK_STAGE_NAMES),
    *OTHER_TABLES[:3],
    *(spec for stage in AUDIT_STAGE_NAMES for spec in STAGE_TABLES[stage]),
    OTHER_TABLES[3],
)
