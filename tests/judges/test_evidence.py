"""Evidence bundles: the Cannot Tell protocol and what a judge must never see."""

from __future__ import annotations

import json

import pytest

from judges.criteria import CRITERIA
from judges.evidence import EVIDENCE, DocEvidence, build_bundles


def doc() -> DocEvidence:
    return DocEvidence(
        "d1",
        pages=[{"page": 1, "image_path": "/home/x/artifacts/render/images/abc-72dpi/page-0001.png",
                "has_text": True, "width_pt": 612, "height_pt": 792}],
        struct_elements=[{"elem_id": 0, "parent_id": None, "type": "Document", "page": None},
                         {"elem_id": 1, "parent_id": 0, "type": "H1", "page": 1, "text": "Title", "bbox": None}],
        doc_structure=[{"tagged": True, "marked": True}],
        links=[{"page": 1, "kind": "uri", "target": "https://example.org", "has_link_element": True}],
        fonts=[{"font_name": "F", "embedded": True, "pages": [1], "sizes": [10.0]}],
        text_spans=[{"page": 1, "font_name": "F", "size": 10.0, "char_count": 40, "contrast_ratio": 12.0,
                     "passes": True, "invisible": False, "text": "hello", "bbox": [0, 0, 10, 10]}],
    )


@pytest.mark.parametrize("criterion", CRITERIA)
def test_cannot_tell_items_lose_exactly_the_starred_evidence(criterion: str) -> None:
    (full, withheld_none), = build_bundles(criterion, doc(), withhold=False)
    (held, withheld), = build_bundles(criterion, doc(), withhold=True)
    starred = {name for name, star in EVIDENCE[criterion] if star}
    assert withheld_none == [] and set(withheld) == starred
    assert not starred & set(held.evidence)
    assert "page_image" in held.evidence and held.image_path  # the page itself is always shown


def test_bundles_carry_no_paths_labels_or_pdf_metadata() -> None:
    for criterion in CRITERIA:
        for bundle, _ in build_bundles(criterion, doc(), withhold=False):
            text = json.dumps(bundle.evidence)
            for leak in ("/home/x", "passed", "failed", "not_present", "cannot_tell", "Producer", "CreationDate",
                         "doc_id", "run_id"):
                assert leak not in text, (criterion, leak)
