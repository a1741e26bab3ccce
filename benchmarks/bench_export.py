"""`asmcfg LOG --all --html DIR` on the first 20 MB of the 274 MB javac PrintAssembly log: wall time as a ratio to
`asmcfg LOG --list` on the same slice, and the peak memory of the whole process tree (the workers and the Graphviz
they run too; goal <= 200 MB RSS whatever the count of compilations).

The slice is the first 20,000,000 bytes of the log (its last compilation cut short, as the issue's measure had
it), made once beside the plain log. The export draws with `--renderer auto`, as a run without the flag does
(system `dot` when installed, else graphviz-pure). Memory is sampled as in `bench_scale.py`: the summed RSS of
the process and its descendants, and their summed PSS (shared pages split between the processes sharing them).

    python benchmarks/bench_export.py [--large /work/large] [--runs 1] [--top N]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import best  # a script beside this one

SLICE_BYTES = 20_000_000
"""The issue's "first 20 MB"."""
GOAL_MB = 200


def slice_of(large: Path) -> Path:
    """The first SLICE_BYTES of the plain log, made once."""
    whole = large / "javac-printassembly-jdk17.txt"
    part = large / "javac-printassembly-jdk17-first20MB.txt"
    if not part.exists() or part.stat().st_size != SLICE_BYTES:
        if not whole.exists():
            raise SystemExit(f"{whole} is missing: decompress the corpus's javac-printassembly-jdk17.txt.xz there")
        temp = part.with_suffix(".tmp")
        with whole.open("rb") as source, temp.open("wb") as out:
            out.write(source.read(SLICE_BYTES))
        temp.replace(part)
    return part


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", type=Path, default=Path("/work/large"))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--top", type=int, help="also time --top N")
    options = parser.parse_args()
    part = slice_of(options.large)
    asmcfg = [sys.executable, "-m", "asmcfg", str(part)]
    listed = best([*asmcfg, "--list"], options.runs)
    print(f"--list: {listed.seconds:.1f} s (CPU {listed.cpu:.1f} s), {listed.tree_rss / 1e6:.0f} MB RSS")
    work = Path(tempfile.mkdtemp(prefix="bench-export-"))
    try:
        runs = [("--all --html DIR", [])] + ([(f"--all --html DIR --top {options.top}", ["--top", str(options.top)])]
                                             if options.top else [])
        for label, extra in runs:
            out = work / "export"
            shutil.rmtree(out, ignore_errors=True)
            result = best([*asmcfg, "--all", "--html", str(out), "-q", *extra], options.runs)
            pages = sum(1 for p in out.iterdir() if p.name != "index.html" and p.suffix == ".html")
            size = sum(p.stat().st_size for p in out.iterdir()) / 1e6
            verdict = "ok" if result.tree_rss / 1e6 <= GOAL_MB else "OVER"
            print(f"{label}: {result.seconds:.1f} s = {result.seconds / listed.seconds:.2f}x --list "
                  f"(CPU {result.cpu:.1f} s = {result.cpu / listed.cpu:.2f}x); {pages} pages, {size:.0f} MB; "
                  f"peak tree RSS {result.tree_rss / 1e6:.0f} MB, PSS {result.tree_pss / 1e6:.0f} MB "
                  f"(goal <= {GOAL_MB} MB RSS: {verdict})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
