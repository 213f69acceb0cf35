"""Functional hyperlinks (WCAG 2.2 SC 2.4.4, 4.1.2; PDF/UA-1 §7.18.5): tagged, working links."""

from __future__ import annotations

from judges.base import Issue, PageJudgment
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.common import FAILED, NA, PASSED, cannot_tell, verdict

SUBS = ("link_tagging", "functionality", "descriptiveness", "structure_association", "perceivability")
BROKEN_KINDS = {"none", "javascript", "launch"}


def judge_links(bundle: PageBundle) -> PageJudgment:
    meta = bundle.evidence.get("link_metadata")
    if meta is None:
        return cannot_tell(bundle, "link metadata", SUBS)
    links = meta["links"]
    link_elements = meta["link_elements"]
    where = f"Page {bundle.page}"
    if not links and not link_elements:
        return PageJudgment(Label.NOT_PRESENT, {s: NA for s in SUBS}, summary=f"{where}: no links on this page.")
    subs = {s: PASSED for s in SUBS}
    subs["perceivability"] = NA  # judged from the rendered page by visual judges
    issues: list[Issue] = []
    for link in links:
        anchor = link.get("anchor_text") or link.get("target") or "link"
        at = f"{where}, link “{anchor[:60]}”"
        if not link.get("has_link_element"):
            subs["link_tagging"] = FAILED
            subs["structure_association"] = FAILED
            issues.append(Issue("structure_association", at,
                                "the link annotation is not referenced by any Link structure element",
                                "tag the link text as a Link element and add an OBJR to this annotation "
                                "(with the annotation's StructParent pointing back)"))
        if link.get("dest_valid") is False:
            subs["functionality"] = FAILED
            issues.append(Issue("functionality", at, f"internal destination {link.get('target')!r} does not exist",
                                "point the link at an existing named destination or page"))
        if link.get("uri_well_formed") is False:
            subs["functionality"] = FAILED
            issues.append(Issue("functionality", at, f"URI {link.get('target')!r} is malformed",
                                "fix the URI (scheme://host/path, no spaces)"))
        if link.get("kind") in BROKEN_KINDS:
            subs["functionality"] = FAILED
            issues.append(Issue("functionality", at, f"link action is {link.get('kind')}",
                                "give the link a GoTo or URI action"))
    for element in link_elements:
        if not element.get("objr_count"):
            subs["structure_association"] = FAILED
            issues.append(Issue("structure_association",
                                f"{where}, Link element “{element.get('text') or element['id']}”",
                                "Link element references no link annotation",
                                "add an OBJR kid for the annotation, or retag the text if it is not a link"))
    return verdict(bundle, subs, issues, f"{len(links)} links are tagged, associated and resolve.")
