"""asmcfg's indented JSON writer (`render/indented.py`) against `json.dumps(value, indent=1)`, as a ratio.

Runs `asmcfg ARGS` in this process with the writer wrapped to keep every value it is given, then writes those values
with each of the two, interleaved, the best of --runs CPU times each, checks that the texts are the same, and prints
both times, their ratio and what the standard library would add to the run's CPU time. Without ARGS, the cases the
writer's docstring quotes: `--list --json` of the 336 MB LogCompilation log and `--all --json` of two record
folders of the corpus.

Run: python benchmarks/bench_json.py [--runs N] [ARGS ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT.parent / "shared" / "corpus" / "record" / "runs"
CASES = (
    ["/tmp/plain/lc.xml", "--list", "--json", "-"],
    [str(RUNS / "jdk17-Recompile"), "--all", "--json", "-"],
    [str(RUNS / "jdk17-JavacLoop-c2print"), "--all", "--json", "-"],
)


def measure(args: list[str], runs: int) -> str:
    """One line: the run's CPU time, each writer's best time over the values the run wrote, and their ratio."""
    from asmcfg.launch import main
    from asmcfg.render import indented

    ours = indented.dumps
    values: list[Any] = []

    def kept(value: Any) -> str:
        values.append(value)
        return ours(value)

    indented.dumps = kept
    sys.argv, out = ["asmcfg", *args], sys.stdout
    start = time.process_time()
    try:
        with open(os.devnull, "w") as sys.stdout:
            main()
    except SystemExit:
        pass
    finally:
        sys.stdout, indented.dumps = out, ours
    run = time.process_time() - start

    def standard(value: Any) -> str:
        return json.dumps(value, indent=1)

    best = {ours: float("inf"), standard: float("inf")}
    for _ in range(runs):
        for writer in best:
            best[writer] = min(best[writer], _timed(writer, values))
    assert all(ours(v) == standard(v) for v in values), "the texts differ"
    size = sum(len(ours(v)) for v in values) / 1e6
    return (f"{' '.join(args)[-60:]:60} {size:6.1f} MB  run {run:6.2f} s  indented {best[ours]:6.3f} s  "
            f"json.dumps {best[standard]:6.3f} s  ratio {best[standard] / best[ours]:4.2f}  "
            f"+{100 * (best[standard] - best[ours]) / run:4.1f}% of the run")


def _timed(writer: Callable[[Any], str], values: list[Any]) -> float:
    start = time.process_time()
    for value in values:
        writer(value)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    for case in [options.args] if options.args else CASES:
        print(measure(case, options.runs), flush=True)


if __name__ == "__main__":
    main()
