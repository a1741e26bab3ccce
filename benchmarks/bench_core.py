"""Core timings as ratios against references run in the same process.

1. End-to-end `asmcfg examples/c2-compiled-realTest.S` vs `python -c "import networkx"` (goal <= 1.5x).
2. SVG of BigMethod's largest C2 compile (JDK 17, AT&T) with and without folding, per available renderer.

Run: python benchmarks/bench_core.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "c2-compiled-realTest.S"
BIG = ROOT / "tests" / "data" / "hsdis" / "jdk17-BigMethod-print-hsdis-att.txt.gz"
ASMCFG = [sys.executable, "-m", "asmcfg"]


def timed(command: list[str]) -> float:
    """Seconds one run of `command` takes (output discarded, failure fatal)."""
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def median_of(command: list[str], runs: int) -> float:
    """Median wall time over `runs` runs."""
    return statistics.median(timed(command) for _ in range(runs))


def largest_c2(path: Path) -> str:
    """Compile id of the C2 compilation with the most instructions, read from `asmcfg --list`."""
    listing = subprocess.run([*ASMCFG, str(path), "--list"], capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in listing.splitlines()[1:] if line.startswith("c2")]
    return max(rows, key=lambda row: int(row[-2]))[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    reference = median_of([sys.executable, "-c", "import networkx"], runs)
    example = median_of([*ASMCFG, str(EXAMPLE), "-q"], runs)
    print(f"cores: {os.cpu_count()}  runs per figure: {runs} (median)")
    print(f"{'measure':58} {'seconds':>8} {'ratio':>7}")
    name = 'python -c "import networkx" (reference)'
    print(f"{name:58} {reference:8.3f} {1:7.2f}")
    print(f"{'asmcfg examples/c2-compiled-realTest.S (DOT + summary)':58} {example:8.3f} {example / reference:7.2f}")
    compile_id = largest_c2(BIG)
    renderers = ["graphviz-pure"] + (["dot"] if shutil.which("dot") else [])
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "big.svg")
        base = [*ASMCFG, str(BIG), "--compile-id", compile_id, "--svg", out, "-q"]
        dot_only = median_of([*ASMCFG, str(BIG), "--compile-id", compile_id, "-q"], max(3, runs // 2))
        print(f"{f'BigMethod id {compile_id}: parse + analyse + DOT':58} {dot_only:8.3f} {dot_only / reference:7.2f}")
        for renderer in renderers:
            for fold in (True, False):
                command = [*base, "--renderer", renderer] + ([] if fold else ["--no-fold"])
                seconds = median_of(command, max(3, runs // 2))
                label = f"BigMethod id {compile_id}: SVG, {renderer}, {'folded' if fold else 'no fold'}"
                print(f"{label:58} {seconds:8.3f} {seconds / reference:7.2f}")


if __name__ == "__main__":
    main()
