"""`asmcfg whatif`'s speed and fidelity on JDK 25: two programs recorded (`--no-perf`), tests/data/java/WhatIf.java
(a few small compilations) and the corpus's JavacLoop (javac compiling the corpus's three sources again and again:
over a hundred C2 compilations, some large); then

- fidelity: the baseline replay of every recorded C2 compilation that has replay data, compared with the recorded
  compilation as `asmcfg whatif` compares them: how many match, and how the others differ;
- seconds per replay (those baselines; median and largest), as a ratio to `java -version` measured here;
- the sweep's wall time (`asmcfg whatif --sweep`, every core) on a small compilation (WhatIf::add) and on the
  largest C2 compilation of the javac run, as a ratio to one replay of it.

Run: python benchmarks/bench_whatif.py [--java JDK25/bin/java] [--rounds N] [--work DIR]
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JAVA = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
SOURCES = Path("/work/shared/corpus/record/src")


def record(work: Path, name: str, java: str, classes: Path, *args: str) -> Path:
    """`asmcfg record --no-perf` of one program; its folder."""
    folder = work / f"rec-{name}"
    subprocess.run([sys.executable, "-m", "asmcfg", "record", "--no-perf", "-o", str(folder), "--", java, "-cp",
                    str(classes), *args], cwd=work, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return folder


def fidelity(folder: Path) -> tuple[list[float], Counter[str], int, int, list[str]]:
    """Each kept compilation's baseline replayed and compared: seconds, kinds of difference, matched, total, and
    the compile ids that differ or fail."""
    from asmcfg.run.pipeline import Selector
    from asmcfg.whatif import fidelity as judge, source
    from asmcfg.whatif.mode import analysed
    from asmcfg.whatif.runner import Replay, run

    manifest = json.loads((folder / "record.json").read_text())
    ids = [n for jvm in manifest["jvms"] if jvm["replay"] for n in jvm["replay"]["compile_ids"]]

    def one(compile_id: int) -> tuple[float, list[str] | str]:
        from asmcfg.compare import items
        from asmcfg.compare.match import diff

        work = Path(tempfile.mkdtemp(prefix="bench-whatif-"))
        try:
            found = source.of_folder(str(folder), Selector(compile_id=compile_id), None, None, None)
            assert found.recorded is not None
            done = run(Replay("baseline", found.java, found.text, found.task, found.class_path, found.module_path,
                              ()), work, "baseline", 120)
            baseline = analysed(done)
            return done.seconds, judge.differences(diff(items.side(found.recorded), items.side(baseline)))
        except Exception as error:  # a replay that fails is counted as not matching, with its reason
            return 0.0, f"failed: {error}"
        finally:
            shutil.rmtree(work, ignore_errors=True)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        results = list(pool.map(one, ids))
    seconds = [s for s, _ in results if s]
    kinds: Counter[str] = Counter()
    differing = []
    for compile_id, (_, found) in zip(ids, results, strict=True):
        if isinstance(found, str):
            kinds[found[:60]] += 1
            differing.append(f"{compile_id}: {found[:100]}")
        elif found:
            kinds.update({phrase.split(" ")[0] for phrase in found})
            differing.append(f"{compile_id}: {'; '.join(found)[:160]}")
    matched = sum(1 for _, found in results if found == [])
    return seconds, kinds, matched, len(ids), differing


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def largest_c2(folder: Path) -> int:
    """The compile id of the largest C2 compilation with replay data."""
    listing = subprocess.run([sys.executable, "-m", "asmcfg", str(folder), "--list", "--json", "-"],
                             capture_output=True, text=True, check=True).stdout
    kept = {n for jvm in json.loads((folder / "record.json").read_text())["jvms"] if jvm["replay"]
            for n in jvm["replay"]["compile_ids"]}
    rows = [row for row in json.loads(listing)["compilations"]
            if row["compiler"] == "c2" and row["compile_id"] in kept]
    return max(rows, key=lambda row: row["main_code_bytes"] or 0)["compile_id"]  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--java", default=JAVA)
    parser.add_argument("--rounds", type=int, default=6, help="JavacLoop's rounds")
    parser.add_argument("--work", help="keep the recordings in this folder")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-whatif-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        classes = work / "classes"
        javac = str(Path(args.java).parent / "javac")
        subprocess.run([javac, "--release", "17", "-d", str(classes), str(ROOT / "tests/data/java/WhatIf.java"),
                        str(SOURCES / "JavacLoop.java")], check=True)
        folders = {"WhatIf": record(work, "whatif", args.java, classes, "WhatIf"),
                   "JavacLoop": record(work, "javac", args.java, classes, "JavacLoop", f"rounds:{args.rounds}",
                                       str(SOURCES), str(work / "javac-out"))}
        startup = statistics.median(wall([args.java, "-version"]) for _ in range(3))
        print(f"java -version: {startup:.2f} s (the reference)")
        for name, folder in folders.items():
            seconds, kinds, matched, total, differing = fidelity(folder)
            print(f"{name}: baseline matches the recording for {matched} of {total} compilations "
                  f"({100.0 * matched / max(total, 1):.0f}%); differences by kind: {dict(kinds)}")
            for line in differing[:20]:
                print(f"  {line}")
            if seconds:
                print(f"{name}: seconds per replay: median {statistics.median(seconds):.2f} "
                      f"({statistics.median(seconds) / startup:.1f}x java -version), largest {max(seconds):.2f}")
        small = ["--method", "WhatIf::add"]
        large = ["--compile-id", str(largest_c2(folders["JavacLoop"]))]
        for label, folder, chosen in (("small (WhatIf::add)", folders["WhatIf"], small),
                                      (f"large (javac, {large[1]})", folders["JavacLoop"], large)):
            command = [sys.executable, "-m", "asmcfg", "whatif", str(folder), *chosen]
            one = wall([*command, "--", "-XX:-UseSuperWord"])
            swept = wall([*command, "--sweep", "-q"])
            print(f"sweep of {label}: {swept:.1f} s on {os.cpu_count()} cores; one what-if (two replays) "
                  f"{one:.1f} s; sweep / what-if {swept / one:.1f}x")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
