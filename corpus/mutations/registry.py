"""Which edits produce each label, per criterion.

An edit is either a :data:`Mutation` (a pikepdf change to the compiled passing document) or a
:class:`Rerender` (the same seeded content compiled again under other render options). Both
keep everything a judge could key on identical to the passing document except the property
the label is about; where a re-render cannot keep the layout (smaller type, other fonts,
removed figures or tables), the change is the point of the label.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from corpus.mutations import alt_text, contrast, fonts, links, reading_order, tables, tagging
from corpus.mutations.structure import Mutation
from corpus.typst_docs import BaseDoc, RenderOptions


@dataclass(frozen=True)
class Rerender:
    """Compile the base document's content again with options drawn from the seed."""

    options: Callable[[BaseDoc, random.Random], RenderOptions]
    description: str


Edit = Mutation | Rerender


@dataclass(frozen=True)
class CriterionMutations:
    """The edits that produce each non-passing label for one criterion (None: no such label)."""

    failed: Mapping[str, Edit]
    not_present: tuple[str, Edit] | None


NO_FIGURES = Rerender(lambda _doc, _rng: RenderOptions(figures=False), "the document without its figures")
NO_TABLES = Rerender(lambda _doc, _rng: RenderOptions(tables=False), "the document without its tables")
TINY_TEXT = Rerender(lambda _doc, rng: RenderOptions(body_size=rng.choice((6.0, 6.5, 7.0))),
                     "all text set at 6 to 7 pt (body below the 9 pt floor)")
CROWDED = Rerender(lambda _doc, rng: RenderOptions(tracking_em=-rng.choice((0.12, 0.15, 0.18))),
                   "negative letter spacing: letters touch and overlap")
MIXED_FONTS = Rerender(lambda _doc, _rng: RenderOptions(mixed_fonts=True),
                       "paragraphs rotate between serif, modern and monospace families for no reason")

CRITERION_MUTATIONS: Mapping[str, CriterionMutations] = {
    "alt_text_quality": CriterionMutations(
        failed={
            "alt_generic": alt_text.alt_generic,
            "alt_file_name": alt_text.alt_file_name,
            "alt_missing": alt_text.alt_missing,
            "alt_empty": alt_text.alt_empty,
            "alt_mismatched": alt_text.alt_mismatched,
        },
        not_present=("figures_removed", NO_FIGURES),
    ),
    "semantic_tagging": CriterionMutations(
        failed={
            "heading_level_skip": tagging.heading_level_skip,
            "first_heading_demoted": tagging.first_heading_demoted,
            "paragraphs_as_spans": tagging.paragraphs_as_spans,
            "list_items_unwrapped": tagging.list_items_unwrapped,
            "list_as_paragraph": tagging.list_as_paragraph,
            "headings_as_paragraphs": tagging.headings_as_paragraphs,
        },
        not_present=("untagged", tagging.untag),
    ),
    "logical_reading_order": CriterionMutations(
        failed={
            "section_moved": reading_order.section_moved,
            "heading_after_body": reading_order.heading_after_body,
            "footnote_misplaced": reading_order.footnote_misplaced,
            "columns_interleaved": reading_order.columns_interleaved,
        },
        not_present=None,
    ),
    "table_structure": CriterionMutations(
        failed={
            "th_demoted": tables.th_demoted,
            "header_associations_removed": tables.header_associations_removed,
            "headers_misassigned": tables.headers_misassigned,
            "rows_flattened": tables.rows_flattened,
            "table_as_text": tables.table_as_text,
            "spans_dropped": tables.spans_dropped,
        },
        not_present=("tables_removed", NO_TABLES),
    ),
    "functional_hyperlinks": CriterionMutations(
        failed={
            "links_detached": links.links_detached,
            "internal_dest_missing": links.internal_dest_missing,
            "internal_dest_out_of_range": links.internal_dest_out_of_range,
            "uri_scheme_typo": links.break_uri("scheme_typo"),
            "uri_missing_colon": links.break_uri("missing_colon"),
            "uri_embedded_space": links.break_uri("embedded_space"),
        },
        not_present=("links_removed", links.links_removed),
    ),
    "color_contrast": CriterionMutations(
        failed={
            "body_text_faint": contrast.body_text_faint,
            "headings_faint": contrast.headings_faint,
            "captions_faint": contrast.captions_faint,
            "backgrounds_darkened": contrast.backgrounds_darkened,
            "graphics_washed_out": contrast.graphics_washed_out,
        },
        not_present=None,
    ),
    "fonts_readability": CriterionMutations(
        failed={
            "font_unembedded": fonts.font_unembedded,
            "tounicode_removed": fonts.tounicode_removed,
            "letters_crowded": CROWDED,
            "body_text_tiny": TINY_TEXT,
            "inconsistent_fonts": MIXED_FONTS,
        },
        not_present=None,
    ),
}


def failed_order(criterion: str, seed: int) -> list[str]:
    """The failure edits of ``criterion`` in a seeded order; document ``i`` starts at entry ``i mod n``.

    Rotating through a shuffled list (rather than drawing independently per document) covers
    every edit once there are as many base documents as edits.
    """
    names = list(CRITERION_MUTATIONS[criterion].failed)
    random.Random(f"accessbench-failed-order:{seed}:{criterion}").shuffle(names)
    return names
