"""How much `accessbench fix` repairs: the share of failed findings turned into passes, per rule, on the
synthetic corpus (`accessbench corpus synth`) and on the development benchmark's Failed items.

Every file goes through the whole pipeline with the rules judge, gets repaired (repairs.fix), and the
repaired copies are re-judged; a finding counts as turned into a pass when the re-judge no longer raises
that rule on that file. Rules with a remedy (the `remedy` key of judges/rules/catalog/*.toml) are the
mechanically fixable ones (the issue's target: at least 0.9 of their findings); the rest are shown with the
reason they stay for a person. Also: seconds per document (judge, repair and re-judge together).

    python -m benchmarks.fix [--base-docs 2] [--dataset ../shared/pdf-accessibility-benchmark] [--limit 40]
                             [--lang en] [--keep DIR]

The synthetic corpus's own defects are ones a person must repair (its files are otherwise conforming), so a
third set puts the defects the mechanical remedies answer (`put_in_defects`: no /Lang, no title, DisplayDocTitle
off, no /Tabs, links without /Contents, the first heading too deep, header cells without Scope) into the
corpus's Passed files. Without the development benchmark folder that part is skipped with a message. Prints
numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pikepdf
import pymupdf

from corpus.manifest import load_dataset
from corpus.synthetic import build_synthetic_benchmark
from judges.rules.catalog import catalog
from repairs.fix import FileFix, drafts, fix_files
from repairs.remedies import MODEL_REMEDIES, reason_for

DEFAULT_DATASET = Path(__file__).resolve().parents[1].parent / "shared" / "pdf-accessibility-benchmark"


def _pdfs_of(root: Path, failed_only: bool, limit: int | None) -> list[Path]:
    rows = load_dataset(root, "fix-benchmark")
    files: list[Path] = []
    for row in rows:
        if row.get("error") or not row.get("files") or (failed_only and row.get("expected_label") != "failed"):
            continue
        path = Path(row["root"]) / row["files"][0]
        if path.suffix.lower() == ".pdf" and path.is_file() and path not in files:
            files.append(path)
    return files[:limit] if limit else files


def _struct_elements(node: pikepdf.Object) -> list[pikepdf.Dictionary]:
    found: list[pikepdf.Dictionary] = []
    k = node.get("/K")
    for kid in (k if isinstance(k, pikepdf.Array) else [k] if k is not None else []):
        if isinstance(kid, pikepdf.Dictionary) and "/S" in kid:
            found += [kid, *_struct_elements(kid)]
    return found


def put_in_defects(pdf: pikepdf.Pdf) -> None:
    """The defects the mechanical remedies answer, put into a conforming file: no /Lang, no title (XMP or
    /Title), DisplayDocTitle off, no /Tabs on pages with annotations, links without /Contents, the first
    heading one level too deep, header cells without Scope."""
    if "/Lang" in pdf.Root:
        del pdf.Root["/Lang"]
    with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
        if "dc:title" in meta:
            del meta["dc:title"]
    if "/Title" in pdf.docinfo:
        del pdf.docinfo["/Title"]
    if isinstance(pdf.Root.get("/ViewerPreferences"), pikepdf.Dictionary):
        pdf.Root.ViewerPreferences.DisplayDocTitle = False
    for page in pdf.pages:
        if "/Tabs" in page.obj:
            del page.obj["/Tabs"]
        for annot in page.obj.get("/Annots") or []:
            if annot.get("/Subtype") == "/Link" and "/Contents" in annot:
                del annot["/Contents"]
    if "/StructTreeRoot" in pdf.Root:
        elements = _struct_elements(pdf.Root.StructTreeRoot)
        first = next((e for e in elements if e.get("/S") == "/H1"), None)
        if first is not None:
            first.S = pikepdf.Name.H2 if any(e.get("/S") == "/H2" for e in elements) else pikepdf.Name.H3
        for cell in elements:
            if cell.get("/S") in ("/TH", "/TD"):
                for key in ("/A", "/ID"):
                    if key in cell:
                        del cell[key]


def _with_defects(files: list[Path], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i, path in enumerate(files):
        target = folder / f"{i:04d}-{path.name}"
        with pikepdf.open(path) as pdf:
            put_in_defects(pdf)
            pdf.save(target)
        out.append(target)
    return out


def _measure(name: str, files: list[Path], work: Path, lang: str | None) -> None:
    if not files:
        print(f"{name}: no PDF files")
        return
    pairs = [(path, work / name / "out" / f"{i:04d}-{path.name}") for i, path in enumerate(files)]
    started = time.perf_counter()
    _, _, results = fix_files(work / name / "home", pairs, lang=lang)
    seconds = time.perf_counter() - started
    turned, before, held = _per_rule(results)
    print(f"\n## {name}: {len(files)} document(s), {seconds / len(files):.2f} s per document "
          "(judge, repair and re-judge)\n")
    print("| rule | remedy | findings | turned into passes | share | left by the remedy, with its reason |\n"
          "|---|---|---|---|---|---|")
    fixable_before = fixable_turned = fixable_held = 0

    def mechanical(rule_id: str) -> bool:
        rule = catalog().get(rule_id)
        return bool(rule and rule.remedy and rule.remedy not in MODEL_REMEDIES)

    for rule_id in sorted(before, key=lambda r: (not mechanical(r), r)):
        rule = catalog().get(rule_id)
        remedy = (f"{rule.remedy} (model draft)" if rule and rule.remedy in MODEL_REMEDIES
                  else rule.remedy if rule and rule.remedy else f"– ({reason_for(rule_id)})")
        share = turned[rule_id] / before[rule_id]
        print(f"| `{rule_id}` | {remedy} | {before[rule_id]} | {turned[rule_id]} | {share:.2f} | "
              f"{held[rule_id] or ''} |")
        if mechanical(rule_id):
            fixable_before += before[rule_id]
            fixable_turned += turned[rule_id]
            fixable_held += held[rule_id]
    if fixable_before:
        print(f"\nmechanically fixable findings turned into passes: {fixable_turned}/{fixable_before} = "
              f"{fixable_turned / fixable_before:.2f} (target ≥ 0.90)")
        if fixable_held < fixable_before:
            print(f"  leaving out the {fixable_held} the remedy left with a reason (the last column above): "
                  f"{fixable_turned}/{fixable_before - fixable_held} = "
                  f"{fixable_turned / (fixable_before - fixable_held):.2f}")
    else:
        print("\nno finding of a rule with a remedy in these files")
    marked = sum(1 for r in results if "artifacts" in r.outcomes and r.outcomes["artifacts"][1].changes)
    print(f"files whose page furniture or decorative paths were marked as artifacts: {marked}/{len(results)}")
    review = drafts(results)
    print(f"drafts listed for review: {len(review)}" + (f" (e.g. {review[0][2]})" if review else ""))
    refused = [r for r in results if r.refused is not None]
    print(f"files left as they are (refused): {len(refused)}" + "".join(f"\n  {r.original.name}: {r.refused}"
                                                                  for r in refused))
    changed = [f"{r.original.name} page {page}" for r in results if r.refused is None
               for page in _changed_pages(r.original, r.fixed)]
    print(f"pages whose rendering changed (36 dpi, any channel off by more than 8): {len(changed)}"
          + (f" ({', '.join(changed[:5])})" if changed else ""))


def _changed_pages(original: Path, fixed: Path, tolerance: int = 8) -> list[int]:
    with pymupdf.open(original) as a, pymupdf.open(fixed) as b:
        if len(a) != len(b):
            return list(range(1, max(len(a), len(b)) + 1))
        out = []
        for number, (pa, pb) in enumerate(zip(a, b, strict=True), start=1):
            x, y = (np.frombuffer(p.get_pixmap(dpi=36).samples, dtype=np.uint8).astype(np.int16) for p in (pa, pb))
            if x.shape != y.shape or int(np.abs(x - y).max(initial=0)) > tolerance:
                out.append(number)
        return out


def _per_rule(results: list[FileFix]) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """(rule → findings turned into passes, rule → findings before, rule → findings its remedy left with a
    reason), counted per file and rule."""
    turned: Counter[str] = Counter()
    before: Counter[str] = Counter()
    held: Counter[str] = Counter()
    for r in results:
        had = Counter(f.rule_id for f in r.findings)
        still = Counter(f.rule_id for f in r.after)
        left = {rid for rule_ids, outcome in r.outcomes.values() if outcome.left for rid in rule_ids}
        for rule_id, n in had.items():
            before[rule_id] += n
            turned[rule_id] += max(0, n - still[rule_id])
            if rule_id in left:
                held[rule_id] += min(n, still[rule_id])
    return turned, before, held


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-docs", type=int, default=2, help="base documents of the synthetic corpus")
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET, help="the development benchmark")
    parser.add_argument("--limit", type=int, default=40, help="at most this many of its Failed files (0: all)")
    parser.add_argument("--lang", default=None, help="--lang for files without /Lang (default: none)")
    parser.add_argument("--keep", type=Path, help="keep the work folder here (default: a temporary one)")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="accessbench-fix-bench-"))
    try:
        synth = work / "synthetic-corpus"
        build_synthetic_benchmark(synth, base_docs=args.base_docs)
        synthetic = _pdfs_of(synth, failed_only=False, limit=None)
        _measure("synthetic", synthetic, work, args.lang)
        passed = [p for p in synthetic if p.parent.name == "passed"]
        _measure("synthetic-with-defects", _with_defects(passed, work / "synthetic-defects"), work, args.lang)
        if (args.dataset / "data" / "dataset.json").exists():
            _measure("development-benchmark-failed", _pdfs_of(args.dataset, True, args.limit or None), work,
                     args.lang)
        else:
            print(f"\ndevelopment benchmark: skipped, {args.dataset} has no data/dataset.json (pass --dataset)",
                  file=sys.stderr)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
