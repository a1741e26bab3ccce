"""Every speed goal of the CLI as a ratio against its reference, both measured in the same run of this script.

1. start-up: `asmcfg --version` and `asmcfg --help` vs `python -c pass` (goal <= 3x).
2. example: `asmcfg examples/c2-compiled-realTest.S` end to end (DOT on stdout, summary on stderr) vs
   `python -c "import networkx"` (goal <= 1.5x).
3. list: `asmcfg --list` of the 274 MB javac PrintAssembly log vs `grep -c '^Compiled method'` (goal <= 2x).
4. xml: `asmcfg --jsonl FILE --facts` and full `asmcfg --jsonl FILE` of the 336 MB javac LogCompilation log vs
   a Python loop over its lines (goals <= 20x and <= 40x), output size vs input size (facts <= 1/10) and
   peak RSS of the process tree (<= 150 MB).
5. linear: `--jsonl --facts` of the text log 1x, 2x and 4x (copies concatenated): time per copy within +-15%.
6. versus (with `--reference ENV`, the virtual environment of an older build such as a13fb51's): the main job
   (`asmcfg < examples/c2-compiled-realTest.S`), `--list` of both logs and `--jsonl - --facts` of the XML log, each
   run with this checkout and with the reference build in turn, round after round (`--rounds`), with a Python line
   loop over the XML log in the same rounds. It gives the medians of wall and CPU seconds (user + system of the
   process tree) and the medians of the per-round ratios: each mode against the reference build (goal: no slower
   than it, <= 1.00 in CPU) and `--facts` against the line loop (goal: <= 20x). CPU seconds are what it judges:
   other work on a shared machine stretches the wall times, not the CPU a run needs.

Every asmcfg run is `python -m asmcfg` from this checkout (PYTHONPATH set to it); the output's second line says
whether that imports the pure-Python modules or the optional compiled ones (docs/compiled.md).
Short measures keep the fastest of --runs runs; the whole-log ones run --long-runs times and keep the fastest.
`--slice MB` measures on the first MB megabytes of each log (cut at a compilation boundary) instead of the whole
file, for a quick look while the machine is busy; goals are judged on full size only.

Run: python benchmarks/bench_speed.py [--parts startup,example,list,xml,linear,versus] [--slice MB] [--runs N]
     [--reference ENV --rounds N]
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from bench_scale import Run, Table, best, prepare, run, verdict

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "c2-compiled-realTest.S"
PARTS = ("startup", "example", "list", "xml", "linear", "versus")
LINE_LOOP = "import sys\nfor line in open(sys.argv[1], errors='replace'):\n    pass"


def asmcfg(*args: str) -> list[str]:
    """`python -m asmcfg ARGS` run from this checkout."""
    return [sys.executable, "-m", "asmcfg", *args]


def python(*args: str) -> list[str]:
    return [sys.executable, *args]


def sliced(path: Path, megabytes: int, marker: bytes) -> Path:
    """The first `megabytes` of `path`, cut before the first `marker` line after that size (made once)."""
    target = path.with_name(f"{path.stem}-{megabytes}mb{path.suffix}")
    if not target.exists():
        with open(path, "rb") as whole:
            head = whole.read(megabytes * 1_000_000 + (8 << 20))
        cut = head.find(b"\n" + marker, megabytes * 1_000_000)
        target.write_bytes(head[: cut + 1] if cut >= 0 else head)
    return target


def copies(path: Path, count: int) -> Path:
    """`count` copies of `path` concatenated (made once)."""
    target = path.with_name(f"{path.stem}-x{count}{path.suffix}")
    if not target.exists():
        data = path.read_bytes()
        with open(target, "wb") as out:
            for _ in range(count):
                out.write(data)
    return target


def build() -> str:
    """Which build of asmcfg the measured runs import: `pure Python` or `compiled (mypyc)` (ASMCFG_MYPYC=1)."""
    code = "from asmcfg.run.compiled import build_name; print(build_name())"
    return subprocess.run(python("-c", code), capture_output=True, text=True, check=True).stdout.strip()


def ratio_row(table: Table, name: str, mine: Run, reference: Run, limit: float, judged: bool) -> float:
    ratio = mine.seconds / reference.seconds
    table.row(name, mine, ratio, verdict(ratio <= limit, f"<= {limit:g}x") if judged else f"(goal <= {limit:g}x)")
    return ratio


def startup(table: Table, runs: int) -> None:
    reference = best(python("-c", "pass"), runs)
    table.row("python -c pass (reference)", reference, 1.0)
    for flag in ("--version", "--help"):
        ratio_row(table, f"asmcfg {flag}", best(asmcfg(flag), runs), reference, 3, True)


def example(table: Table, runs: int) -> None:
    reference = best(python("-c", "import networkx"), runs)
    table.row('python -c "import networkx" (reference)', reference, 1.0)
    mine = best(asmcfg(str(EXAMPLE)), runs)
    ratio_row(table, "asmcfg examples/c2-compiled-realTest.S", mine, reference, 1.5, True)


def listing(table: Table, text: Path, runs: int, judged: bool) -> None:
    grep = best(["grep", "-c", "^Compiled method", str(text)], runs)
    table.row(f"grep -c '^Compiled method' {text.name} (reference)", grep, 1.0)
    ratio_row(table, f"asmcfg {text.name} --list", best(asmcfg(str(text), "--list"), runs), grep, 2, judged)


def whole_xml(table: Table, xml: Path, out: Path, runs: int, judged: bool) -> None:
    loop = best(python("-c", LINE_LOOP, str(xml)), max(3, runs))
    table.row(f"python line loop {xml.name} (reference)", loop, 1.0)
    size = xml.stat().st_size
    for flags, limit, share in ((["--facts"], 20, 0.1), ([], 40, None)):
        mine = best(asmcfg(str(xml), "--jsonl", str(out), "-q", *flags), runs)
        name = f"asmcfg --jsonl {' '.join(flags) or '(full)'}"
        ratio_row(table, name, mine, loop, limit, judged)
        written = out.stat().st_size / size
        shown = f"{out.stat().st_size / 1e6:.1f} MB of {size / 1e6:.1f} MB"
        goal = verdict(written <= share, f"<= {share:g} of the input") if share else "(no goal)"
        table.row(f"  output / input ({shown})", None, written, goal)
        table.row("  peak RSS of the process tree, MB", None, mine.tree_rss / 1e6,
                  verdict(mine.tree_rss <= 150e6, "<= 150 MB") if judged else "(goal <= 150 MB)")


def linear(table: Table, text: Path, out: Path, runs: int) -> None:
    times = {}
    for count in (1, 2, 4):
        path = text if count == 1 else copies(text, count)
        times[count] = best(asmcfg(str(path), "--jsonl", str(out), "-q", "--facts"), runs)
        table.row(f"asmcfg --jsonl --facts text {count}x ({path.stat().st_size / 1e6:.0f} MB)", times[count])
    for count in (2, 4):
        per_copy = times[count].seconds / count / times[1].seconds
        table.row(f"  time per copy {count}x / 1x", None, per_copy, verdict(abs(per_copy - 1) <= 0.15, "1 +- 0.15"))
        # CPU seconds do not stretch when other work on the machine takes the cores from this run
        per_copy = times[count].cpu / count / times[1].cpu
        table.row(f"  CPU per copy {count}x / 1x", None, per_copy, verdict(abs(per_copy - 1) <= 0.15, "1 +- 0.15"))


def reference_asmcfg(env: Path, *args: str) -> list[str]:
    """`asmcfg ARGS` of the build installed in the virtual environment `env` (its script, else its `python -m`)."""
    script = env / "bin" / "asmcfg"
    return [str(script), *args] if script.exists() else [str(env / "bin" / "python"), "-m", "asmcfg", *args]


def versus(logs: tuple[Path, Path], xml: Path, env: Path, rounds: int, judged: bool) -> None:
    """Part 6: each mode with this checkout and with the build in `env`, in turn, round after round (the order
    alternating), and the line loop over `xml` (the XML log, or its slice) in the same rounds; medians of the seconds
    and of per-round ratios. `--list` reads the whole `logs` (text, XML) even with --slice: a slice is under the
    size from which a listing comes from the header index."""
    shell = "exec {} < {}"
    text, whole = logs
    modes: dict[str, Callable[[Callable[..., list[str]]], list[str]]] = {
        "main job (stdin)": lambda build: ["sh", "-c", shell.format(shlex.join(build()), shlex.quote(str(EXAMPLE)))],
        f"--list {text.name}": lambda build: build(str(text), "--list"),
        f"--list {whole.name}": lambda build: build(str(whole), "--list"),
        f"--jsonl - --facts {xml.name}": lambda build: build(str(xml), "--jsonl", "-", "--facts", "-q"),
    }
    builds: dict[str, Callable[..., list[str]]] = {"reference": lambda *a: reference_asmcfg(env, *a),
                                                  "this checkout": asmcfg}
    times: dict[tuple[str, str], list[Run]] = {}
    loops: list[Run] = []
    for n in range(rounds):
        loops.append(run(python("-c", LINE_LOOP, str(xml))))
        for mode, argv in modes.items():
            for name in (list(builds) if n % 2 == 0 else list(builds)[::-1]):
                times.setdefault((mode, name), []).append(run(argv(builds[name])))
    print(f"versus {env} ({rounds} rounds; medians; CPU = user + system seconds of the process tree)")
    print(f"  python line loop {xml.name}: wall {statistics.median(r.seconds for r in loops):.3f} s, "
          f"CPU {statistics.median(r.cpu for r in loops):.3f} s")
    for mode in modes:
        mine, theirs = times[(mode, "this checkout")], times[(mode, "reference")]
        cpu = statistics.median(a.cpu / b.cpu for a, b in zip(mine, theirs, strict=True))
        wall = statistics.median(a.seconds / b.seconds for a, b in zip(mine, theirs, strict=True))
        goal = verdict(cpu <= 1.0, "CPU <= 1.00x the reference") if judged else "(goal: CPU <= 1.00x the reference)"
        print(f"  {mode}: reference wall {statistics.median(r.seconds for r in theirs):.3f} s CPU "
              f"{statistics.median(r.cpu for r in theirs):.3f} s; this checkout wall "
              f"{statistics.median(r.seconds for r in mine):.3f} s CPU {statistics.median(r.cpu for r in mine):.3f} s;"
              f" ratio wall {wall:.2f}x CPU {cpu:.2f}x  {goal}")
        if "--facts" in mode:
            for name, runs in (("this checkout", mine), ("reference", theirs)):
                by_cpu = statistics.median(a.cpu / b.cpu for a, b in zip(runs, loops, strict=True))
                by_wall = statistics.median(a.seconds / b.seconds for a, b in zip(runs, loops, strict=True))
                aim = verdict(by_cpu <= 20, "<= 20x in CPU") if judged and name == "this checkout" else ""
                print(f"    {name} / line loop: wall {by_wall:.1f}x CPU {by_cpu:.1f}x  {aim}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/asmcfg-bench"), help="where the logs are unpacked")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)}")
    parser.add_argument("--slice", type=int, metavar="MB", help="use the first MB megabytes of each log")
    parser.add_argument("--runs", type=int, default=5, help="runs of the short measures (fastest kept)")
    parser.add_argument("--long-runs", type=int, default=1, help="runs of the whole-log measures (fastest kept)")
    parser.add_argument("--reference", type=Path, help="virtual environment of the build `versus` compares with")
    parser.add_argument("--rounds", type=int, default=6, help="rounds of `versus`")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    unknown = parts - set(PARTS)
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    os.environ["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    os.chdir(ROOT)
    if "versus" in parts and args.reference is None:
        parts.discard("versus")
        if args.parts != ",".join(PARTS):
            parser.error("the part versus needs --reference ENV")
    paths = prepare(args.work, ()) if parts & {"list", "xml", "linear", "versus"} else {}
    text, xml = paths.get("1x"), paths.get("xml")
    if args.slice and text is not None and xml is not None:
        text, xml = sliced(text, args.slice, b"Compiled method ("), sliced(xml, args.slice, b"<writer")
    out = args.work / "speed-out.jsonl"
    print(f"cores: {os.cpu_count()}  python: {sys.version.split()[0]}  "
          f"inputs: {'first ' + str(args.slice) + ' MB' if args.slice else 'full size'}  "
          f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"asmcfg build: {build()}")
    table = Table()
    judged = not args.slice
    if "startup" in parts:
        startup(table, args.runs)
    if "example" in parts:
        example(table, args.runs)
    if "list" in parts and text is not None:
        listing(table, text, args.runs, judged)
    if "xml" in parts and xml is not None:
        whole_xml(table, xml, out, args.long_runs, judged)
    if "linear" in parts and text is not None:
        linear(table, text, out, args.long_runs)
    if "versus" in parts and text is not None and xml is not None and args.reference is not None:
        versus((paths["1x"], paths["xml"]), xml, args.reference, args.rounds, judged)
    out.unlink(missing_ok=True)
    print(f"load average after: {os.getloadavg()[0]:.2f} (other work on the machine slows the wall times)")


if __name__ == "__main__":
    main()
