"""Whole-run logs at scale: timings and peak memory as ratios against references run in the same script.

Inputs (unpacked into --work, default /tmp/asmcfg-bench): the 274 MB javac PrintAssembly log (1x), copies
of it concatenated 2x and 4x (the 4x file is the "1 GB" one), and the 336 MB javac LogCompilation log.

1. `--list` index vs `grep -c '^Compiled method'` (text, goal <= 2x) and `grep -c '<nmethod'` (XML, <= 3x).
2. Analyse every method to JSONL on the XML log: wall time (goal <= 10 s on 2 cores) and vs a plain
   Python loop over its lines (goal <= 10x).
3. Peak RSS of index and analysis (whole process tree) on 1x and 4x (goal <= 150 MB, within 20%).
4. Time on 1x, 2x, 4x (linear within +-15%).

Every measured run is a subprocess built by `command()`: library calls by default, `python -m asmcfg
--list` / `--jsonl` with `--cli` (the CLI's `--list` must use `asmcfg.dialects.index` for the index figures).

Run: python benchmarks/bench_scale.py [--work DIR] [--runs N] [--cli] [--quick] [--parts index,xml,text]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path("/work/shared/corpus/large")
TEXT_XZ = CORPUS / "javac-printassembly-jdk17.txt.xz"
XML_XZ = CORPUS / "javac-logcompilation-jdk17.xml.xz"

LIBRARY = {
    "index": "import sys\nfrom asmcfg.dialects.index import index_file\nprint(sum(1 for _ in index_file(sys.argv[1])))",
    "analyse": (
        "import sys\nfrom asmcfg.run.parallel import analyse_to_jsonl\nfrom asmcfg.render.json import jsonl_record\n"
        "with open(sys.argv[2], 'w') as out:\n    print(analyse_to_jsonl(sys.argv[1], out, jsonl_record))"
    ),
}
LINE_LOOP = "import sys\nfor line in open(sys.argv[1], errors='replace'):\n    pass"


def command(task: str, path: Path, out: Path, cli: bool) -> list[str]:
    """The command that runs `task` (`index` or `analyse`) on `path`; the one place to switch to the CLI."""
    if cli:
        flags = ["--list"] if task == "index" else ["--jsonl", str(out), "-q"]
        return [sys.executable, "-m", "asmcfg", str(path), *flags]
    return [sys.executable, "-c", LIBRARY[task], str(path), str(out)]


@dataclass(frozen=True, slots=True)
class Run:
    """One finished subprocess."""

    seconds: float
    """Wall time."""
    tree_rss: int
    """Peak of the summed RSS of the process and its children, in bytes (sampled every 20 ms, after 2 s 100 ms)."""
    tree_pss: int
    """Peak of their summed PSS (shared pages split between the processes sharing them), in bytes."""
    cpu: float = 0.0
    """User + system seconds of the process and its children (insensitive to other load on the machine)."""


def _tree_memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) summed over `pid` and its descendants."""
    rss = pss = 0
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/smaps_rollup") as rollup:
                for line in rollup:
                    if line.startswith(("Rss:", "Pss:")):
                        value = int(line.split()[1]) * 1024
                        rss, pss = (rss + value, pss) if line.startswith("Rss:") else (rss, pss + value)
            with open(f"/proc/{current}/task/{current}/children") as children:
                todo.extend(int(child) for child in children.read().split())
        except (OSError, ValueError):
            continue
    return rss, pss


def run(argv: list[str]) -> Run:
    """Run `argv` (output read and dropped, failure fatal), measuring wall time and peak tree memory.

    Output goes to a pipe, not /dev/null: GNU grep stops at the first match when it writes to /dev/null.
    """
    peak = [0, 0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def sample() -> None:
        while process.poll() is None:
            rss, pss = _tree_memory(process.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            time.sleep(0.02 if time.perf_counter() - start < 2 else 0.1)  # light on the CPUs being measured

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = process.communicate()
    seconds = time.perf_counter() - start
    sampler.join()
    if process.returncode:
        raise SystemExit(f"failed: {' '.join(argv)}\n{err.decode(errors='replace')}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Run(seconds, peak[0], peak[1], cpu)


def best(argv: list[str], runs: int) -> Run:
    """Fastest of `runs` runs (with the highest peak memory seen)."""
    results = [run(argv) for _ in range(runs)]
    fastest = min(results, key=lambda r: r.seconds)
    return Run(fastest.seconds, max(r.tree_rss for r in results), max(r.tree_pss for r in results), fastest.cpu)


def prepare(work: Path, copies: tuple[int, ...]) -> dict[str, Path]:
    """Unpack the corpus logs and make the concatenated copies (once)."""
    work.mkdir(parents=True, exist_ok=True)
    paths = {"xml": work / "javac.xml", "1x": work / "javac-1x.txt"}
    for target, packed in ((paths["1x"], TEXT_XZ), (paths["xml"], XML_XZ)):
        if not target.exists():
            with open(target, "wb") as out:
                subprocess.run(["xz", "-dc", str(packed)], stdout=out, check=True)
    first = work / "javac-0x.txt"
    if not first.exists():
        with open(paths["1x"], "rb") as part:
            head = part.read(1 << 20)
        second = head.find(b"Compiled method (", head.find(b"Compiled method (") + 1)
        first.write_bytes(head[: head.rfind(b"\n", 0, second) + 1])
    paths["0x"] = first
    for count in copies:
        target = paths[f"{count}x"] = work / f"javac-{count}x.txt"
        if not target.exists():
            with open(target, "wb") as out:
                for _ in range(count):
                    with open(paths["1x"], "rb") as part:
                        shutil.copyfileobj(part, out, 16 << 20)
    return paths


class Table:
    """Rows of measure, seconds, ratio, peak RSS and goal verdict, printed as they come."""

    def __init__(self) -> None:
        print(f"{'measure':52} {'seconds':>8} {'CPU s':>7} {'ratio':>7} {'RSS MB':>7} {'PSS MB':>7}  goal")

    def row(self, name: str, result: Run | None, ratio: float | None = None, goal: str = "") -> None:
        seconds = f"{result.seconds:8.3f} {result.cpu:7.2f}" if result else " " * 16
        rss = f"{result.tree_rss / 1e6:7.0f} {result.tree_pss / 1e6:7.0f}" if result else " " * 15
        shown = f"{ratio:7.2f}" if ratio is not None else " " * 7
        print(f"{name:52} {seconds} {shown} {rss}  {goal}", flush=True)


def verdict(ok: bool, text: str) -> str:
    """`text` marked met or missed."""
    return f"{text}: {'met' if ok else 'MISSED'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, default=Path("/tmp/asmcfg-bench"))
    parser.add_argument("--runs", type=int, default=5, help="runs of the short measures (fastest kept)")
    parser.add_argument("--cli", action="store_true", help="run `python -m asmcfg` instead of library calls")
    parser.add_argument("--quick", action="store_true", help="analyse only 1x text and the XML log")
    parser.add_argument("--parts", default="index,xml,text", help="comma-separated subset of index,xml,text")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    paths = prepare(args.work, (2, 4))
    out = args.work / "out.jsonl"
    print(f"cores: {os.cpu_count()}  python: {sys.version.split()[0]}  mode: {'CLI' if args.cli else 'library'}  "
          f"load average before: {os.getloadavg()[0]:.2f}")
    table = Table()
    if "index" in parts:
        index_text(table, paths, args)
        index_xml(table, paths, args)
    if "xml" in parts:
        analyse_xml(table, paths, out, args)
    if "text" in parts:
        analyse_text(table, paths, out, args)
    out.unlink(missing_ok=True)
    print(f"load average after: {os.getloadavg()[0]:.2f} (other work on the machine slows the wall times)")


def index_text(table: Table, paths: dict[str, Path], args: argparse.Namespace) -> None:
    """Index vs grep on 1x, 2x, 4x text: ratio, RSS, linearity."""
    times: dict[str, Run] = {"0x": best(command("index", paths["0x"], paths["0x"], args.cli), args.runs)}
    table.row("index, one-method input (start-up)", times["0x"])
    for size in ("1x", "2x", "4x"):
        grep = best(["grep", "-c", "^Compiled method", str(paths[size])], args.runs)
        mine = times[size] = best(command("index", paths[size], paths[size], args.cli), args.runs)
        table.row(f"grep -c '^Compiled method' text {size}", grep, 1.0)
        ratio = mine.seconds / grep.seconds
        table.row(f"index text {size}", mine, ratio, verdict(ratio <= 2, "<= 2x grep"))
    linearity(table, "index", times)
    rss(table, "index", times)


def index_xml(table: Table, paths: dict[str, Path], args: argparse.Namespace) -> None:
    """Index vs grep on the XML log."""
    grep = best(["grep", "-c", "<nmethod", str(paths["xml"])], args.runs)
    mine = best(command("index", paths["xml"], paths["xml"], args.cli), args.runs)
    table.row("grep -c '<nmethod' XML", grep, 1.0)
    ratio = mine.seconds / grep.seconds
    table.row("index XML", mine, ratio, verdict(ratio <= 3, "<= 3x grep"))


def analyse_xml(table: Table, paths: dict[str, Path], out: Path, args: argparse.Namespace) -> None:
    """Analyse-all to JSONL on the XML log vs a Python line loop."""
    loop = best([sys.executable, "-c", LINE_LOOP, str(paths["xml"])], args.runs)
    mine = run(command("analyse", paths["xml"], out, args.cli))
    table.row("python line loop XML (reference)", loop, 1.0)
    ratio = mine.seconds / loop.seconds
    goal = f"{verdict(mine.seconds <= 10, '<= 10 s')}; {verdict(ratio <= 10, '<= 10x loop')}"
    table.row("analyse all -> JSONL, XML", mine, ratio, goal)


def analyse_text(table: Table, paths: dict[str, Path], out: Path, args: argparse.Namespace) -> None:
    """Analyse-all to JSONL on 1x, 2x, 4x text: time, RSS, linearity."""
    times: dict[str, Run] = {"0x": best(command("analyse", paths["0x"], out, args.cli), args.runs)}
    table.row("analyse, one-method input (start-up)", times["0x"])
    for size in ("1x",) if args.quick else ("1x", "2x", "4x"):
        times[size] = run(command("analyse", paths[size], out, args.cli))
        table.row(f"analyse all -> JSONL, text {size}", times[size])
    linearity(table, "analyse", times)
    rss(table, "analyse", times)


def linearity(table: Table, name: str, times: dict[str, Run]) -> None:
    """Seconds per copy on 2x and 4x relative to 1x, as measured and less the fixed cost of a one-method input."""
    fixed = times["0x"].seconds
    for size, count in (("2x", 2), ("4x", 4)):
        if size in times:
            raw = times[size].seconds / count / times["1x"].seconds
            table.row(f"{name}: time per copy {size} / 1x", None, raw, verdict(abs(raw - 1) <= 0.15, "1 +- 0.15"))
            net = (times[size].seconds - fixed) / count / (times["1x"].seconds - fixed)
            goal = verdict(abs(net - 1) <= 0.15, "1 +- 0.15")
            table.row(f"{name}: same, less start-up ({fixed:.3f} s)", None, net, goal)


def rss(table: Table, name: str, times: dict[str, Run]) -> None:
    """Peak RSS and PSS on 4x relative to 1x (goal within 20%, both <= 150 MB)."""
    if "4x" not in times:
        return
    for kind in ("RSS", "PSS"):
        small, large = (t.tree_rss if kind == "RSS" else t.tree_pss for t in (times["1x"], times["4x"]))
        ok = max(small, large) <= 150e6 and abs(large / small - 1) <= 0.2
        goal = verdict(ok, f"<= 150 MB ({small / 1e6:.0f}, {large / 1e6:.0f}) and within 20%")
        table.row(f"{name}: peak {kind} 4x / 1x", None, large / small, goal)


if __name__ == "__main__":
    main()
