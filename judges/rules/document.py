"""Document-level checks PAC and veraPDF users expect, judged with semantic tagging (PDF/UA-1 5, 7.1, 7.2, 7.16).

They decide whether assistive technology can use a tagged file at all: whether its encryption lets screen
readers extract the content (7.16), whether it has a title to announce (XMP dc:title, shown by viewers when
/DisplayDocTitle is true; 7.1), a natural language to pronounce it in (/Lang; 7.2), and whether it claims
PDF/UA (XMP pdfuaid:part; 5). The evidence (`tag_structure["document"]`) is on the document's first page
only, so each finding is reported once per document. Missing title, language and display setting are errors
where the document claims PDF/UA, warnings otherwise (see the catalog's comment for why).
"""

from __future__ import annotations

from typing import Any

from judges.base import Issue
from judges.rules.catalog import finding

# Each check's rule where the document claims PDF/UA, and where it does not (ids spelled out: the catalog
# test finds the ids the code raises by reading it).
LANG = ("semantic_tagging.structural_hierarchy.lang_missing",
        "semantic_tagging.structural_hierarchy.lang_missing_advisory")
TITLE = ("semantic_tagging.structural_hierarchy.title_missing",
         "semantic_tagging.structural_hierarchy.title_missing_advisory")
DISPLAY_TITLE = ("semantic_tagging.structural_hierarchy.display_doc_title_off",
                 "semantic_tagging.structural_hierarchy.display_doc_title_off_advisory")


def primary_language(tag: str) -> str:
    """The primary subtag of a BCP 47 language tag, lower case: "en-GB" → "en", "DE_de" → "de"."""
    return tag.strip().replace("_", "-").split("-")[0].lower()


def document_checks(tags: dict[str, Any], where: str) -> list[Issue]:
    """The findings about the document as a whole; [] on pages other than its first."""
    facts = tags.get("document")
    if not isinstance(facts, dict):
        return []
    at = f"{where} (document level)"
    part = facts.get("pdfua_part")
    pick = 0 if part else 1
    issues = []
    if facts.get("accessibility_permitted") is False:  # None: an extraction that did not record it
        issues.append(finding("semantic_tagging.structural_hierarchy.accessibility_permission_denied",
                              f"{where} (document security settings)"))
    # No catalog /Lang is a finding only where the language is not declared on the content itself either.
    if not str(facts.get("lang") or "").strip() and facts.get("lang_declared_for_all_text") is not True:
        issues.append(finding(LANG[pick], at, part=part))
    declared = str(facts.get("lang") or "").strip()
    told = facts.get("text_lang")
    if declared and isinstance(told, dict) and told.get("lang") and primary_language(declared) != told["lang"]:
        issues.append(finding("semantic_tagging.structural_hierarchy.lang_mismatch", at, declared=declared,
                              detected=told["lang"], share=f"{told.get('share', 0):.0%}", words=told.get("words")))
    if facts.get("xmp_title") is False:
        issues.append(finding(TITLE[pick], at, part=part))
    if facts.get("display_doc_title") is not True:
        state = "is false" if facts.get("display_doc_title") is False else "is not set"
        issues.append(finding(DISPLAY_TITLE[pick], at, part=part, state=state))
    if not part:
        issues.append(finding("semantic_tagging.structural_hierarchy.pdfua_identifier_missing", at))
    return issues
