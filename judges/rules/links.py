"""Functional hyperlinks (WCAG 2.2 SC 2.4.4, 4.1.2; PDF/UA-1 §7.18.5): tagged, working links."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from judges.base import Issue, PageJudgment
from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.common import FAILED, NA, PASSED, cannot_tell, verdict

SUBS = SPEC["functional_hyperlinks"].sub_names
BROKEN_KINDS = {"none", "javascript", "launch"}
WEB_SCHEMES = {"http", "https", "ftp", "ftps"}
HOST = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}\.?$|^localhost$|^\d{1,3}(?:\.\d{1,3}){3}$")
MAILBOX = re.compile(r"[^@\s:,;]+@[^@\s,;]+\.[a-z]{2,}", re.IGNORECASE)


def uri_problem(uri: str | None) -> str | None:
    """Why a viewer could not follow this URI, or None if it can.

    Deliberately about *functionality*: a web URI needs a known scheme and a valid host; stray
    whitespace in the path is forgiven because viewers percent-encode it and resolvers (doi.org)
    still answer. A mailto needs at least one address.
    """
    if not uri or not uri.strip():
        return "the URI is empty"
    uri = uri.strip()
    scheme, _, rest = uri.partition(":")
    scheme = scheme.lower()
    if scheme == "mailto":
        return None if MAILBOX.search(rest) else "the mailto link has no e-mail address"
    if scheme == "doi" or scheme == "tel":
        return None if rest.strip() else f"the {scheme} link is empty"
    if scheme not in WEB_SCHEMES:
        return f"unknown URI scheme {scheme!r}" if rest.startswith("//") or "." in rest else "the URI has no scheme"
    if not rest.startswith("//"):
        return "the URI lacks '//' after the scheme"
    host = (urlsplit(uri).hostname or "").strip()
    if not HOST.match(host):
        return f"the host {host!r} is not a valid domain name"
    return None


def judge_links(bundle: PageBundle) -> PageJudgment:
    meta = bundle.evidence.get("link_metadata")
    if meta is None:
        return cannot_tell(bundle, "link metadata", SUBS)
    links = meta["links"]
    link_elements = meta["link_elements"]
    where = f"Page {bundle.page}"
    if not links:
        orphans = f" ({len(link_elements)} Link tags without an annotation)" if link_elements else ""
        return PageJudgment(Label.NOT_PRESENT, {s: NA for s in SUBS},
                            summary=f"{where}: no link annotations on this page{orphans}.")
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
        if not (link.get("contents") or "").strip() and not (link.get("anchor_text") or "").strip() \
                and not (link.get("element_text") or "").strip():
            subs["descriptiveness"] = FAILED
            issues.append(Issue("descriptiveness", f"{where}, link to {link.get('target') or 'nowhere'!r}",
                                "the link has nothing a screen reader can announce: no /Contents, no link text "
                                "and no Alt on its Link element",
                                "give the link annotation a /Contents description of where it leads (or put "
                                "visible link text inside its Link element)"))
        if link.get("dest_valid") is False:
            subs["functionality"] = FAILED
            issues.append(Issue("functionality", at, f"internal destination {link.get('target')!r} does not exist",
                                "point the link at an existing named destination or page"))
        problem = uri_problem(link.get("target")) if link.get("kind") == "uri" else None
        if problem:
            subs["functionality"] = FAILED
            issues.append(Issue("functionality", at, f"URI {link.get('target')!r} cannot be followed: {problem}",
                                "fix the URI so it reads scheme://host/path"))
        if link.get("kind") in BROKEN_KINDS:
            subs["functionality"] = FAILED
            issues.append(Issue("functionality", at, f"link action is {link.get('kind')}",
                                "give the link a GoTo or URI action"))
    # A Link element without an annotation is not a broken link: there is simply no link there
    # to follow (authoring tools leave such tags behind for citations). It is not failed.
    return verdict(bundle, subs, issues, f"{len(links)} links are tagged, associated and resolve.")
