"""Opening one compilation of a whole-run log, as a ratio to `--list` of the same file (goal <= 2x).

For the 274 MB javac PrintAssembly log and the 336 MB javac LogCompilation log (plain copies, unpacked from the
corpus into --work when absent), runs `asmcfg FILE --compile-id N --json OUT -q` for the first, a middle and the
last compilation whose code the log holds (and the default choice, no selector), each the best of --runs, and
prints each time, its ratio to `asmcfg FILE --list` and the runs' peak RSS. Each open is timed twice: the first of
a file (its cache emptied before the run) and the next one (the newline counts the first kept in the cache). The
runs of each case are interleaved, `--list`, first, next, --runs times, so that each ratio compares the best of
runs made in the same minutes. Then the compressed corpus file itself: the first open (it is decompressed into the
cache), the next, and the whole read every run made before the cache (`opening.COMPRESSED_BYTES` raised past the
file), once.

The C module `asmcfg.dialects._lines` (the newline count and the heat look's search, built by `pip install .` where
a C compiler is at hand) is used when it is built; `--python` measures every run without it, as a build made
without a compiler runs.

Run: python benchmarks/bench_open.py [--work DIR] [--runs N] [--python]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path("/work/shared/corpus/large")
CACHE = Path(tempfile.mkdtemp(prefix="asmcfg-bench-cache-"))
_UNSET = ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED")
ENV = {k: v for k, v in os.environ.items() if k not in _UNSET} | {"ASMCFG_CACHE_DIR": str(CACHE)}
"""The runs' environment: modules compiled once (a warm-up run writes them), as an installed asmcfg has them;
output buffered, as Python buffers it unless told not to; a cache of their own."""
WHOLE = ("import sys; from asmcfg.run import opening; opening.COMPRESSED_BYTES = 1 << 62; "
         "from asmcfg.launch import main; sys.argv[0] = 'asmcfg'; main()")
"""A run that reads a compressed input whole, as every run did before the cache."""
PYTHON = "import sys; sys.modules['asmcfg.dialects._lines'] = None; "
"""Put before a run's code: the C module cannot be imported, as in a build made without a C compiler."""
RUN = "import sys; from asmcfg.launch import main; sys.argv[0] = 'asmcfg'; main()"
"""A run, as `python -m asmcfg` makes it."""
NAMES = ("javac-printassembly-jdk17.txt", "javac-logcompilation-jdk17.xml")


def plain(name: str, work: Path) -> Path:
    """The plain copy of a corpus log in `work`, unpacked once (written aside, then renamed)."""
    target = work / name
    if not target.exists():
        work.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(target.suffix + f".{os.getpid()}")
        with open(partial, "wb") as out:
            subprocess.run(["xz", "-dc", str(CORPUS / f"{name}.xz")], stdout=out, check=True)
        partial.rename(target)
    return target


def timed(args: list[str], runs: int, cold: bool = False, whole: bool = False) -> tuple[float, int]:
    """Best wall time of `asmcfg ARGS` over `runs` runs (each with an empty cache when `cold`; reading a compressed
    input whole when `whole`; without the C module when `PYTHON_ONLY` holds), and the largest peak RSS (bytes) of
    those runs."""
    best, peak = float("inf"), 0
    for _ in range(runs):
        if cold:
            shutil.rmtree(CACHE, ignore_errors=True)
        start = time.perf_counter()
        code = (PYTHON if PYTHON_ONLY else "") + (WHOLE if whole else RUN)
        command = [sys.executable, "-c", code, *args]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=ENV)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        best = min(best, time.perf_counter() - start)
        peak = max(peak, usage.ru_maxrss * 1024)
        if process.returncode != 0:
            raise SystemExit(f"asmcfg {' '.join(args)} exited {process.returncode}")
    return best, peak


PYTHON_ONLY = False
"""True (`--python`) when every run is made without the C module."""


def printed_ids(path: Path) -> list[int]:
    """Compile ids of the compilations whose code the log holds, in index order."""
    from asmcfg.dialects.index import index_file

    return [r.compile_id for r in index_file(str(path)) if r.printed and r.compile_id is not None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/work/large"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--python", action="store_true", help="every run without the C module")
    options = parser.parse_args()
    global PYTHON_ONLY
    PYTHON_ONLY = options.python
    from asmcfg.dialects import passes

    built = passes._COUNT is not None and not options.python
    print(f"the C module asmcfg.dialects._lines: {'used' if built else 'not used (Python fallback)'}")
    out = options.work / "bench-open.json"
    timed(["--version"], 1)  # the warm-up: every module compiled before the first timed run
    for name in NAMES:
        path = plain(name, options.work)
        ids = printed_ids(path)
        chosen = {"first": ids[0], "middle": ids[len(ids) // 2], "last": ids[-1]}
        cases = [(f"{k} (id {v})", ["--compile-id", str(v)]) for k, v in chosen.items()] + [("default", [])]
        print(f"{name}:")
        for label, selector in cases:
            args = [str(path), *selector, "--json", str(out), "-q"]
            best, peaks = [float("inf")] * 3, [0] * 3
            runs = (([str(path), "--list"], False), (args, True), (args, False))  # `--list`, a first open, a next
            for _ in range(options.runs):  # interleaved, so that each ratio compares runs of the same minutes
                for k, (each, cold) in enumerate(runs):
                    took, rss = timed(each, 1, cold=cold)
                    best[k], peaks[k] = min(best[k], took), max(peaks[k], rss)
            listed, first, seconds = best
            print(f"  open {label}: --list {listed:.2f} s ({peaks[0] >> 20} MB); first {first:.2f} s = "
                  f"{first / listed:.2f}x --list, {peaks[1] >> 20} MB; next {seconds:.2f} s = {seconds / listed:.2f}x, "
                  f"{peaks[2] >> 20} MB")
        packed = str(CORPUS / f"{name}.xz")
        args = [packed, "--compile-id", str(ids[-1]), "--json", str(out), "-q"]
        first, first_rss = timed(args, 1, cold=True)
        seconds, rss = timed(args, options.runs)
        before, before_rss = timed(args, 1, whole=True)
        print(f"  {name}.xz, open last: first {first:.2f} s ({first_rss >> 20} MB, decompressed into the cache), "
              f"next {seconds:.2f} s ({rss >> 20} MB); read whole {before:.2f} s ({before_rss >> 20} MB)")
    out.unlink(missing_ok=True)
    shutil.rmtree(CACHE, ignore_errors=True)
    if shutil.which("nproc"):
        print(f"cores: {os.cpu_count()}, load: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
