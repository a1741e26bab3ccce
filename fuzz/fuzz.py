"""The long fuzz run (not in CI): mutate real dumps of every dialect and count what escapes.

    python fuzz/fuzz.py [--cases 100000] [--workers 2] [--seed 1] [--out DIR] [--corpus DIR ...]
    python fuzz/fuzz.py --replay N          # run case N alone, with its traceback

Seeds are methods cut from every dump under tests/data and the read-only corpus, grouped by the dialect the
sniffer picks; cases go round the dialects in turn. Each case applies 1-6 mutations of fuzz/mutations.py,
reads the result through the library path (the sniffed dialect, or the seed's one forced), checks the graph,
the tags, the DOT and the JSON, then also renders the stderr summary and the --list row (rich), has Graphviz
read the DOT of one case in GRAPHVIZ_EVERY, and when nothing was read asks diagnose what the input looks
like. Case N is always the same bytes for a given --seed.

An escape is any exception but an AsmcfgError; a violation is a failed property. Each distinct one is saved
once under --out with the case number, so `--replay N` reproduces it.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import multiprocessing
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import mutations
import properties
from rich.console import Console

from asmcfg import dialects
from asmcfg.errors import AsmcfgError
from asmcfg.model import Analysis
from asmcfg.render import dot, summary
from asmcfg.render.listing import write_listing
from asmcfg.render.svg import find_renderer
from asmcfg.run.pipeline import no_methods_error
from asmcfg.sources import diagnose

ROOT = Path(__file__).resolve().parent.parent
CORPORA = (ROOT / "tests" / "data", Path("/work/shared/corpus"))
MAX_SEED_BYTES = 60_000
SEEDS_PER_DIALECT = 80
CHUNK = 250
GRAPHVIZ_EVERY = 200
"""One case in this many also has Graphviz read its DOT (a process start each: too slow for every case)."""


@dataclass(slots=True)
class Tally:
    """Counts of one batch of cases, merged across workers."""

    cases: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    """`ok`, `asmcfg_error`, `violation`, `escape` per case."""
    dialects: Counter[str] = field(default_factory=Counter)
    methods: int = 0
    empty_methods: int = 0
    findings: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    """Signature -> (count, first case number, saved file)."""

    def merge(self, other: Tally) -> None:
        """Add `other` into this tally."""
        self.cases += other.cases
        self.outcomes.update(other.outcomes)
        self.dialects.update(other.dialects)
        self.methods += other.methods
        self.empty_methods += other.empty_methods
        for key, (count, first, saved) in other.findings.items():
            mine = self.findings.get(key, (0, first, saved))
            earliest = min((mine[1], mine[2]), (first, saved))
            self.findings[key] = (mine[0] + count, *earliest)


def build_seeds(roots: list[Path], folder: Path) -> dict[str, list[bytes]]:
    """Up to SEEDS_PER_DIALECT distinct seeds per dialect, spread over sizes up to MAX_SEED_BYTES."""
    found: dict[str, set[bytes]] = {}
    for path in mutations.corpus_files(*roots):
        data = mutations.read_bytes(path)
        if len(data) > 40 * MAX_SEED_BYTES:
            continue
        windows = mutations.windows(data, folder)
        found.setdefault(mutations.dialect_of(data), set()).update(w for w in windows if len(w) <= MAX_SEED_BYTES)
    seeds: dict[str, list[bytes]] = {}
    for dialect, group in found.items():
        ordered = sorted(group, key=lambda w: (len(w), w))
        step = max(1, len(ordered) // SEEDS_PER_DIALECT)
        seeds[dialect] = ordered[::step][:SEEDS_PER_DIALECT]
    return seeds


_SEEDS: dict[str, list[bytes]] = {}
_SETTINGS: dict[str, object] = {}


def case_bytes(number: int) -> tuple[str, bytes, str | None]:
    """(seed dialect, mutated bytes, dialect to force or None) of case `number`."""
    rng = random.Random(f"{_SETTINGS['seed']}:{number}")
    names = sorted(_SEEDS)
    dialect = names[number % len(names)]
    data = mutations.mutate(rng.choice(_SEEDS[dialect]), rng, rng.randint(1, 6))
    return dialect, data, dialect if rng.random() < 0.3 else None


def _cli_renderers(result: Analysis) -> None:
    """The stderr summary and the --list row, rendered with rich into memory."""
    console = Console(file=io.StringIO(), width=160, no_color=True, highlight=False)
    summary.write_summary(result, console)
    write_listing([result.cfg.method], console)


def _graphviz_too(result: Analysis) -> None:
    """As _cli_renderers, and Graphviz (graphviz-pure) must read the DOT to the nodes asmcfg wrote."""
    _cli_renderers(result)
    text = io.StringIO()
    dot.write_dot(result, text)
    written = {n for n in re.findall(r"^ +(\w+) \[", text.getvalue(), flags=re.M) if n not in ("graph", "node", "edge")}
    done = subprocess.run([*find_renderer("graphviz-pure"), "-Tcanon"], input=text.getvalue().encode(),
                          capture_output=True, timeout=300, check=False)
    properties.require(done.returncode == 0, f"graphviz-pure cannot read the DOT: {done.stderr[-200:]!r}")
    canon = done.stdout.decode()
    read = {n for n in re.findall(r"^\t+(\w+)\t+\[", canon, flags=re.M) if n not in ("graph", "node", "edge")}
    properties.require(read == written, "Graphviz reads other nodes than asmcfg wrote")


def _signature(kind: str, exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/asmcfg/" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{kind} {type(exc).__name__} at {where}: {str(exc)[:90]}"


def run_one(number: int, folder: Path, tally: Tally) -> None:
    """Run case `number`, counting its outcome into `tally` and saving the first case of each finding."""
    dialect, data, forced = case_bytes(number)
    path = folder / "case.txt"
    path.write_bytes(data)
    tally.cases += 1
    tally.dialects[dialect] += 1
    try:
        also = _graphviz_too if number % GRAPHVIZ_EVERY == 0 else _cli_renderers
        outcome = properties.run_case(str(path), forced, also)
        tally.methods += outcome.methods
        tally.empty_methods += outcome.empty
        if outcome.methods == 0:
            no_methods_error(str(path))
        diagnose.explain(data.decode("utf-8", "replace").splitlines()[: diagnose.SAMPLE_LINES])
        tally.outcomes["ok"] += 1
    except AsmcfgError:
        tally.outcomes["asmcfg_error"] += 1
    except properties.Violation as exc:
        _found(tally, "violation", exc, number, data)
    except Exception as exc:  # an escape: exactly what this run is looking for
        _found(tally, "escape", exc, number, data)


def _found(tally: Tally, kind: str, exc: BaseException, number: int, data: bytes) -> None:
    tally.outcomes[kind] += 1
    key = _signature(kind, exc)
    old = tally.findings.get(key)
    if old is None:
        name = f"{kind}-{hashlib.sha1(key.encode()).hexdigest()[:10]}"
        out = Path(str(_SETTINGS["out"])) / f"{name}-case{number}.txt"
        if not any(out.parent.glob(f"{name}-case*.txt")):  # another worker may have saved one already
            out.write_bytes(data)
        tally.findings[key] = (1, number, str(out))
    else:
        tally.findings[key] = (old[0] + 1, old[1], old[2])


def run_chunk(numbers: range) -> Tally:
    """One worker's share: the cases in `numbers`."""
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="asmcfg-fuzz-") as folder:
        for number in numbers:
            run_one(number, Path(folder), tally)
    return tally


def _init(seeds: dict[str, list[bytes]], settings: dict[str, object]) -> None:
    _SEEDS.update(seeds)
    _SETTINGS.update(settings)


def report(tally: Tally, seconds: float, seeds: dict[str, list[bytes]]) -> None:
    """Print the counts and every distinct finding."""
    escapes = tally.outcomes["escape"]
    print(f"cases: {tally.cases} in {seconds:.0f} s; escapes: {escapes}; violations: {tally.outcomes['violation']}")
    print(f"outcomes: {dict(sorted(tally.outcomes.items()))}")
    print(f"cases per seed dialect: {dict(sorted(tally.dialects.items()))}")
    print(f"seeds per dialect: { {d: len(s) for d, s in sorted(seeds.items())} }; dialects: {dialects.DIALECTS}")
    print(f"methods checked: {tally.methods}; of them with no instruction at all: {tally.empty_methods}")
    for key, (count, first, saved) in sorted(tally.findings.items(), key=lambda kv: -kv[1][0]):
        print(f"  {count:6d} x {key}\n           first: case {first}, saved as {saved}")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "asmcfg-fuzz")
    parser.add_argument("--corpus", type=Path, action="append", help="folders of dumps (default: tests/data and "
                        "/work/shared/corpus)")
    parser.add_argument("--replay", type=int, metavar="N", help="run case N alone and show its traceback")
    return parser.parse_args()


def replay(number: int, out: Path) -> None:
    """Write case `number` to OUT/replay.txt and run it without catching anything but AsmcfgError."""
    dialect, data, forced = case_bytes(number)
    path = out / "replay.txt"
    path.write_bytes(data)
    print(f"case {number}: {dialect} seed, forced={forced}, {len(data)} bytes in {path}")
    try:
        print(properties.run_case(str(path), forced, _cli_renderers))
    except AsmcfgError as exc:
        print(f"AsmcfgError (an allowed answer): {exc}")


def main() -> int:
    """Build the seeds, run the cases on every worker, print the tally; 1 when anything escaped."""
    args = _arguments()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        seeds = build_seeds(args.corpus or list(CORPORA), Path(folder))
    settings: dict[str, object] = {"seed": args.seed, "out": str(args.out)}
    _init(seeds, settings)
    if args.replay is not None:
        replay(args.replay, args.out)
        return 0
    started = time.monotonic()
    tally = Tally()
    chunks = [range(n, min(n + CHUNK, args.cases)) for n in range(0, args.cases, CHUNK)]
    with multiprocessing.get_context("fork").Pool(args.workers, _init, (seeds, settings)) as pool:
        for done, part in enumerate(pool.imap_unordered(run_chunk, chunks), 1):
            tally.merge(part)
            if done % 20 == 0:
                print(f"... {tally.cases} cases, {tally.outcomes['escape']} escapes", file=sys.stderr, flush=True)
    report(tally, time.monotonic() - started, seeds)
    return 1 if tally.outcomes["escape"] or tally.outcomes["violation"] else 0


if __name__ == "__main__":
    sys.exit(main())
