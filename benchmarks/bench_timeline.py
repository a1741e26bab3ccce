"""The run over time (`--timeline`) against the plain summary of the same record folder.

On the largest record folder of tests/data/record (plain copies unpacked into --work), times `asmcfg DIR
--timeline -q` (one pass over the log for its times and code cache, one over `perf script`'s text binning every
sample per millisecond, the buckets, the storms) against `asmcfg DIR --dot /dev/null`, the plain run on the same
folder (the hottest compilation chosen, drawn and summed up on stderr), each as a command, best of --runs; and the
library's timeline (`read_jit_log`, `read_binned`, `build`) against `read_perf_heat`, the binning that run's
summary counts its samples with.

Run: python benchmarks/bench_timeline.py [--work DIR] [--runs N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from asmcfg.dialects.heatfiles import read_binned, read_jit_log
from asmcfg.dialects.perfscript.heat import read_perf_heat
from asmcfg.facts.timeline import build

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_perf import RECORD, unpacked


def best(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def cli(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "asmcfg", *args], check=True, capture_output=True)


def timeline(script: Path, log: Path) -> object:
    jit = read_jit_log(str(log))
    return build(jit, read_binned(str(script), str(log), jit))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/asmcfg-bench-perf"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    run = max((p for p in RECORD.iterdir() if p.is_dir()), key=lambda p: sum(f.stat().st_size for f in p.iterdir()))
    folder = unpacked(run, args.work)
    (log,) = folder.glob("jvmpid*.xml")
    script = folder / "perf-script.txt"
    library = best(lambda: timeline(script, log), args.runs)
    binning = best(lambda: read_perf_heat(str(script), str(log)), args.runs)
    with_timeline = best(lambda: cli(str(folder), "--timeline", "-q"), args.runs)
    plain = best(lambda: cli(str(folder), "--dot", "/dev/null"), args.runs)
    print(f"{run.name}: log {log.stat().st_size / 1e6:.1f} MB, perf script {script.stat().st_size / 1e6:.1f} MB")
    print(f"library  timeline {library:6.2f}s  read_perf_heat {binning:6.2f}s  ratio {library / binning:4.2f}x")
    print(f"command  --timeline {with_timeline:6.2f}s  plain run {plain:6.2f}s  ratio {with_timeline / plain:4.2f}x")


if __name__ == "__main__":
    main()
