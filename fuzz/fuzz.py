"""The long fuzz run (not in CI): mutate real dumps of every dialect and count what escapes.

    python fuzz/fuzz.py [--cases 100000] [--workers 2] [--seed 1] [--time-limit 10] [--out DIR] [--corpus DIR]
    python fuzz/fuzz.py --replay N          # run case N alone, with its traceback
    python fuzz/fuzz.py --first N ...        # cases N to --cases of the same run (one cut short goes on)

Every 500 cases a progress line gives the counts so far, the slowest case and the workers' peak memory, so a run
cut short and gone on with `--first` still has its figures.

Seeds are methods cut from every dump under tests/data and the read-only corpus, grouped by the dialect the
sniffer picks (fuzz/cases.py). Each case applies 1-6 mutations (fuzz/mutations.py: corruptions, and the
crafted ones of fuzz/hostile.py: lines up to 1 MiB, numbers of thousands of digits, bad character references,
control and bidi characters in names). A single case goes through the library path with its properties
(fuzz/properties.py), the terminal text, the `--jsonl` path, the `--html` page and `serve` (fuzz/paths.py,
page.py, servepath.py); a diff case through `asmcfg diff` (fuzz/diffpath.py).

Each case runs under a time limit (fuzz/workers.py); one over it is a `slow` violation. An escape is any
exception but an AsmcfgError; a violation is a failed property. Each distinct one is saved once under --out
with the case number, so `--replay N` reproduces it. The last line sums the run up: cases, escapes,
violations by kind, the slowest case and the workers' peak memory.
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import resource
import sys
import tempfile
import time
import traceback
from pathlib import Path

import cases
import diffpath
import paths
import properties
import workers
from workers import CaseTimeout, Tally

from asmcfg import dialects
from asmcfg.errors import AsmcfgError
from asmcfg.run.compiled import build_name

ROOT = Path(__file__).resolve().parent.parent
CORPORA = (ROOT / "tests" / "data", Path("/work/shared/corpus"))
CHUNK = 25
_SEEDS: dict[str, list[bytes]] = {}
_SETTINGS: dict[str, object] = {}


def case_of(number: int) -> cases.Case:
    """Case `number` of this run."""
    return cases.make_case(number, _SEEDS, int(str(_SETTINGS["seed"])))


def run_one(number: int, folder: Path, tally: Tally) -> None:
    """Run case `number`, counting its outcome into `tally` and saving the first case of each finding."""
    case = case_of(number)
    files = case.files(folder)
    tally.cases += 1
    tally.paths[f"{case.dialect} {case.kind}"] += 1
    try:
        try:
            if case.other is None:
                outcome = paths.every_path(files[0], case.forced, case.facts, case.graphviz)
                tally.methods += outcome.methods
                tally.empty_methods += outcome.empty
            else:
                diffpath.check(str(files[0]), str(files[1]), case.forced,
                               paths.graphviz if case.graphviz else paths.stub_svg)
            tally.outcomes["ok"] += 1
        except AsmcfgError as error:
            paths.error_line(error, str(files[0]))
            tally.outcomes["asmcfg_error"] += 1
    except properties.Violation as exc:
        _found(tally, _kind(str(exc)), exc, case)
    except CaseTimeout as exc:
        _found(tally, "slow", exc, case)
    except MemoryError as exc:
        _found(tally, "memory", exc, case)
    except Exception as exc:  # an escape: exactly what this run is looking for
        _found(tally, "escape", exc, case)


def _kind(message: str) -> str:
    """A violation's kind, from its message's first word."""
    first = message.split(":", 1)[0].split(" ", 1)[0].lower()
    return first if first in ("terminal", "page", "jsonl", "diff", "graphviz") else "property"


def _signature(kind: str, exc: BaseException) -> str:
    # a slow case: where it was stopped, in the fuzzer too; anything else: where asmcfg raised
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if (kind == "slow" and f.name != "_timeout") or "/asmcfg/" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    message = ": ".join(re.sub(r"(?<!U\+)\d{4,}", "N", str(exc)).split(": ")[:2])
    return f"{kind} {type(exc).__name__} at {where}: {message[:100]}"


def _found(tally: Tally, kind: str, exc: BaseException, case: cases.Case) -> None:
    key = _signature(kind, exc)
    tally.found(kind, key, case.number, lambda: cases.save(case, kind, key, Path(str(_SETTINGS["out"]))))


def lost(number: int, kind: str, seconds: float, tally: Tally) -> None:
    """Count case `number`, whose worker was killed past the hard limit or died, and save it."""
    case = case_of(number)
    tally.cases += 1
    tally.paths[f"{case.dialect} {case.kind}"] += 1
    tally.slowest = max(tally.slowest, (seconds, number))
    key = f"{kind}: worker {'killed' if kind == 'slow' else 'died'} in a {case.dialect} {case.kind} case " \
          "(stuck where no signal is handled: a regular expression or C code)"
    name = kind.split(" ", 1)[0]
    tally.found(name, key, number, lambda: cases.save(case, name, key, Path(str(_SETTINGS["out"]))))


def report(tally: Tally, seconds: float) -> None:
    """Print the counts, every distinct finding, and the summary line."""
    print(f"build: {build_name()}; cases: {tally.cases} in {seconds:.0f} s")
    print(f"outcomes: {dict(sorted(tally.outcomes.items()))}")
    print(f"cases per seed dialect and kind: {dict(sorted(tally.paths.items()))}")
    print(f"seeds per dialect: { {d: len(s) for d, s in sorted(_SEEDS.items())} }; dialects: {dialects.DIALECTS}")
    print(f"methods checked: {tally.methods}; of them with no instruction at all: {tally.empty_methods}")
    for key, (count, first, saved) in sorted(tally.findings.items(), key=lambda kv: -kv[1][0]):
        print(f"  {count:6d} x {key}\n           first: case {first}, saved as {saved}")
    peak = max(tally.peak_rss.values(), default=0)
    jump, jump_case = tally.rss_jump
    print(f"peak RSS per worker (MiB): {sorted(round(k / 1024) for k in tally.peak_rss.values())}; "
          f"the case that raised a worker's peak most: {jump_case} (+{jump / 1024:.0f} MiB)")
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(tally.kinds.items()) if k != "escape") or "none"
    print(f"SUMMARY cases {tally.cases}; escapes {tally.kinds['escape']}; violations "
          f"{tally.outcomes['violation']} ({kinds}); slowest case {tally.slowest[0]:.2f} s (case {tally.slowest[1]});"
          f" peak RSS {peak / 1024:.0f} MiB")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, metavar="N",
                        help="start at case N: a run cut short goes on with the same cases, seed and numbers")
    parser.add_argument("--time-limit", type=float, default=20.0, metavar="S",
                        help="seconds a case may take (a case stuck in C code is killed after 2*S+5)")
    parser.add_argument("--memory-limit", type=int, default=4096, metavar="MIB",
                        help="address space per worker (0: none); a MemoryError is a violation")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "asmcfg-fuzz")
    parser.add_argument("--corpus", type=Path, action="append", help="folders of dumps (default: tests/data and "
                        "/work/shared/corpus)")
    parser.add_argument("--replay", type=int, metavar="N", help="run case N alone and show its traceback")
    return parser.parse_args()


def replay(number: int, out: Path, limit: float) -> None:
    """Write case `number` under OUT and run it in this process, its traceback shown; an AsmcfgError is fine."""
    case = case_of(number)
    files = case.files(out, "replay")
    print(f"case {number}: {case.kind}, {case.dialect} seed, forced={case.forced}, graphviz={case.graphviz}, "
          f"{[f'{p} ({p.stat().st_size} bytes)' for p in files]}")
    started = time.monotonic()
    try:
        workers.timed(lambda *_: _replayed(case, files), number, out, Tally(), limit)
    except AsmcfgError as exc:
        paths.error_line(exc, str(files[0]))
        print(f"AsmcfgError (an allowed answer): {exc}")
    finally:
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"{time.monotonic() - started:.2f} s; peak RSS {rss / 1024:.0f} MiB")


def _replayed(case: cases.Case, files: list[Path]) -> None:
    if case.other is None:
        print(paths.every_path(files[0], case.forced, case.facts, case.graphviz))
    else:
        diffpath.check(str(files[0]), str(files[1]), case.forced, paths.graphviz if case.graphviz else paths.stub_svg)
        print("diff: every property holds")


def main() -> int:
    """Build the seeds, run the cases on every worker, print the tally; 1 when anything escaped or failed."""
    args = _arguments()
    args.out.mkdir(parents=True, exist_ok=True)
    _SEEDS.update(cases.cached_seeds(args.corpus or list(CORPORA), args.out))
    _SETTINGS.update(seed=args.seed, out=str(args.out))
    if args.replay is not None:
        workers.install_timeout()
        replay(args.replay, args.out, args.time_limit)
        return 0
    started = time.monotonic()
    chunks = [(n, min(n + CHUNK, args.cases)) for n in range(args.first, args.cases, CHUNK)]

    def progress(tally: Tally) -> None:
        if tally.cases // 500 != (tally.cases - CHUNK) // 500:
            peak = max(tally.peak_rss.values(), default=0)
            print(f"... {tally.cases} cases, {tally.outcomes['escape']} escapes, {tally.outcomes['violation']} "
                  f"violations; slowest {tally.slowest[0]:.2f} s (case {tally.slowest[1]}); peak RSS "
                  f"{peak / 1024:.0f} MiB", file=sys.stderr, flush=True)

    tally = workers.run_all(chunks, args.workers, run_one, lost, args.time_limit, args.memory_limit, progress)
    report(tally, time.monotonic() - started)
    return 1 if tally.outcomes["escape"] or tally.outcomes["violation"] else 0


if __name__ == "__main__":
    sys.exit(main())
