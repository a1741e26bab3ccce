"""A JMH run recorded through its forks: per fork, the share of its samples in the benchmark's compilations.

Builds tests/data/jmh (JMH 1.37, `SumBench.sumPositive`: one loop over an int[] with a data-dependent branch) with
Maven in a scratch copy, or takes `--jar`, then records `java -jar benchmarks.jar SumBench -f 2 -wi 2 -i 3 -w 1s
-r 1s` --runs times (`asmcfg record -o DIR -- ...`). Each recording holds one LogCompilation log per JVM: the JMH
host and its two forks (which inherit the host's JVM flags, as JMH does unless `-jvmArgs` replaces them), and with
the flags in JAVA_TOOL_OPTIONS also JMH's two short blackhole probe JVMs; a fork is the log where JMH's generated
`*_jmhTest` stub was compiled. Per fork, the independent counter of perf_count.py (no asmcfg code) bins the fork's
perf samples to its compilations by the rule of `asmcfg record`, and sums the samples of the compilations of the
benchmark method and of those that inline it (JMH force-inlines it into the stub, so the stub's C2 compilation holds
the loop). It prints a table per recording and fork (the share of the process's samples, and of the benchmark
thread's), then the mean and spread of the fork shares.

Then it asks `asmcfg DIR --pid P --json` for each fork: its hottest compilation (the counter's, with the same
samples?), that compilation's hottest block and the innermost loop holding it.

Run: python benchmarks/record_jmh.py [--jar benchmarks.jar] [--runs 3] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from perf_count import owners, read_log, read_samples

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent / "tests" / "data" / "jmh"
JMH_ARGS = ("SumBench", "-f", "2", "-wi", "2", "-i", "3", "-w", "1s", "-r", "1s")
BENCHMARK = "asmcfg.jmh.SumBench sumPositive"
"""The benchmark method as the log names it (`Class name`, before the signature)."""
STUB_CLASS = "_jmhTest "
"""What the log's name of a JMH-generated stub method holds (`...jmh_generated.SumBench_sumPositive_jmhTest ...`)."""


@dataclass(frozen=True, slots=True)
class ForkShare:
    """One fork's figures."""

    pid: int
    """The fork's process id."""
    samples: int
    """All its samples (every thread)."""
    benchmark: int
    """Samples in the benchmark's compilations."""
    hottest: tuple[int, str, int]
    """The compilation with the most samples: compile id, method, samples."""
    ids: tuple[int, ...]
    """The benchmark's compilations that have samples, hottest first."""
    worker: int
    """Samples of the thread that ran the benchmark (the one with the most samples in its compilations)."""
    worker_benchmark: int
    """Those of them in the benchmark's compilations."""

    @property
    def share(self) -> float:
        """Percent of the fork's samples in the benchmark's compilations."""
        return 100.0 * self.benchmark / self.samples if self.samples else 0.0

    @property
    def worker_share(self) -> float:
        """Percent of the benchmark thread's samples in the benchmark's compilations."""
        return 100.0 * self.worker_benchmark / self.worker if self.worker else 0.0


def measure(folder: Path) -> list[ForkShare]:
    """Per fork of the recording in `folder`, in pid order: its share in the benchmark's compilations."""
    logs = [read_log(p) for p in sorted(folder.glob("jvmpid*.xml*"))]
    forks = sorted((log for log in logs if log.compiled(STUB_CLASS)), key=lambda log: log.pid)
    script = next(iter(sorted(folder.glob("perf-script.txt*"))), None)
    if script is None:
        raise SystemExit(f"{folder}: no perf-script.txt")
    samples = read_samples(script, {log.pid for log in forks})
    result = []
    for log in forks:
        found = owners(log, samples[log.pid])
        counts = Counter(found)
        by_id = {c.compile_id: c for c in log.compilations}
        ids = tuple(i for i, _ in counts.most_common() if i in by_id and log.holds(by_id[i], BENCHMARK))
        top = next(((i, n) for i, n in counts.most_common() if i in by_id), (-1, 0))
        hottest = (top[0], by_id[top[0]].method.split(" (")[0] if top[0] in by_id else "-", top[1])
        threads = Counter(tid for (_, _, tid), i in zip(samples[log.pid], found, strict=True) if i in ids)
        tid = threads.most_common(1)[0][0] if threads else -1
        worker = sum(1 for _, _, t in samples[log.pid] if t == tid)
        result.append(ForkShare(log.pid, len(samples[log.pid]), sum(counts[i] for i in ids), hottest, ids, worker,
                                threads[tid]))
    return result


def record(folder: Path, jar: Path, java: str) -> float:
    """Records the JMH run into `folder` (asmcfg record); returns the wall time in seconds."""
    command = [java, "-jar", str(jar), *JMH_ARGS]
    start = time.perf_counter()
    with open(folder.parent / f"{folder.name}.stdout.txt", "wb") as out, \
            open(folder.parent / f"{folder.name}.stderr.txt", "wb") as err:
        status = subprocess.run([sys.executable, "-m", "asmcfg", "record", "-o", str(folder), "--", *command],
                                stdout=out, stderr=err, check=False).returncode
    if status != 0:
        raise SystemExit(f"recording exited {status}")
    return time.perf_counter() - start


def build(work: Path) -> Path:
    """tests/data/jmh built with Maven in a scratch copy under `work` (offline first, as the cache allows)."""
    source = work / "jmh-project"
    shutil.rmtree(source, ignore_errors=True)
    shutil.copytree(PROJECT, source, ignore=shutil.ignore_patterns("target"))
    for offline in (["-o"], []):
        if subprocess.run(["mvn", "-q", *offline, "package"], cwd=source, check=False).returncode == 0:
            return source / "target" / "benchmarks.jar"
    raise SystemExit("mvn package failed in " + str(source))


Run = tuple[str, float, list[ForkShare]]
"""A recording: its folder's name, its wall time in seconds (0: not timed here), its forks."""


def report(runs: list[Run], out: IO[str]) -> None:
    """The table per recording and fork, then mean and spread of the fork shares."""
    out.write(f"{'recording':<10} {'fork pid':>8} {'samples':>7} {'in bench':>8} {'share':>6} {'thread':>6} "
              f"{'in bench':>8} {'share':>6}  benchmark's compile ids, hottest compilation (samples)\n")
    for name, seconds, forks in runs:
        for f in forks:
            out.write(f"{name:<10} {f.pid:>8} {f.samples:>7} {f.benchmark:>8} {f.share:>5.1f}% {f.worker:>6} "
                      f"{f.worker_benchmark:>8} {f.worker_share:>5.1f}%  {','.join(map(str, f.ids[:4]))}, "
                      f"id {f.hottest[0]} {f.hottest[1].rsplit('.', 1)[-1]} ({f.hottest[2]})\n")
        gap = f"fork 1 - fork 2: {forks[0].share - forks[1].share:+.1f} points" if len(forks) == 2 else ""
        took = f"; recorded in {seconds:.1f} s" if seconds else ""
        out.write(f"{name:<10} {len(forks)} forks; {gap}{took}\n")
    for label, key in (("process", "share"), ("benchmark thread", "worker_share")):
        shares = [getattr(f, key) for _, _, forks in runs for f in forks]
        if len(shares) > 1:
            gaps = [abs(getattr(f[0], key) - getattr(f[1], key)) for _, _, f in runs if len(f) == 2]
            out.write(f"share of the {label}: mean {statistics.mean(shares):.1f}%, stdev "
                      f"{statistics.stdev(shares):.1f}, range {min(shares):.1f}-{max(shares):.1f}% over "
                      f"{len(shares)} forks; largest |fork 1 - fork 2| in a recording {max(gaps, default=0):.1f}\n")


def asmcfg_hottest(folder: Path, fork: ForkShare) -> str:
    """asmcfg's reading of the fork: its hottest compilation (checked against the counter's), that compilation's
    hottest block and the innermost loop holding it."""
    out = folder.parent / f"{folder.name}-{fork.pid}.json"
    run = subprocess.run([sys.executable, "-m", "asmcfg", str(folder), "--pid", str(fork.pid), "--json", str(out),
                          "-q"], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        return "asmcfg: " + (run.stderr.strip().splitlines() or ["failed"])[-1]
    (method,) = json.loads(out.read_text())["methods"]
    agree = (method["compile_id"], method["profile"]["samples"]) == fork.hottest[::2]
    blocks = {b["id"]: b for b in method["blocks"]}
    block = max(blocks.values(), key=lambda b: sum(b["heat"].values()))
    loops = [lp for lp in method["loops"] if block["id"] in lp["blocks"]]
    loop = max(loops, key=lambda lp: lp["depth"]) if loops else None
    where = (f"in the loop at B{loop['header']} ({loop['role']}, unrolled x{loop['unroll']})" if loop
             else "in no loop")
    return (f"id {method['compile_id']} ({method['profile']['samples']} samples, "
            f"{'equal to' if agree else 'NOT'} the counter's), hottest block B{block['id']} {block['start']} "
            f"{sum(block['heat'].values()):.1f}% {where}")


def plain_run(jar: Path, java: str) -> float:
    """Wall time in seconds of the JMH run without recording."""
    start = time.perf_counter()
    subprocess.run([java, "-jar", str(jar), *JMH_ARGS], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jar", type=Path, help="benchmarks.jar already built from tests/data/jmh")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", type=Path, help="folder for the recordings (default: a new temporary one)")
    parser.add_argument("--java", default="java")
    parser.add_argument("--measure", type=Path, nargs="*", help="only measure these existing record folders")
    args = parser.parse_args()
    folders: list[Path] = args.measure or []
    runs = [(f.name, 0.0, measure(f)) for f in folders]
    if not args.measure:
        work = args.work or Path(tempfile.mkdtemp(prefix="record-jmh-"))
        work.mkdir(parents=True, exist_ok=True)
        jar = args.jar or build(work)
        plain = plain_run(jar, args.java)
        print(f"plain run (no recording): {plain:.1f} s; load average {os.getloadavg()[0]:.1f}")
        for n in range(1, args.runs + 1):
            folders.append(work / f"rec{n}")
            seconds = record(folders[-1], jar, args.java)
            runs.append((folders[-1].name, seconds, measure(folders[-1])))
        print(f"recordings in {work} (asmcfg record's summaries in recN.stderr.txt); load average "
              f"{os.getloadavg()[0]:.1f}; one recording / plain run: "
              + ", ".join(f"{seconds / plain:.2f}" for _, seconds, _ in runs))
    report(runs, sys.stdout)
    for folder, (_, _, forks) in zip(folders, runs, strict=True):
        for fork in forks:
            print(f"asmcfg {folder.name} --pid {fork.pid}: {asmcfg_hottest(folder, fork)}")


if __name__ == "__main__":
    main()
