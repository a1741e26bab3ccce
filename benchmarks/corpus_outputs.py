"""Write asmcfg's outputs for every corpus input, so two versions can be compared with `diff -r`.

Per input file: the DOT (`--all --dot`), the JSON (`--all --json`), the summary (stderr, NO_COLOR), the
`--list` table and the `--jsonl` lines, each with its exit code; with `--more`, also the default choice's DOT and
summary read from the file and from stdin (the main job) and the `--jsonl --facts` lines. Inputs are the files
under the corpus's hotspot/ and public/ folders (large/ is left out: it takes minutes), or the folders `--folders`
names; `--folders record` takes each recording under the corpus's record/runs/ as one input (a record folder),
its JVM's log as another, and `--tests` adds every file under this checkout's tests/data/ (record folders
included).

Each run's working directory is the input's output folder and its outputs are named relative to it, so that
the messages naming them read the same in any OUTDIR. `--python PY` runs `PY -m asmcfg` (the build installed in
PY's environment, for two builds side by side) instead of this checkout.

Run: python benchmarks/corpus_outputs.py OUTDIR [--corpus DIR] [--jobs N] [--folders hotspot,public,record]
         [--tests] [--more] [--python PY]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path("/work/shared/corpus")
FOLDERS = ("hotspot", "public")
NOT_INPUTS = {".java", ".py", ".md", ".json", ".gitignore"}
ASMCFG = [sys.executable, "-m", "asmcfg"]
ENV = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}


def inputs(corpus: Path, folders: list[str], tests: bool) -> list[tuple[str, Path]]:
    """(name, path) of every input: the files under the corpus's `folders` (a recording of record/runs/ as one
    input) and, with `tests`, under tests/data/; sorted."""
    found: list[tuple[str, Path]] = []
    roots = [(corpus, corpus / folder) for folder in folders]
    if tests:
        roots.append((ROOT / "tests", ROOT / "tests" / "data"))
    for base, root in roots:
        recordings = sorted({path.parent for path in root.rglob("jvmpid*.xml*")})
        found += [(f"{base.name}/{path.relative_to(base)}", path) for path in recordings]
        files = (path for path in root.rglob("*") if path.is_file() and not path.name.startswith("."))
        found += [(f"{base.name}/{path.relative_to(base)}", path) for path in files
                  if path.suffix not in NOT_INPUTS
                  and (path.name.startswith("jvmpid") or not any(path.is_relative_to(r) for r in recordings))]
    return sorted(found)


def run(args: list[str], out: Path, stdin: Path | None = None) -> None:
    """Run asmcfg with `args` in `out`'s folder; keep stdout, stderr and the exit code under `out`.*."""
    with open(stdin, "rb") if stdin is not None else open(os.devnull, "rb") as given:
        done = subprocess.run([*ASMCFG, *args], stdin=given, capture_output=True, env=ENV, cwd=out.parent,
                              timeout=900)
    out.with_suffix(".stdout").write_bytes(done.stdout)
    out.with_suffix(".stderr").write_bytes(done.stderr)
    out.with_suffix(".rc").write_text(f"{done.returncode}\n")


def outputs(name: str, path: Path, outdir: Path, more: bool) -> None:
    """All outputs of one input, in a folder named after its corpus path."""
    folder = outdir / name.replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    run([str(path), "--all", "--dot", "all.dot", "--json", "all.json"], folder / "summary")
    run([str(path), "--list"], folder / "list")
    run([str(path), "--jsonl", "-"], folder / "jsonl")
    if more:
        run([str(path), "--jsonl", "-", "--facts"], folder / "facts")
        run([str(path)], folder / "default")
        if path.is_file():
            run([], folder / "stdin", stdin=path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--folders", default=",".join(FOLDERS), help="the corpus's folders to read")
    parser.add_argument("--tests", action="store_true", help="every file under tests/data/ too")
    parser.add_argument("--more", action="store_true", help="the default choice (file and stdin) and --facts too")
    parser.add_argument("--python", help="run `PYTHON -m asmcfg` (the build of its environment)")
    args = parser.parse_args()
    if args.python:
        global ASMCFG, ENV
        ASMCFG = [args.python, "-m", "asmcfg"]
        ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"NO_COLOR": "1"}
    files = inputs(args.corpus, [f for f in args.folders.split(",") if f], args.tests)
    outdir = args.outdir.resolve()
    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(lambda each: outputs(each[0], each[1], outdir, args.more), files))
    written = sum(1 for path in outdir.rglob("*") if path.is_file())
    print(f"{len(files)} inputs, {written} files in {outdir}")


if __name__ == "__main__":
    main()
