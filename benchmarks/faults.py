"""The fault corpus (`corpus/faults.py`) through a full run: what became labels, what became error
rows (by kind), whether any stage failed, and peak memory. Run from the repository root::

    python -m benchmarks.faults --count 210 --criteria semantic_tagging alt_text_quality
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from corpus.faults import build_fault_corpus
from tasks.benchmark.registry import STAGE_LIST
from tasks.engine.context import RunConfig
from tasks.engine.runner import StageFailed, execute
from warehouse import catalog
from warehouse.tables import ALL_TABLES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=210)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--criteria", nargs="+", default=["semantic_tagging"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        made = build_fault_corpus(Path(tmp) / "pdfs", count=args.count, seed=args.seed)
        cfg = RunConfig(home=Path(tmp) / "home", run_id="faults", source="pdfs", source_path=str(Path(tmp) / "pdfs"),
                        criteria=args.criteria, progress=False, doc_timeout_s=60)
        started, failed = time.monotonic(), []
        for stage in STAGE_LIST:
            try:
                execute(cfg, stage)
            except StageFailed as exc:
                failed.append(f"{stage.name}: {exc}")
                break
        seconds = time.monotonic() - started
        _, per_kind = catalog.query(cfg.home, ALL_TABLES, """
            select json_extract_string(d.metadata, '$.path') as file, count(distinct l.doc_id) as labelled,
                   string_agg(distinct e.stage || '/' || e.kind, ' ') as errors
            from documents d left join doc_labels l using (run_id, doc_id) left join errors e using (run_id, doc_id)
            group by all""")
    by_mutation: dict[str, list[int]] = {}
    kinds: dict[str, int] = {}
    for file, labelled, errors in per_kind:
        row = by_mutation.setdefault(made[file], [0, 0, 0])
        row[0] += 1
        row[1] += 1 if labelled else 0
        row[2] += 1 if errors else 0
        for kind in (errors or "").split():
            kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{'mutation':<16} {'tried':>6} {'labelled':>9} {'with error rows':>16}")
    for mutation, (tried, labelled, errors) in sorted(by_mutation.items()):
        print(f"{mutation:<16} {tried:>6} {labelled:>9} {errors:>16}")
    print("error rows by stage/kind: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print(f"stage failures: {len(failed)}" + (f" ({failed[0]})" if failed else ""))
    peak = max(resource.getrusage(w).ru_maxrss for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024
    print(f"files: {len(made)}; wall: {seconds:.0f} s; peak RSS of any process: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
