"""Helpers for tests over the copied corpus files."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from asmcfg.cli import main

DATA = Path(__file__).parent / "data"
LARGE_COMPRESSED = 100_000
"""Bytes on disk above which a compressed sample (the BigMethod dumps, the perfasm savelogs, the javac excerpt) takes
seconds to read through the whole pipeline: tests over every sample mark those `slow`."""
HSDIS = DATA / "hsdis"
_HEADER = re.compile(r"Compiled method \((\w+)\)\s+\d+\s+(\d+)")
_CONSTANT_ROW = re.compile(r"^\s+0x[0-9a-f]+:\s+0x[0-9a-f]+")


def data_name(fact_file: str) -> str:
    """`hotspot/jdk17/Tensor4D/print-hsdis-att.txt` -> `jdk17-Tensor4D-print-hsdis-att.txt.gz`."""
    name = fact_file.removeprefix("hotspot/").replace("/", "-")
    return name if name.endswith(".gz") else name + ".gz"


def facts() -> list[dict[str, Any]]:
    """Every row of the copied facts.jsonl."""
    return [json.loads(line) for line in (DATA / "facts.jsonl").read_text().splitlines() if line.strip()]


def facts_by_file(keep: str) -> dict[str, list[dict[str, Any]]]:
    """Facts rows grouped by their file, for files whose path contains `keep`."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in facts():
        if keep in row["file"]:
            grouped.setdefault(row["file"], []).append(row)
    return grouped


def read_text(path: Path) -> str:
    """A copied corpus file as text."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as handle:  # type: ignore[operator]
        return handle.read()  # type: ignore[no-any-return]


def constant_rows(path: Path) -> Counter[int]:
    """Rows printed under `[Constant Pool]` per C2 compile id: data, not instructions."""
    rows: Counter[int] = Counter()
    compile_id = None
    in_pool = False
    for line in read_text(path).splitlines():
        header = _HEADER.search(line)
        if header:
            compile_id = int(header.group(2)) if header.group(1) == "c2" else None
        elif line.startswith("[Constant Pool"):
            in_pool = True
        elif in_pool and line.startswith("---"):
            in_pool = False
        elif in_pool and compile_id is not None and _CONSTANT_ROW.match(line):
            rows[compile_id] += 1
    return rows


def run_cli(*args: str) -> tuple[int, str, str]:
    """Run asmcfg in-process; (exit code, stdout, stderr)."""
    result = CliRunner().invoke(main, list(args), prog_name="asmcfg", catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def json_methods(*args: str) -> list[dict[str, Any]]:
    """The `methods` list of `asmcfg ARGS --json -`."""
    code, out, err = run_cli(*args, "--json", "-", "--quiet")
    assert code == 0, err
    document = json.loads(out)
    assert document["schema"] == 1
    return document["methods"]  # type: ignore[no-any-return]


def slow_when_large(paths: list[Path]) -> list[Any]:
    """`paths` as parameters, the large compressed ones marked `slow` (still run by default)."""
    return [
        pytest.param(path, marks=pytest.mark.slow)
        if path.suffix in (".gz", ".xz") and path.stat().st_size > LARGE_COMPRESSED else path
        for path in paths
    ]
