"""Builds of asmcfg side by side, run in turn, mode by mode: wall and CPU time, and ratios to the first build.

Each build is given as LABEL=ENV (a virtual environment or its `python`), the first the reference; its `asmcfg`
script runs when the environment has one, else `python -c` the launcher, both from a scratch working directory (no
checkout on `sys.path`). The runs are paired: each round runs every mode once with each build, back to back, the
order rotating from round to round, so that a ratio compares runs of the same seconds on a machine whose load
moves. Every figure is a median over the rounds: the wall and CPU seconds of each build, and the median of the
per-round ratios build / reference. CPU is user + system time of the process and the processes it waited for (its
workers and forked searches), which other work on the machine disturbs less than the wall time.

Modes (`--modes`, comma-separated; each the command a user runs):
  stdin        `cat examples/c2-compiled-realTest.S | asmcfg` (the main job: DOT on stdout, summary on stderr)
  file         `asmcfg examples/c2-compiled-realTest.S`
  version      `asmcfg --version`
  one-text     `asmcfg javac-printassembly-jdk17.txt --compile-id 475` (274 MB; DOT and summary of one)
  one-xml      `asmcfg javac-logcompilation-jdk17.xml --compile-id 475` (336 MB)
  list-text    `asmcfg javac-printassembly-jdk17.txt --list` (274 MB)
  list-xml     `asmcfg javac-logcompilation-jdk17.xml --list` (336 MB)
  all          `asmcfg jdk17-Shapes-print-hsdis-att.txt.gz --all --json -` (tests/data: every compilation, JSON)
  diff         `asmcfg diff` of the two Ring runs of tests/data/diff (table on stdout)
  facts        `asmcfg javac-logcompilation-jdk17.xml --jsonl - --facts` (336 MB)
  jsonl        `asmcfg javac-logcompilation-jdk17.xml --jsonl -`
  facts-small  `--jsonl - --facts` of the JavacLoop recording's log (64 MB, [MachCode] hex, no hsdis)
  jsonl-small  `--jsonl -` of the same log
The `--jsonl` modes also run a plain Python line loop over the same file in each round (with the last build's
interpreter), and give each build's time as a ratio to it (the standing goal: `--facts` of the 336 MB log at most
20x the loop). Every output goes to a pipe read here; the table says whether every build wrote the reference's
bytes (the wording of a message may differ between builds: see `--show-diff`), and a build whose output changed
from one round to the next is reported.

The logs are unpacked from the corpus into --work once. The short modes run --rounds rounds, the whole-log ones
--long-rounds (interleaved with the short ones as long as both last). Runs have Python's output buffered and
modules compiled once (a warm-up run writes the `.pyc` files), as a user's installed asmcfg has them: a checkout
whose modules are compiled on every run (PYTHONDONTWRITEBYTECODE=1) starts 0.1 s slower, half the main job.
Each build has a cache directory of its own.

Run: python benchmarks/bench_versus.py LABEL=ENV LABEL=ENV... [--modes ...] [--rounds 10] [--long-rounds 3]
  e.g. python benchmarks/bench_versus.py a13fb51=/work/venv-old 58d9ab7=/work/venv-base58 new=/work/venv-new
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "c2-compiled-realTest.S"
CORPUS = Path("/work/shared/corpus")
LARGE = {"text": CORPUS / "large" / "javac-printassembly-jdk17.txt.xz",
         "xml": CORPUS / "large" / "javac-logcompilation-jdk17.xml.xz",
         "small": CORPUS / "record" / "runs" / "jdk17-JavacLoop-c2print" / "jvmpid7331.xml.xz"}
TESTS = ROOT / "tests" / "data"
ALL = TESTS / "hsdis" / "jdk17-Shapes-print-hsdis-att.txt.gz"
DIFF = (TESTS / "diff" / "jdk17-Ring-before-nohsdis.txt", TESTS / "diff" / "jdk17-Ring-after-nohsdis.txt")
LONG = ("one-text", "one-xml", "list-text", "list-xml", "facts", "jsonl", "facts-small", "jsonl-small")
MODES = ("stdin", "file", "version", "all", "diff", *LONG)
QUICK = ("stdin", "file", "version", "all", "diff", "list-text", "facts-small")
LINE_LOOP = "import sys\nfor line in open(sys.argv[1], errors='replace'):\n    pass"
RUN = "import sys; from asmcfg.launch import main; sys.argv[0] = 'asmcfg'; main()"
_UNSET = ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONPATH")


@dataclass(frozen=True, slots=True)
class Build:
    """One build: its interpreter, the command that runs its asmcfg, and its environment."""

    label: str
    python: str
    command: tuple[str, ...]
    env: dict[str, str]


@dataclass(frozen=True, slots=True)
class Result:
    """One finished run."""

    wall: float
    cpu: float
    digest: str
    """sha256 of what the run wrote on stdout."""
    size: int


@dataclass(slots=True)
class Series:
    """Every run of one mode: per build, and the line loop's."""

    runs: dict[str, list[Result]] = field(default_factory=dict)
    loop: list[Result] = field(default_factory=list)
    ratios: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    """Per build, (wall, CPU) over the reference's, per round."""


def build(label: str, given: str, scratch: Path) -> Build:
    """The build of a virtual environment or interpreter path, with its own asmcfg cache."""
    path = Path(given)
    python = path / "bin" / "python" if path.is_dir() else path
    if not python.exists():
        raise SystemExit(f"{label}: no interpreter at {python}")
    script = python.parent / "asmcfg"
    command = (str(script),) if script.exists() else (str(python), "-c", RUN)
    cache = scratch / f"cache-{label}"
    env = {k: v for k, v in os.environ.items() if k not in _UNSET} | {"ASMCFG_CACHE_DIR": str(cache)}
    return Build(label, str(python), command, env)


def run(argv: list[str], env: dict[str, str], cwd: Path, stdin: bytes | None = None) -> Result:
    """Run `argv`, its stdout hashed as it comes and its stderr kept; wall and CPU seconds (failure fatal)."""
    digest = hashlib.sha256()
    size = [0]
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    assert process.stdout is not None and process.stderr is not None
    err: list[bytes] = []
    readers = [threading.Thread(target=_drain, args=(process.stdout, digest, size)),
               threading.Thread(target=lambda: err.append(process.stderr.read()))]  # type: ignore[union-attr]
    for reader in readers:
        reader.start()
    if stdin is not None:
        assert process.stdin is not None
        process.stdin.write(stdin)
        process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    for reader in readers:
        reader.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:  # told once, and kept as a failed run: the other builds' figures still count
        message = b"".join(err).decode(errors="replace").strip().splitlines()
        print(f"failed ({process.returncode}): {' '.join(argv)}: {message[-1] if message else ''}", flush=True)
        return Result(wall, usage.ru_utime + usage.ru_stime, f"failed {process.returncode}", size[0])
    return Result(wall, usage.ru_utime + usage.ru_stime, digest.hexdigest(), size[0])


def _drain(pipe: object, digest: hashlib._Hash, size: list[int]) -> None:
    read = pipe.read  # type: ignore[attr-defined]
    while chunk := read(1 << 20):
        digest.update(chunk)
        size[0] += len(chunk)


def plain(packed: Path, work: Path) -> Path:
    """The plain copy of a corpus file in `work`, unpacked once (written aside, then renamed)."""
    target = work / packed.name.removesuffix(".xz")
    if not target.exists():
        work.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + f".{os.getpid()}")
        with open(partial, "wb") as out:
            subprocess.run(["xz", "-dc", str(packed)], stdout=out, check=True)
        partial.rename(target)
    return target


def commands(mode: str, files: dict[str, Path]) -> tuple[list[str], bytes | None, Path | None]:
    """(asmcfg's arguments, what goes on its stdin, the file a line loop reads for reference) of one mode."""
    if mode == "stdin":
        return [], EXAMPLE.read_bytes(), None
    if mode == "file":
        return [str(EXAMPLE)], None, None
    if mode == "version":
        return ["--version"], None, None
    if mode.startswith("list-"):
        return [str(files[mode.removeprefix("list-")]), "--list"], None, None
    if mode.startswith("one-"):
        return [str(files[mode.removeprefix("one-")]), "--compile-id", "475"], None, None
    if mode == "all":
        return [str(ALL), "--all", "--json", "-"], None, None
    if mode == "diff":
        return ["diff", *map(str, DIFF)], None, None
    log = files["small" if mode.endswith("-small") else "xml"]
    facts = ["--facts"] if mode.startswith("facts") else []
    return [str(log), "--jsonl", "-", *facts], None, log


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(mode: str, series: Series, builds: list[Build]) -> None:
    """One mode's medians and ratios to the reference, and whether each build wrote the reference's bytes."""
    reference = series.runs[builds[0].label]
    loop = median([r.wall for r in series.loop]) if series.loop else None
    for each in builds:
        runs = series.runs[each.label]
        wall, cpu = median([r.wall for r in runs]), median([r.cpu for r in runs])
        ratios = series.ratios.get(each.label, [])
        ratio_wall, ratio_cpu = median([w for w, _ in ratios]), median([c for _, c in ratios])
        same = "same" if runs[-1].digest == reference[-1].digest else f"differ ({runs[-1].size} bytes)"
        if runs[-1].digest.startswith("failed"):
            same = runs[-1].digest
        if each is builds[0]:
            same, ratio_wall, ratio_cpu = "reference", 1.0, 1.0
        looped = f"  {wall / loop:5.1f}x loop" if loop else ""
        print(f"{mode if each is builds[0] else '':12} {each.label:10} {len(runs):>3} {wall:8.3f} {ratio_wall:6.2f}x "
              f"{cpu:8.3f} {ratio_cpu:6.2f}x  {same}{looped}", flush=True)
        if len({r.digest for r in runs}) > 1:
            print(f"{'':12} {each.label}'s output changed between rounds")
    if loop:
        print(f"{'':12} line loop {loop:.3f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("builds", nargs="+", metavar="LABEL=ENV",
                        help="builds, the first the reference: a label, =, a virtual environment or its python")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated subset of {','.join(MODES)}")
    parser.add_argument("--quick", action="store_true", help=f"only {','.join(QUICK)}")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of the short modes")
    parser.add_argument("--long-rounds", type=int, default=3, help="rounds of the whole-log modes")
    parser.add_argument("--work", type=Path, default=Path("/tmp/asmcfg-bench"), help="where the logs are unpacked")
    parser.add_argument("--show-diff", action="store_true", help="print the first line differing from the reference")
    args = parser.parse_args()
    modes = list(QUICK if args.quick else args.modes.split(","))
    unknown = set(modes) - set(MODES)
    if unknown:
        parser.error(f"unknown modes: {', '.join(sorted(unknown))}")
    if len(args.builds) < 2 or not all("=" in given for given in args.builds):
        parser.error("give two builds or more, each as LABEL=ENV")
    scratch = Path(tempfile.mkdtemp(prefix="asmcfg-versus-"))
    builds = [build(*given.split("=", 1), scratch) for given in args.builds]
    needed = {m.split("-", 1)[1] for m in modes if m.startswith(("list-", "one-"))}
    needed |= {"small" if m.endswith("-small") else "xml" for m in modes if m.startswith(("facts", "jsonl"))}
    files = {name: plain(LARGE[name], args.work) for name in sorted(needed)}
    loop = [builds[-1].python, "-c", LINE_LOOP]
    try:
        print(f"cores: {os.cpu_count()}  load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for each in builds:
            version = subprocess.run([each.python, "-c", "import sys; print(sys.version.split()[0])"],
                                     capture_output=True, text=True, check=True).stdout.strip()
            print(f"{each.label}: {' '.join(each.command[:1])} (Python {version})")
            for mode in ("version", "file"):  # the warm-up: modules compiled, the example in the page cache
                run([*each.command, *commands(mode, files)[0]], each.env, scratch)
        for path in files.values():
            run(["cat", str(path)], os.environ.copy(), scratch)  # the logs in the page cache
        table = {mode: Series({each.label: [] for each in builds}) for mode in modes}
        rounds = max([args.long_rounds if m in LONG else args.rounds for m in modes], default=0)
        for round_ in range(rounds):
            for mode in modes:
                if round_ >= (args.long_rounds if mode in LONG else args.rounds):
                    continue
                argv, stdin, reference = commands(mode, files)
                turn = round_ % len(builds)
                done = {each.label: run([*each.command, *argv], each.env, scratch, stdin)
                        for each in builds[turn:] + builds[:turn]}
                series = table[mode]
                first = done[builds[0].label]
                for label, result in done.items():
                    series.runs[label].append(result)
                    series.ratios.setdefault(label, []).append((result.wall / first.wall, result.cpu / first.cpu))
                if reference is not None:
                    series.loop.append(run([*loop, str(reference)], builds[-1].env, scratch))
        print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"{'mode':12} {'build':10} {'n':>3} {'wall s':>8} {'ratio':>7} {'CPU s':>8} {'ratio':>7}  output")
        for mode in modes:
            report(mode, table[mode], builds)
            if args.show_diff:
                _show_diff(mode, files, builds)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _show_diff(mode: str, files: dict[str, Path], builds: list[Build]) -> None:
    """The first line where a build's stdout differs from the reference's, each run once more."""
    argv, stdin, _ = commands(mode, files)
    texts = {}
    for each in builds:
        done = subprocess.run([*each.command, *argv], input=stdin, capture_output=True, env=each.env,
                              cwd=scratch_of(each), check=False)
        texts[each.label] = done.stdout.decode(errors="replace").splitlines()
    first = texts[builds[0].label]
    for each in builds[1:]:
        mine = texts[each.label]
        for number, (a, b) in enumerate(zip(first, mine, strict=False), 1):
            if a != b:
                print(f"{'':12} {each.label} line {number}:\n{'':14}ref {a[:200]}\n{'':14}new {b[:200]}")
                break
        else:
            if len(first) != len(mine):
                print(f"{'':12} {each.label}: {len(first)} lines against {len(mine)}")


def scratch_of(each: Build) -> Path:
    """The scratch folder a build runs in (its cache's parent)."""
    return Path(each.env["ASMCFG_CACHE_DIR"]).parent


if __name__ == "__main__":
    main()
