"""Functional hyperlinks (WCAG 2.2 SC 2.4.4, 4.1.2; PDF/UA-1 §7.18.5): tagged, working links."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from judges.base import Issue, PageJudgment
from judges.criteria import SPEC
from judges.evidence import PageBundle
from judges.labels import Label
from judges.rules.catalog import finding
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
    issues = [i for link in links for i in link_issues(link, where)] + contents_issues(meta, where)
    for issue in issues:  # warnings are set aside by the catalog (judges.rules.apply_catalog)
        subs[issue.sub_criterion] = FAILED
    # A Link element without an annotation is not a broken link: there is simply no link there
    # to follow (authoring tools leave such tags behind for citations). It is not failed.
    return verdict(bundle, subs, issues, f"{len(links)} links are tagged, associated and resolve.")


def link_issues(link: dict[str, Any], where: str) -> list[Issue]:
    """The findings of one link annotation."""
    anchor = link.get("anchor_text") or link.get("target") or "link"
    at = f"{where}, link “{anchor[:60]}”"
    found: list[Issue] = []
    if not link.get("has_link_element"):
        kind = link.get("element_type")
        claimed = f"it belongs to a {kind} element" if kind else "no structure element refers to it"
        found.append(finding("functional_hyperlinks.link_tagging.not_in_link", at, claimed=claimed))
        if not kind:  # claimed by another element's OBJR, it is associated, only not as a Link
            found.append(finding("functional_hyperlinks.structure_association.not_referenced", at))
    if not (link.get("contents") or "").strip() and not (link.get("anchor_text") or "").strip() \
            and not (link.get("element_text") or "").strip():
        found.append(finding("functional_hyperlinks.descriptiveness.nothing_to_announce",
                             f"{where}, link to {link.get('target') or 'nowhere'!r}"))
    if link.get("dest_valid") is False:
        found.append(finding("functional_hyperlinks.functionality.dest_missing", at,
                             target=repr(link.get("target"))))
    problem = uri_problem(link.get("target")) if link.get("kind") == "uri" else None
    if problem:
        found.append(finding("functional_hyperlinks.functionality.uri_malformed", at,
                             target=repr(link.get("target")), problem=problem))
    if link.get("kind") in BROKEN_KINDS:
        found.append(finding("functional_hyperlinks.functionality.broken_action", at, kind=link.get("kind")))
    return found


def contents_issues(meta: dict[str, Any], where: str) -> list[Issue]:
    """Link annotations without /Contents (PDF/UA-1 7.18.5; Matterhorn 28-012), one finding per page.

    An error where the document claims PDF/UA (XMP pdfuaid:part), a warning otherwise: a link whose
    text says where it leads meets WCAG 2.4.4 without /Contents. Links with nothing to announce at all
    are reported by ``nothing_to_announce`` instead.
    """
    bare = [link for link in meta["links"] if not (link.get("contents") or "").strip()
            and ((link.get("anchor_text") or "").strip() or (link.get("element_text") or "").strip())]
    if not bare:
        return []
    target = repr(_clip(bare[0].get("target") or bare[0].get("anchor_text") or "nowhere", 60))
    values: dict[str, Any] = {"count": len(bare), "target": target}
    part = meta.get("pdfua_part")
    if part:
        return [finding("functional_hyperlinks.descriptiveness.contents_missing", where, part=part, **values)]
    return [finding("functional_hyperlinks.descriptiveness.contents_missing_advisory", where, **values)]


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
