"""`asmcfg diff` of two ~1,000-block compilations against reading both, as ratios in the same run.

BigMethod's largest C2 compilation on JDK 17 (id 11) and on JDK 25 (its largest C2 one), both ~1,150 blocks.
The reference is reading and analysing each side alone (`asmcfg FILE --compile-id N --json /dev/null -q`, the
two run times added); the diff is `asmcfg diff OLD NEW ... --json /dev/null -q` (goal: <= 2x). In-process
figures split the diff's own work (reducing both sides, matching, the JSON document) from the reading.

Run: python benchmarks/bench_diff.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from bench_core import ASMCFG, largest_c2, timed

ROOT = Path(__file__).resolve().parent.parent
OLD = ROOT / "tests" / "data" / "hsdis" / "jdk17-BigMethod-print-hsdis-att.txt.gz"
NEW = ROOT / "tests" / "data" / "hsdis" / "jdk25-BigMethod-print-hsdis-att.txt.gz"


def in_process(old_id: int, new_id: int) -> tuple[float, float, int, int]:
    """Seconds to read and analyse both sides, seconds of the diff's own work, and the two block counts."""
    sys.path.insert(0, str(ROOT))
    from asmcfg.compare import items, report
    from asmcfg.compare.match import diff
    from asmcfg.run.diff import DiffOptions, read_sides
    from asmcfg.run.pipeline import Selector

    options = DiffOptions(str(OLD), str(NEW), Selector(compile_id=old_id), Selector(compile_id=new_id))
    start = time.perf_counter()
    old, new = read_sides(options)
    read = time.perf_counter() - start
    start = time.perf_counter()
    report.document(diff(items.side(old), items.side(new)))
    return read, time.perf_counter() - start, len(old.cfg.blocks), len(new.cfg.blocks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    old_id, new_id = largest_c2(OLD), largest_c2(NEW)
    singles, diffs = [], []
    for _ in range(runs):
        singles.append(sum(timed([*ASMCFG, str(path), "--compile-id", cid, "--json", os.devnull, "-q"])
                           for path, cid in ((OLD, old_id), (NEW, new_id))))
        diffs.append(timed([*ASMCFG, "diff", str(OLD), str(NEW), "--old-compile-id", old_id, "--new-compile-id",
                            new_id, "--json", os.devnull, "-q"]))
    reference, together = statistics.median(singles), statistics.median(diffs)
    read, own, old_blocks, new_blocks = in_process(int(old_id), int(new_id))
    print(f"cores: {os.cpu_count()}  runs per figure: {runs} (median)")
    print(f"old: {OLD.name} id {old_id} ({old_blocks} blocks); new: {NEW.name} id {new_id} ({new_blocks} blocks)")
    print(f"{'measure':70} {'seconds':>8} {'ratio':>7}")
    print(f"{'reading both: two asmcfg FILE --compile-id N --json runs (reference)':70} {reference:8.3f} {1:7.2f}")
    print(f"{'asmcfg diff OLD NEW --json (goal <= 2x)':70} {together:8.3f} {together / reference:7.2f}")
    print(f"{'in process: read and analyse both sides':70} {read:8.3f} {1:7.2f}")
    print(f"{'in process: the diff itself (reduce, match, JSON document)':70} {own:8.3f} {own / read:7.2f}")


if __name__ == "__main__":
    main()
