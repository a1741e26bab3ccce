"""Write asmcfg's outputs for every corpus input, so two versions can be compared with `diff -r`.

Per input file: the DOT (`--all --dot`), the JSON (`--all --json`), the summary (stderr, NO_COLOR), the
`--list` table and the `--jsonl` lines, each with its exit code. Inputs are the files under the corpus's
hotspot/ and public/ folders (large/ is left out: it takes minutes).

Run: python benchmarks/corpus_outputs.py OUTDIR [--corpus DIR] [--jobs N]
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
NOT_INPUTS = {".java", ".py", ".md"}
ASMCFG = [sys.executable, "-m", "asmcfg"]


def inputs(corpus: Path) -> list[Path]:
    """Every input file under the corpus's hotspot/ and public/ folders, sorted."""
    found = (path for folder in FOLDERS for path in (corpus / folder).rglob("*") if path.is_file())
    return sorted(path for path in found if path.suffix not in NOT_INPUTS)


def run(args: list[str], out: Path) -> None:
    """Run asmcfg with `args`; keep stdout, stderr and the exit code under `out`.*."""
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([*ASMCFG, *args], capture_output=True, env=env, cwd=ROOT, timeout=600)
    out.with_suffix(".stdout").write_bytes(done.stdout)
    out.with_suffix(".stderr").write_bytes(done.stderr)
    out.with_suffix(".rc").write_text(f"{done.returncode}\n")


def outputs(path: Path, corpus: Path, outdir: Path) -> None:
    """All outputs of one input file, in a folder named after its corpus path."""
    folder = outdir / str(path.relative_to(corpus)).replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    dot, json_ = folder / "all.dot", folder / "all.json"
    run([str(path), "--all", "--dot", str(dot), "--json", str(json_)], folder / "summary")
    run([str(path), "--list"], folder / "list")
    run([str(path), "--jsonl", "-"], folder / "jsonl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    files = inputs(args.corpus)
    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(lambda path: outputs(path, args.corpus, args.outdir), files))
    written = sum(1 for path in args.outdir.rglob("*") if path.is_file())
    print(f"{len(files)} inputs, {written} files in {args.outdir}")


if __name__ == "__main__":
    main()
