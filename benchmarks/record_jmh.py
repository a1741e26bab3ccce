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

When asmcfg can read the folder, it also asks `asmcfg DIR --pid P --json` for each fork and prints the hottest
compilation's hottest block and whether that block lies in a loop.

Run: python benchmarks/record_jmh.py [--jar benchmarks.jar] [--runs 3] [--work DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
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
from typing import IO, Any

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
    with open(folder.parent / f"{folder.name}.stdout.txt", "wb") as out:
        if not has_module("asmcfg.cli.record"):
            status = emulate(folder, command, out)
        else:
            status = subprocess.run([sys.executable, "-m", "asmcfg", "record", "-o", str(folder), "--", *command],
                                    stdout=out, check=False).returncode
    if status != 0:
        raise SystemExit(f"recording exited {status}")
    return time.perf_counter() - start


def emulate(folder: Path, command: list[str], out: IO[bytes]) -> int:
    """What `asmcfg record` does, by hand: the capture flags through JAVA_TOOL_OPTIONS, the run under perf."""
    folder.mkdir(parents=True)
    (folder / "c2print.json").write_text('[ { match: "*.*", c2: { PrintAssembly: true } } ]\n')
    flags = (f"-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile={folder}/jvm%p.xml "
             "-XX:-DisplayVMOutput -XX:+DebugNonSafepoints -XX:+DumpPerfMapAtExit -Xlog:os=off "
             f"-XX:CompilerDirectivesFile={folder}/c2print.json")
    perf = ["perf", "record", "-e", "cpu-clock", "-F", "999", "-k", "CLOCK_REALTIME", "-o", str(folder / "perf.data")]
    env = {**os.environ, "JAVA_TOOL_OPTIONS": flags}
    with open(folder / "perf-record.log", "wb") as err:
        status = subprocess.run([*perf, "--", *command], env=env, stdout=out, stderr=err, check=False).returncode
    script = ["perf", "script", "-i", str(folder / "perf.data"), "-F", "comm,pid,tid,time,period,event,ip,sym,dso",
              "--ns"]
    with open(folder / "perf-script.txt", "wb") as text:
        subprocess.run(script, stdout=text, stderr=subprocess.DEVNULL, check=True)
    for log in folder.glob("jvmpid*.xml"):
        perf_map = Path(f"/tmp/perf-{log.stem.removeprefix('jvmpid')}.map")
        if perf_map.exists():
            shutil.move(perf_map, folder / perf_map.name)
    return status


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


def asmcfg_hottest(folder: Path, pid: int) -> str:
    """asmcfg's hottest compilation of the fork and its hottest block, with whether that block is in a loop."""
    out = folder.parent / f"{folder.name}-{pid}.json"
    run = subprocess.run([sys.executable, "-m", "asmcfg", str(folder), "--pid", str(pid), "--json", str(out), "-q"],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        return "asmcfg: " + (run.stderr.strip().splitlines() or ["failed"])[-1]
    doc: Any = json.loads(out.read_text())
    method = doc["methods"][0] if isinstance(doc, dict) and "methods" in doc else doc
    heat = {b["id"]: sum(b.get("heat", {}).values()) for b in method["blocks"]}
    block = max(heat, key=lambda b: heat[b])
    loops = [loop["header"] for loop in method["loops"] if block in loop["blocks"]]
    where = f"in the loop at B{min(loops)}" if loops else "in no loop"
    return f"id {method['compile_id']} {method['name']}: hottest block B{block} {heat[block]:.1f}% {where}"


def has_module(name: str) -> bool:
    """Whether this asmcfg has the module (the record command, the record folder reader)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


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
        print(f"plain run (no recording): {plain_run(jar, args.java):.1f} s; load average {os.getloadavg()[0]:.1f}")
        for n in range(1, args.runs + 1):
            folders.append(work / f"rec{n}")
            seconds = record(folders[-1], jar, args.java)
            runs.append((folders[-1].name, seconds, measure(folders[-1])))
        print(f"recordings in {work}; load average {os.getloadavg()[0]:.1f}")
    report(runs, sys.stdout)
    if has_module("asmcfg.record.folder"):
        for folder, (_, _, forks) in zip(folders, runs, strict=True):
            for fork in forks:
                print(f"asmcfg {folder.name} --pid {fork.pid}: {asmcfg_hottest(folder, fork.pid)}")


if __name__ == "__main__":
    main()
