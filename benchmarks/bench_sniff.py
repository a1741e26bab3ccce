"""The sniff's sample taken past PrintCompilation lines, as a ratio to the first 400 lines taken as before.

For real inputs of every dialect (tests/data) and the print files with a PrintCompilation head, times the sample
and the dialect choice on each path that sniffs: a line stream (`dialects.open_reader`'s head, `sample_of` against
`islice`), a binary stream (`sources.peek.peek` against the former peek, written out below as the reference) and a
mapped file (`run.opening._sample` against `passes.first_lines`), each the best of --runs, and prints the times and
each ratio (goal: 1.0x or so on the inputs without PrintCompilation lines).

Run: python benchmarks/bench_sniff.py [--runs N]
"""

from __future__ import annotations

import argparse
import gzip
import io
import mmap
import tempfile
import time
from collections.abc import Callable
from itertools import islice
from pathlib import Path

from asmcfg import dialects
from asmcfg.dialects.passes import first_lines
from asmcfg.run.opening import _HEAD, _sample
from asmcfg.sources.peek import peek
from asmcfg.sources.split import Peeked, Readable, chunks

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
INPUTS = (
    "hsdis/jdk17-Tensor4D-print-hsdis-att.txt.gz",
    "hsdis/jdk25-Switches-print-hsdis-intel.txt.gz",
    "nohsdis/jdk17-ExcSyncAlloc-print-nohsdis.txt",
    "logc/jdk17-Tensor4D.xml.gz",
    "checks/printcompilation-jdk17-nohsdis.txt.gz",
    "checks/printcompilation-jdk25-nohsdis.txt.gz",
)


def old_peek(stream: Readable, source: str = "", lines: int = 400) -> tuple[Peeked, list[str]]:
    """The peek this change replaced: its first 400 lines, in 4 MiB at most."""
    head = b""
    for block in chunks(stream, 1 << 16, source):
        head += block
        if head.count(b"\n") >= lines or len(head) >= 1 << 22:
            break
    sample = head.decode("utf-8", "replace").split("\n")[:lines]
    return Peeked(head, stream), [t.rstrip("\r") for t in sample]


Case = tuple[Callable[[], list[str]], Callable[[], list[str]]]


def _cases(texts: list[str], data: bytes, view: mmap.mmap) -> dict[str, Case]:
    """(the sample as taken before, as taken now) on each path."""
    return {
        "lines": (lambda: list(islice(iter(texts), dialects.SAMPLE_LINES)), lambda: dialects.sample_of(iter(texts))),
        "stream": (lambda: old_peek(io.BytesIO(data))[1], lambda: peek(io.BytesIO(data))[1]),
        "mapped": (lambda: [b.decode("utf-8", "replace").rstrip("\r")
                            for b in first_lines(view, dialects.SAMPLE_LINES, _HEAD)],
                   lambda: _sample(view)),
    }


def best(run: Callable[[], object], runs: int) -> float:
    """Best wall time of `run` in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    runs = parser.parse_args().runs
    print(f"{'input':48} {'path':8} {'before ms':>10} {'after ms':>10} {'ratio':>6}  dialect before -> after")
    for name in INPUTS:
        raw = (DATA / name).read_bytes()
        data = gzip.decompress(raw) if name.endswith(".gz") else raw
        texts = data.decode("utf-8", "replace").split("\n")
        with tempfile.NamedTemporaryFile() as handle:
            handle.write(data)
            handle.flush()
            with open(handle.name, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
                cases = _cases(texts, data, view)
                for path, (before, after) in cases.items():
                    old_t = best(lambda b=before: dialects.choose(b()), runs)  # type: ignore[misc]
                    new_t = best(lambda a=after: dialects.choose(a()), runs)  # type: ignore[misc]
                    chosen = (dialects.choose(before()).name, dialects.choose(after()).name)
                    print(f"{name:48} {path:8} {old_t * 1e3:10.3f} {new_t * 1e3:10.3f} {new_t / old_t:6.2f}x  "
                          f"{chosen[0]} -> {chosen[1]}")


if __name__ == "__main__":
    main()
