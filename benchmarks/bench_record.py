"""`asmcfg record`'s cost: a fixed amount of CPU-bound Java work (benchmarks/java/RecWork.java) run plain, recorded
without perf (the capture flags alone: LogCompilation, every C2 compilation printed) and recorded with perf, each
`--runs` times; the medians as ratios to the plain run.

Wall time is what a user waits; CPU time (user + system of the whole process tree) is what the capture costs, and
varies less on a shared machine. Peak RSS is the largest process of the tree (the JVM). The recorded runs include
asmcfg's own start, perf script and moving the files.

Run: python benchmarks/bench_record.py [--java /usr/lib/jvm/java-17-openjdk-amd64/bin/java] [--rounds N] [--runs N]
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

ROOT = Path(__file__).resolve().parent
JAVA = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"


def measured(command: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of the process tree, and its largest peak RSS in KiB."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = status
    if status != 0:
        raise SystemExit(f"{command} failed with status {status}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--java", default=JAVA)
    parser.add_argument("--rounds", type=int, default=60000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-record-"))
    try:
        subprocess.run(["javac", "--release", "17", "-d", str(work), str(ROOT / "java" / "RecWork.java")], check=True)
        program = [args.java, "-cp", str(work), "RecWork", str(args.rounds)]
        record = [sys.executable, "-m", "asmcfg", "record"]
        variants = {
            "plain": lambda n: program,
            "capture": lambda n: [*record, "--no-perf", "-o", str(work / f"c{n}"), "--", *program],
            "capture+perf": lambda n: [*record, "--perf", "-o", str(work / f"p{n}"), "--", *program],
        }
        results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in variants}
        for n in range(args.runs):  # interleaved: a change in the machine's load hits every variant alike
            for name, command in variants.items():
                results[name].append(measured(command(n)))
        base_wall = statistics.median(r[0] for r in results["plain"])
        base_cpu = statistics.median(r[1] for r in results["plain"])
        print(f"RecWork {args.rounds} rounds on {args.java}, {args.runs} runs each, medians")
        for name, runs in results.items():
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            rss = statistics.median(r[2] for r in runs) / 1024
            print(f"{name:13} wall {wall:6.2f} s ({wall / base_wall:4.2f}x)  cpu {cpu:6.2f} s ({cpu / base_cpu:4.2f}x)"
                  f"  peak RSS {rss:6.0f} MB")
        for prefix in ("c", "p"):
            sizes = {p.name: p.stat().st_size for p in (work / f"{prefix}0").iterdir()}
            print(f"folder {prefix}0: " + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in sorted(sizes.items())
                                                   if v > 100_000))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
