"""Remediation quality: the paper's rubric applied to a Failed judgment's advice, without a model.

Three yes/no questions per issue (its location, problem and remediation):

- **specificity** — does it name a page *and* an element ("Page 2, figure 1", "table 1",
  "link “Data and methods”", "font NewCM10-Regular", or the element's own text quoted in the
  location: "Page 1, “Results”")?
- **actionability** — does the remediation name something concrete to change: a structure type
  (TH, LI, Figure), an attribute or key (/Alt, Scope, ActualText, ToUnicode) or a value (4.5:1,
  #000000, 9 pt, Scope=Column)? "Fix the reading order" is not actionable.
- **technical validity** — do the structure types and attributes it names exist in ISO 32000 /
  PDF/UA-1, the WCAG 2.2 success criteria it cites exist, and the PDF/UA-1 clauses it cites
  exist? None when it names nothing that could be checked.

A judgment's scores are the means over its issues (a Failed judgment without issues is scored on
its remediation text alone); `score` is the mean of the three, a validity of None counting as 0:
advice that names nothing checkable has not shown it is technically sound.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# ISO 32000-1 §14.8.4 standard structure types, plus those ISO 32000-2 (PDF 2.0) added.
STRUCTURE_TYPES = _word_set("""
Document Part Art Sect Div BlockQuote Caption TOC TOCI Index NonStruct Private P H H1 H2 H3 H4 H5 H6
L LI Lbl LBody Table TR TH TD THead TBody TFoot Span Quote Note Reference BibEntry Code Link Annot Ruby
RB RT RP Warichu WT WP Figure Formula Form DocumentFragment Aside Title FENote Sub Em Strong Artifact
""")
# Structure attributes and dictionary keys (ISO 32000-1 §14.7–14.9, §9, §12.5) advice may name.
ATTRIBUTES = _word_set("""
Alt ActualText E Lang Scope Headers ID RowSpan ColSpan Summary Placement BBox ListNumbering RoleMap
Role Contents StructParent StructParents StructTreeRoot OBJR MCR MCID ParentTree ToUnicode FontFile
FontFile2 FontFile3 FontDescriptor Tabs MarkInfo Marked Suspects DisplayDocTitle ViewerPreferences
Dest Dests URI Annots Pg K S A Name Widths Encoding BaseFont Subtype Type Metadata Outlines
""")
KNOWN_NAMES = STRUCTURE_TYPES | ATTRIBUTES
# Names that are also ordinary English words count only when the text uses them as names.
_AMBIGUOUS = frozenset(n for n in KNOWN_NAMES if n.isalpha() and (len(n) == 1 or n.lower() in {
    "document", "part", "art", "sect", "div", "caption", "index", "private", "span", "quote", "note",
    "reference", "code", "link", "annot", "ruby", "figure", "formula", "form", "aside", "title", "sub",
    "em", "strong", "artifact", "table", "alt", "lang", "scope", "headers", "summary", "placement",
    "role", "contents", "marked", "suspects", "dest", "dests", "annots", "name", "widths", "encoding",
    "type", "metadata", "outlines", "tabs"}))

# WCAG 2.2 success criteria (4.1.1 Parsing was removed in 2.2).
_WCAG_COUNTS = {"1.1": 1, "1.2": 9, "1.3": 6, "1.4": 13, "2.1": 4, "2.2": 6, "2.3": 3, "2.4": 13, "2.5": 8,
                "3.1": 6, "3.2": 6, "3.3": 9, "4.1": 3}
WCAG_22 = frozenset(f"{g}.{i}" for g, n in _WCAG_COUNTS.items() for i in range(1, n + 1)) - {"4.1.1"}
# PDF/UA-1 (ISO 14289-1) clause 7 has sub-clauses 7.1–7.21; clauses 1–6 are front matter and conformance.
PDFUA_TOP = frozenset({str(n) for n in range(1, 7)} | {f"7.{n}" for n in range(1, 22)})

_PAGE = re.compile(r"\b(?:page|p\.)\s*\d+", re.I)
_ELEMENT = re.compile(
    r"\b(?i:figure|table|link|heading|list item|list|text|font|image|paragraph|cell|row|column|caption|span|"
    r"footnote|header|footer|formula|annotation|element|form field)s?\s+(?:\d+|[“\"'‘«][^”\"'’»]*|[A-Z][\w.+-]*)")
# An element named by its own text, as locations quote it: Page 1, “Results”; link to 'cite.Smith2020'.
_QUOTED = re.compile(r"“[^”]{2,}”|\"[^\"]{2,}\"|‘[^’]{2,}’|'[^']{2,}'")
_VALUE = re.compile(r"\d+(?:\.\d+)?\s*:\s*1\b|#[0-9a-fA-F]{6}\b|\b\d+(?:\.\d+)?\s*pt\b|\b\w+=\w+")
_NAME_CONTEXTS = (
    re.compile(r"<\s*/?([A-Za-z][A-Za-z0-9]*)\s*>"),  # <TH>
    re.compile(r"(?<![\w/])/([A-Z][A-Za-z0-9]*)"),  # /Alt
    re.compile(r"\b([A-Z][A-Za-z0-9]*)\s+(?:elements?|tags?|structure elements?|attributes?|entry|key)\b"),
    re.compile(r"\btag(?:ged|s)?\s+(?:it\s+|them\s+|each\s+\w+\s+)?as\s+(?:an?\s+)?([A-Z][A-Za-z0-9]*)"),
    re.compile(r"\b([A-Z][A-Za-z0-9]*)\s*(?:>|/(?=[A-Z]))"),  # Table > TR, TH/TD
    re.compile(r"(?:>|(?<=[A-Z])/)\s*([A-Z][A-Za-z0-9]*)"),
    re.compile(r"\b([A-Z][A-Za-z0-9]*)=\w"),  # Scope=Column
)
_WCAG = re.compile(r"\b(?:WCAG(?:\s*2(?:\.[0-2])?)?(?:\s*SC)?|SC|success criterion)\s*(\d+\.\d+\.\d+)", re.I)
_PDFUA = re.compile(r"\bPDF/UA(?:-1)?\s*(?:clause\s*|§\s*)?(\d+(?:\.\d+)*)", re.I)


@dataclass
class IssueScore:
    specific: bool
    actionable: bool
    valid: bool | None
    named: list[str] = field(default_factory=list)  # technical references found
    invalid: list[str] = field(default_factory=list)  # those that do not exist


def _names(text: str) -> set[str]:
    """Structure types and attributes the text uses as names (ambiguous words only in name contexts)."""
    text = re.sub(r"PDF/UA(?:-\d)?|ISO\s*\d+(?:-\d)?|PDF/A|I/O", " ", text)  # standards' names are not tags
    found = {m.group(1) for pattern in _NAME_CONTEXTS for m in pattern.finditer(text)}
    bare = {w for w in re.findall(r"\b[A-Za-z][A-Za-z0-9]*\b", text) if w in KNOWN_NAMES and w not in _AMBIGUOUS}
    return found | bare


def _references(text: str) -> tuple[list[str], list[str]]:
    """(named, invalid): structure types/attributes, WCAG SCs and PDF/UA clauses the text cites."""
    named, invalid = [], []
    for name in sorted(_names(text)):
        named.append(name)
        if name not in KNOWN_NAMES:
            invalid.append(name)
    for sc in _WCAG.findall(text):
        named.append(f"WCAG {sc}")
        if sc not in WCAG_22:
            invalid.append(f"WCAG {sc}")
    for clause in _PDFUA.findall(text):
        parts = clause.split(".")
        top = ".".join(parts[:2]) if parts[0] == "7" else parts[0]
        named.append(f"PDF/UA-1 {clause}")
        if top not in PDFUA_TOP or (parts[0] == "7" and len(parts) < 2):
            invalid.append(f"PDF/UA-1 {clause}")
    return named, invalid


def score_issue(location: str, problem: str, remediation: str) -> IssueScore:
    where = f"{location} {problem}"
    specific = bool(_PAGE.search(where) or _PAGE.search(remediation)) and bool(
        _ELEMENT.search(where) or _QUOTED.search(location) or _ELEMENT.search(remediation))
    remedy_names = {n for n in _names(remediation) if n in KNOWN_NAMES}
    actionable = bool(remediation.strip()) and bool(remedy_names or _VALUE.search(remediation))
    named, invalid = _references(f"{where} {remediation}")
    return IssueScore(specific, actionable, (not invalid) if named else None, named, invalid)


def score_judgment(issues: list[dict[str, Any]], remediation: str | None) -> dict[str, Any]:
    """Mean rubric scores over a Failed judgment's issues (its `findings` rows; or its remediation text when
    it lists none)."""
    if issues:
        scores = [score_issue(str(i.get("location") or ""), str(i.get("problem") or ""),
                              str(i.get("remediation") or "")) for i in issues]
    else:
        scores = [score_issue("", "", remediation or "")]
    n = len(scores)
    specificity = sum(s.specific for s in scores) / n
    actionability = sum(s.actionable for s in scores) / n
    checked = [s.valid for s in scores if s.valid is not None]
    validity = sum(checked) / len(checked) if checked else None
    return {
        "issues": len(issues),
        "specificity": specificity,
        "actionability": actionability,
        "technical_validity": validity,
        "score": (specificity + actionability + (validity or 0.0)) / 3,
        "named": sorted({n for s in scores for n in s.named}),
        "invalid": sorted({n for s in scores for n in s.invalid}),
    }
