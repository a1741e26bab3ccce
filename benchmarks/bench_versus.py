"""Two builds of asmcfg side by side, run in turn, mode by mode: wall and CPU time as ratios new / old.

Each build is given as a virtual environment (or its `python`); its `asmcfg` script runs when the environment has
one, else `python -c` the launcher, both from a scratch working directory (no checkout on `sys.path`). The runs are
paired: each round runs every mode once with each build, the two back to back, the build that goes first
alternating from round to round, so that a ratio compares runs of the same seconds on a machine whose load moves.
Every figure is a median over the rounds: the wall and CPU seconds of each build, and the median of the
per-round ratios new / old. CPU is user + system time of the process and the processes it waited for (its
workers and forked searches), which other work on the machine disturbs less than the wall time.

Modes (`--modes`, comma-separated; each the command a user runs):
  stdin        `cat examples/c2-compiled-realTest.S | asmcfg` (the main job: DOT on stdout, summary on stderr)
  file         `asmcfg examples/c2-compiled-realTest.S`
  version      `asmcfg --version`
  list-text    `asmcfg javac-printassembly-jdk17.txt --list` (274 MB)
  list-xml     `asmcfg javac-logcompilation-jdk17.xml --list` (336 MB)
  facts        `asmcfg javac-logcompilation-jdk17.xml --jsonl - --facts` (336 MB)
  jsonl        `asmcfg javac-logcompilation-jdk17.xml --jsonl -`
  facts-small  `--jsonl - --facts` of the JavacLoop recording's log (64 MB, [MachCode] hex, no hsdis)
  jsonl-small  `--jsonl -` of the same log
The `--jsonl` modes also run a plain Python line loop over the same file in each round (with the new build's
interpreter), and give each build's time as a ratio to it (the standing goal: `--facts` of the 336 MB log at most
20x the loop). Every output goes to a pipe read here; the table says whether both builds wrote the same bytes
(the wording of a message may differ between builds: see `--show-diff`), and a build whose output changed from
one round to the next is reported.

The logs are unpacked from the corpus into --work once. The short modes run --rounds rounds, the whole-log ones
--long-rounds (interleaved with the short ones as long as both last). Runs have Python's output buffered and
modules compiled once, as a user's installed asmcfg has them, and a cache directory of their own per build.

Run: python benchmarks/bench_versus.py OLD NEW [--modes ...] [--rounds 10] [--long-rounds 3] [--quick]
  e.g. python benchmarks/bench_versus.py /work/venv-old /work/venv-speed --quick
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
LONG = ("list-text", "list-xml", "facts", "jsonl", "facts-small", "jsonl-small")
MODES = ("stdin", "file", "version", *LONG)
QUICK = ("stdin", "file", "version", "list-text", "facts-small")
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
    ratios: list[tuple[float, float]] = field(default_factory=list)
    """(wall, CPU) of new over old, per round."""


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
    if process.returncode != 0:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(argv)}\n{b''.join(err).decode(errors='replace')}")
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
    log = files["small" if mode.endswith("-small") else "xml"]
    facts = ["--facts"] if mode.startswith("facts") else []
    return [str(log), "--jsonl", "-", *facts], None, log


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(mode: str, series: Series, old: Build, new: Build) -> None:
    """One mode's medians and ratios, and whether the builds wrote the same bytes."""
    a, b = series.runs[old.label], series.runs[new.label]
    wall_a, wall_b = median([r.wall for r in a]), median([r.wall for r in b])
    cpu_a, cpu_b = median([r.cpu for r in a]), median([r.cpu for r in b])
    ratio_wall = median([w for w, _ in series.ratios])
    ratio_cpu = median([c for _, c in series.ratios])
    same = "same" if a[-1].digest == b[-1].digest else f"differ ({a[-1].size} / {b[-1].size} bytes)"
    print(f"{mode:12} {len(a):>3} {wall_a:8.3f} {wall_b:8.3f} {ratio_wall:6.2f}x {cpu_a:8.3f} {cpu_b:8.3f} "
          f"{ratio_cpu:6.2f}x  {same}", flush=True)
    for build_ in (old, new):
        digests = {r.digest for r in series.runs[build_.label]}
        if len(digests) > 1:
            print(f"{'':12} {build_.label}'s output changed between rounds ({len(digests)} different)")
    if series.loop:
        loop = median([r.wall for r in series.loop])
        print(f"{'':12} line loop {loop:.3f} s: old {wall_a / loop:.1f}x, new {wall_b / loop:.1f}x "
              f"(per round, new: {median([r.wall / x.wall for r, x in zip(b, series.loop, strict=True)]):.1f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", help="the reference build: a virtual environment or its python")
    parser.add_argument("new", help="the build measured against it")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated subset of {','.join(MODES)}")
    parser.add_argument("--quick", action="store_true", help=f"only {','.join(QUICK)}")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of the short modes")
    parser.add_argument("--long-rounds", type=int, default=3, help="rounds of the whole-log modes")
    parser.add_argument("--work", type=Path, default=Path("/tmp/asmcfg-bench"), help="where the logs are unpacked")
    parser.add_argument("--show-diff", action="store_true", help="print both outputs' first differing line")
    args = parser.parse_args()
    modes = list(QUICK if args.quick else args.modes.split(","))
    unknown = set(modes) - set(MODES)
    if unknown:
        parser.error(f"unknown modes: {', '.join(sorted(unknown))}")
    scratch = Path(tempfile.mkdtemp(prefix="asmcfg-versus-"))
    old, new = build("old", args.old, scratch), build("new", args.new, scratch)
    needed = {m.removeprefix("list-") for m in modes if m.startswith("list-")}
    needed |= {"small" if m.endswith("-small") else "xml" for m in modes if m.startswith(("facts", "jsonl"))}
    files = {name: plain(LARGE[name], args.work) for name in sorted(needed)}
    loop = [new.python, "-c", LINE_LOOP]
    try:
        print(f"cores: {os.cpu_count()}  load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for each in (old, new):
            version = subprocess.run([each.python, "-c", "import sys; print(sys.version.split()[0])"],
                                     capture_output=True, text=True, check=True).stdout.strip()
            print(f"{each.label}: {' '.join(each.command[:1])} (Python {version})")
            for mode in ("version", "file"):  # the warm-up: modules compiled, the example in the page cache
                run([*each.command, *commands(mode, files)[0]], each.env, scratch)
        for path in files.values():
            run(["cat", str(path)], os.environ.copy(), scratch)  # the logs in the page cache
        table: dict[str, Series] = {mode: Series({old.label: [], new.label: []}) for mode in modes}
        rounds = max([args.long_rounds if m in LONG else args.rounds for m in modes], default=0)
        for round_ in range(rounds):
            for mode in modes:
                if round_ >= (args.long_rounds if mode in LONG else args.rounds):
                    continue
                argv, stdin, reference = commands(mode, files)
                pair = (old, new) if round_ % 2 == 0 else (new, old)
                done = {each.label: run([*each.command, *argv], each.env, scratch, stdin) for each in pair}
                series = table[mode]
                for label, result in done.items():
                    series.runs[label].append(result)
                series.ratios.append((done[new.label].wall / done[old.label].wall,
                                      done[new.label].cpu / done[old.label].cpu))
                if reference is not None:
                    series.loop.append(run([*loop, str(reference)], new.env, scratch))
        print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"{'mode':12} {'n':>3} {'old wall':>8} {'new wall':>8} {'new/old':>7} {'old CPU':>8} {'new CPU':>8} "
              f"{'new/old':>7}  outputs")
        for mode in modes:
            report(mode, table[mode], old, new)
            if args.show_diff:
                _show_diff(mode, files, old, new, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _show_diff(mode: str, files: dict[str, Path], old: Build, new: Build, scratch: Path) -> None:
    """The first line where the two builds' stdout differ, run once more each."""
    argv, stdin, _ = commands(mode, files)
    texts = []
    for each in (old, new):
        done = subprocess.run([*each.command, *argv], input=stdin, capture_output=True, env=each.env, cwd=scratch)
        texts.append(done.stdout.decode(errors="replace").splitlines())
    for number, (a, b) in enumerate(zip(*texts, strict=False), 1):
        if a != b:
            print(f"{'':12} line {number}:\n{'':14}old {a[:200]}\n{'':14}new {b[:200]}")
            return
    if len(texts[0]) != len(texts[1]):
        print(f"{'':12} {len(texts[0])} lines against {len(texts[1])}")


if __name__ == "__main__":
    main()
