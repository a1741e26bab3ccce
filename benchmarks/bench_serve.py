"""`asmcfg serve` on a whole log: how soon the index is ready, how long a compilation's page takes, and memory.

Measures, as ratios against references run in the same script:
1. index ready (the URL printed and the index page fetched) on the 274 MB PrintAssembly log against `asmcfg LOG
   --list` on the same file (aim: <= 2x);
2. the first fetch of a compilation's page (read, analysed, drawn: `--html`'s page) for an ordinary compilation
   (Shapes, C2), for BigMethod's largest (compile id 11; aim <= 3 s), and for compilations of the large log,
   then a second fetch of the same page (the cache);
3. the server's peak RSS (VmHWM) after opening `--pages` compilations of the large log, the background analysis
   running meanwhile (its workers are other processes, measured apart; aim <= 200 MB);
4. `asmcfg serve OLD NEW`: the whole-log diff's index ready against `asmcfg diff OLD NEW --json` on the same two
   logs (the full runs of Tensor4D and Switches on JDK 17 and JDK 25, and `--diff OLD NEW` when given), and the
   first fetch of its largest pair's side-by-side page against `asmcfg diff --html` of the same two compilations.

Run: python benchmarks/bench_serve.py [--large /work/large/javac-printassembly-jdk17.txt] [--runs N] [--pages N]
     [--diff OLD NEW] [--diff-only]
"""

from __future__ import annotations

import argparse
import http.cookiejar
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIG = ROOT / "tests" / "data" / "hsdis" / "jdk17-BigMethod-print-hsdis-att.txt.gz"
SHAPES = ROOT / "tests" / "data" / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt"
LARGE = Path("/work/large/javac-printassembly-jdk17.txt")
FULL_RUNS = tuple(
    tuple(ROOT / "tests" / "data" / "hsdis" / f"jdk{jdk}-{program}-printassembly-full.txt.gz" for jdk in (17, 25))
    for program in ("Tensor4D", "Switches"))
"""Whole runs of one program on JDK 17 and JDK 25."""
ASMCFG = [sys.executable, "-m", "asmcfg"]


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=ROOT)
    return time.perf_counter() - start


class Server:
    """`asmcfg serve PATH [NEW] --no-open -q` and a browser-like client of it (cookies kept)."""

    def __init__(self, *paths: Path) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen([*ASMCFG, "serve", *map(str, paths), "--no-open", "-q"],
                                        stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL,
                                        text=True, cwd=ROOT)
        assert self.process.stdout is not None
        url = self.process.stdout.readline().strip()
        self.client = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.index = self.client.open(url).read()
        self.ready = time.perf_counter() - self.started
        self.base = url.split("?", 1)[0]

    def fetch(self, path: str) -> float:
        start = time.perf_counter()
        with self.client.open(self.base + path, timeout=600) as answer:
            answer.read()
        return time.perf_counter() - start

    def row(self, compile_id: int) -> int:
        """The row number of the first compilation with that id, from the index page's JSON."""
        import json

        text = self.index.decode("utf-8")
        start = text.index('id="data">') + len('id="data">')
        rows: list[list[Any]] = json.loads(text[start:text.index("</script>", start)])["rows"]
        return next(r[0] for r in rows if r[2] == compile_id)

    def peak(self) -> tuple[int, int]:
        """The server's VmHWM and the summed VmRSS of the processes under it now (the analysis), in kB."""
        return _status(self.process.pid, "VmHWM"), sum(_status(pid, "VmRSS") for pid in _below(self.process.pid))

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)


def _below(pid: int) -> list[int]:
    """Every process under `pid` (children of any of its threads, and theirs)."""
    found = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                found += [int(child), *_below(int(child))]
    except OSError:  # it ended meanwhile
        pass
    return found


def _status(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


Add = Callable[..., None]


def two_logs(add: Add, old: Path, new: Path, runs: int) -> None:
    """`serve OLD NEW`'s index ready against `asmcfg diff OLD NEW --json`; its largest pair's page (the first row:
    nothing measured here, so ranked by size) against `asmcfg diff --html` of the same two compilations."""
    import json

    name = f"{old.name} -> {new.name}"
    listed = json.loads(subprocess.run([*ASMCFG, "diff", str(old), str(new), "--json", "-", "-q"], check=True,
                                       capture_output=True, text=True, cwd=ROOT).stdout)
    whole = statistics.median(timed([*ASMCFG, "diff", str(old), str(new), "--json", os.devnull, "-q"])
                              for _ in range(runs))
    top = listed["pairs"][0]
    ids = ["--old-compile-id", str(top["old_compile_id"]), "--new-compile-id", str(top["new_compile_id"])]
    page = statistics.median(timed([*ASMCFG, "diff", str(old), str(new), *ids, "--html", os.devnull, "-q"])
                             for _ in range(runs))
    ready, first = [], []
    for _ in range(runs):
        server = Server(old, new)
        ready.append(server.ready)
        first.append(server.fetch("c/0"))
        server.stop()
    add(f"`asmcfg diff OLD NEW --json` of {name} ({len(listed['pairs'])} pairs, reference), s", whole, whole)
    add("serve OLD NEW: index ready (URL printed, index page fetched), s", statistics.median(ready), whole)
    add(f"`asmcfg diff … --html` of its first pair, {top['method']} (reference), s", page, page)
    add("serve OLD NEW: that pair's page, first fetch, s", statistics.median(first), page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--large", type=Path, default=LARGE)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--spread", type=float, default=1.0,
                        help="the pages opened are spread over this part of the large log, from its start")
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("OLD", "NEW"), help="two more logs for serve OLD NEW")
    parser.add_argument("--diff-only", action="store_true", help="only the figures of serve OLD NEW")
    args = parser.parse_args()
    rows = [(f"{'measure':76}", f"{'value':>10}", f"{'ratio':>8}")]

    def add(label: str, value: float, reference: float | None = None) -> None:
        rows.append((f"{label:76}", f"{value:10.3f}", f"{value / reference:8.2f}" if reference else ""))

    for old, new in (*FULL_RUNS, *([tuple(args.diff)] if args.diff else [])):
        two_logs(add, old, new, args.runs)
    if args.diff_only:
        print(f"cores: {os.cpu_count()}  runs per figure: {args.runs} (median)")
        for row_cells in rows:
            print(" ".join(row_cells))
        return

    listing = statistics.median(timed([*ASMCFG, str(args.large), "--list"]) for _ in range(args.runs))
    ready = []
    for _ in range(args.runs):
        server = Server(args.large)
        ready.append(server.ready)
        server.stop()
    add(f"`--list` of {args.large.name} (reference), s", listing, listing)
    add("serve: index ready (URL printed, index page fetched), s (aim <= 2x)", statistics.median(ready), listing)
    for name, path, compile_id in (("Shapes id 16 (C2, ordinary)", SHAPES, 16), ("BigMethod id 11", BIG, 11)):
        html = statistics.median(
            timed([*ASMCFG, str(path), "--compile-id", str(compile_id), "--html", os.devnull, "-q"])
            for _ in range(args.runs))
        first, again = [], []
        for _ in range(args.runs):
            server = Server(path)
            row = server.row(compile_id)
            first.append(server.fetch(f"c/{row}"))
            again.append(server.fetch(f"c/{row}"))
            server.stop()
        add(f"`asmcfg … --compile-id {compile_id} --html` of {name} (reference), s", html, html)
        add(f"serve: page of {name}, first fetch, s", statistics.median(first), html)
        add(f"serve: page of {name}, again (cached), s", statistics.median(again), html)
    server = Server(args.large)
    count = len(server.index)  # the page's size stands in for nothing: rows come from its JSON
    total = server.index.decode("utf-8").count("],[") + 1
    times = [server.fetch(f"c/{round(n * total * args.spread) // args.pages}") for n in range(args.pages)]
    own, children = server.peak()
    server.stop()
    add(f"serve: page of a {args.large.name} compilation, median of {args.pages}, s", statistics.median(times))
    add("  the slowest of them, s", max(times))
    add(f"serve: peak RSS after {args.pages} pages, MB (aim <= 200)", own / 1024)
    add("  the background analysis processes' RSS then (summed), MB", children / 1024)
    print(f"cores: {os.cpu_count()}  runs per figure: {args.runs} (median); index page {count / 1e6:.1f} MB")
    for row_cells in rows:
        print(" ".join(row_cells))


if __name__ == "__main__":
    main()
