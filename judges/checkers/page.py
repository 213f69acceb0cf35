"""checker:page — the PDF/UA-1 validator `page` (PyPI `page-validation`, a core dependency) on its own.

`page.validate_pdf(path, profile="ua1")` reports the rules a file breaks and nothing about the others. Which
rules exist, where a reader meets each one (its criterion) and what a document must contain for it to apply is
declared once, in `judges/rules/catalog/conformance/pdfua1.toml` (`judges.conformance`); this adapter and the
mapping `page.toml` (``rules_from = "conformance"``) read it. A declared rule that did not fail is `pass` where the
file contains what the rule checks (its structure types and "@…" features, read here from the file) and
`not_applicable` where it does not, as the `conformance` table says it.
"""

from __future__ import annotations

import importlib.metadata
import re
import time
from typing import Any

import pikepdf

from judges.checkers import CHECKERS, CheckerRun, Finding
from judges.conformance import PROFILE, applicable, checks

PAGE_IN_MESSAGE = re.compile(r"\bpage (\d+)\b", re.IGNORECASE)
MAX_ELEMENTS = 200_000  # structure elements read for the contents; a larger tree is read that far
ROLE_MAP_DEPTH = 8


class Page:
    name = "page"

    def version(self) -> str:
        return importlib.metadata.version("page-validation")

    def check(self, path: str) -> CheckerRun:
        import page

        started = time.perf_counter()
        try:
            report = page.validate_pdf(path, profile=PROFILE)
        except page.PageError as exc:  # unreadable, or over the validator's own safety limits
            return CheckerRun(seconds=time.perf_counter() - started, error=f"{type(exc).__name__}: {exc}"[:300],
                              version=self.version())
        seconds = time.perf_counter() - started
        declared = checks()
        findings = []
        for failure in report.failures:
            message = str(failure.message)
            on_page = PAGE_IN_MESSAGE.search(message)
            obj = failure.object_id
            check = declared.get(str(failure.rule_id))
            findings.append(Finding(rule=str(failure.rule_id), severity="error", message=message,
                                    page=int(on_page.group(1)) if on_page else None,
                                    location=f"object {obj.object_number} {obj.generation}" if obj is not None else "",
                                    remedy=check.remediation if check else ""))
        failed = {f.rule for f in findings}
        try:
            present = contents(path)
        except pikepdf.PdfError:
            present = set()  # the validator read it; without its contents every rule not failed counts as passed
            present.add("*")
        outcomes = {rule: "fail" if rule in failed else
                    "pass" if "*" in present or applicable(check, present) else "not_applicable"
                    for rule, check in declared.items()}
        outcomes.update({rule: "fail" for rule in failed})
        return CheckerRun(findings=findings, outcomes=outcomes, seconds=seconds, version=self.version())


def contents(path: str) -> set[str]:
    """The structure types (as written and as role-mapped) and "@…" features of the file, the vocabulary of the
    declaration's `applies`."""
    present: set[str] = set()
    with pikepdf.open(path) as pdf:
        root = pdf.Root
        tree = root.get("/StructTreeRoot")
        if isinstance(tree, pikepdf.Dictionary):
            present |= _structure_types(tree)
        fonts = annotations = False
        for page in pdf.pages:
            resources = page.obj.get("/Resources")
            if isinstance(resources, pikepdf.Dictionary) and len(resources.get("/Font") or {}) > 0:
                fonts = True
            for annot in page.obj.get("/Annots") or []:
                if not isinstance(annot, pikepdf.Dictionary):
                    continue
                annotations = True
                subtype = str(annot.get("/Subtype", ""))
                present |= {feature for feature, kinds in (("@links", ("/Link",)), ("@forms", ("/Widget",)),
                                                           ("@media", ("/Screen", "/Movie", "/Sound", "/RichMedia")))
                            if subtype in kinds}
        present |= {f for f, on in (("@fonts", fonts), ("@annotations", annotations),
                                    ("@forms", "/AcroForm" in root), ("@outlines", "/Outlines" in root),
                                    ("@optional_content", "/OCProperties" in root)) if on}
    return present


def _structure_types(tree: pikepdf.Dictionary) -> set[str]:
    role_map = tree.get("/RoleMap")
    roles = {str(k)[1:]: str(v)[1:] for k, v in role_map.items()} if isinstance(role_map, pikepdf.Dictionary) else {}
    found: set[str] = set()
    stack: list[Any] = [tree.get("/K")]
    seen: set[tuple[int, int]] = set()
    read = 0
    while stack and read < MAX_ELEMENTS:
        node = stack.pop()
        if isinstance(node, pikepdf.Array):
            stack.extend(node)
            continue
        if not isinstance(node, pikepdf.Dictionary):
            continue
        if node.is_indirect:
            if node.objgen in seen:
                continue
            seen.add(node.objgen)
        read += 1
        kind = node.get("/S")
        if isinstance(kind, pikepdf.Name):
            name = str(kind)[1:]
            for _ in range(ROLE_MAP_DEPTH):  # as written, then each role it maps to
                found.add(name)
                if name not in roles:
                    break
                name = roles[name]
        if "/K" in node:
            stack.append(node.get("/K"))
    return found


@CHECKERS.register("page")
def _make(argument: str | None, options: dict[str, Any]) -> Page:
    return Page()
