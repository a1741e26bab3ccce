"""Binning `perf` samples to compilations, as a ratio to a Python line loop over the same files.

For each recording in tests/data/record (plain copies unpacked into --work), times `read_perf_heat` (one pass
over the log for its `<nmethod>` records, one over `perf script`'s text binning every sample) against a
reference that reads the same two files line by line and splits each perf line into fields (the least any
reader does), best of --runs each. Then `asmcfg DIR --list` against `asmcfg LOG --list` on the same log: what
the heat costs a run.

Run: python benchmarks/bench_perf.py [--work DIR] [--runs N]
"""

from __future__ import annotations

import argparse
import lzma
import subprocess
import sys
import time
from pathlib import Path

from asmcfg.dialects.perfscript.heat import read_perf_heat

RECORD = Path(__file__).resolve().parent.parent / "tests" / "data" / "record"


def unpacked(run: Path, work: Path) -> Path:
    """The run's folder with plain copies of its files, made once."""
    target = work / run.name
    if not target.exists():
        target.mkdir(parents=True)
        for path in run.iterdir():
            name = path.name.removesuffix(".xz")
            data = lzma.decompress(path.read_bytes()) if path.suffix == ".xz" else path.read_bytes()
            (target / name).write_bytes(data)
    return target


def best(work: callable, runs: int) -> float:  # type: ignore[valid-type]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def reference(log: Path, script: Path) -> int:
    """Lines of the log looked at, and perf lines split into fields."""
    count = 0
    with open(log, "rb") as f:
        for line in f:
            count += line.startswith(b"<nmethod ")
    with open(script, encoding="utf-8", errors="replace") as f:
        for line in f:
            count += len(line.split())
    return count


def cli(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "asmcfg", *args], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/asmcfg-bench-perf"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'recording':28} {'samples':>8} {'log MB':>7} {'binning':>8} {'line loop':>9} {'ratio':>6} "
          f"{'DIR --list':>10} {'LOG --list':>10} {'ratio':>6}")
    for run in sorted(p for p in RECORD.iterdir() if p.is_dir()):
        folder = unpacked(run, args.work)
        (log,) = folder.glob("jvmpid*.xml")
        script = folder / "perf-script.txt"
        heat = read_perf_heat(str(script), str(log))
        binning = best(lambda s=script, g=log: read_perf_heat(str(s), str(g)), args.runs)
        loop = best(lambda s=script, g=log: reference(g, s), args.runs)
        with_heat = min(cli(str(folder), "--list", "-q") for _ in range(args.runs))
        alone = min(cli(str(log), "--list", "-q") for _ in range(args.runs))
        print(f"{run.name:28} {heat.found.total:>8,} {log.stat().st_size / 1e6:>7.1f} {binning:>7.2f}s {loop:>8.2f}s "
              f"{binning / loop:>5.1f}x {with_heat:>9.2f}s {alone:>9.2f}s {with_heat / alone:>5.1f}x")


if __name__ == "__main__":
    main()
