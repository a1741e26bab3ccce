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
LARGE_COMPRESSED = 55_000
"""Bytes on disk above which a compressed sample (the BigMethod dumps, the perfasm savelogs, the javac excerpts, the
larger record folders' logs) takes seconds to read through the whole pipeline: tests over every sample mark those
`slow`."""
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


_INSTRUCTION = re.compile(r"^\s+0x[0-9a-f]+:\s+([a-z][\w.]*)\s*(.*)")
_UNSIGNED = frozenset({"jae", "jnb", "jb", "jnae", "ja", "jnbe", "jbe", "jna", "jc", "jnc",
                       "b.hs", "b.lo", "b.hi", "b.ls", "b.cs", "b.cc"})
_REQUEST = re.compile(r"(?:\$(0x[0-9a-f]+),\s*%esi|\besi,\s*(0x[0-9a-f]+)|\bw1,\s*#(0x[0-9a-f]+|\d+))")
_RANGE_CHECK = 3
"""HotSpot's `Reason_range_check` (JDK 17 and 25)."""


def not_taken_range_checks(path: Path) -> Counter[int]:
    """Per C2 compile id, the unsigned branches whose not-taken side runs straight (no branch, jump, call or
    return) into an UncommonTrapBlob call whose trap request names range_check: `cmp; jb <body>`, then the trap.
    facts.jsonl counts the taken side only."""
    found: Counter[int] = Counter()
    compile_id = None
    lines = read_text(path).splitlines()
    for n, line in enumerate(lines):
        header = _HEADER.search(line)
        if header:
            compile_id = int(header.group(2)) if header.group(1) == "c2" else None
            continue
        ins = _INSTRUCTION.match(line)
        if compile_id is not None and ins and ins.group(1) in _UNSIGNED and _traps_after(lines, n + 1) == _RANGE_CHECK:
            found[compile_id] += 1
    return found


def _traps_after(lines: list[str], start: int) -> int | None:
    """The trap reason of the UncommonTrapBlob call that straight-line code from line `start` reaches, or None."""
    request = None
    for n in range(start, min(start + 40, len(lines))):
        ins = _INSTRUCTION.match(lines[n])
        if not ins:
            continue
        mnemonic, rest = ins.groups()
        value = _REQUEST.search(rest)
        if value and mnemonic in ("movl", "mov", "movn"):
            number = int(next(v for v in value.groups() if v), 0)
            request = ~number & 0xFFFFFFFF if mnemonic == "movn" else number
        if mnemonic.startswith(("j", "b", "call", "ret", "cb", "tb")):
            end = n + 1
            while end < len(lines) and end < n + 8 and not _INSTRUCTION.match(lines[end]):
                end += 1
            comments = " ".join(lines[n:end])
            if mnemonic.startswith(("call", "bl")) and "UncommonTrapBlob" in comments and request is not None:
                return (~request & 0xFFFFFFFF) >> 3 & 31
            return None
    return None


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
    """`paths` as parameters, the large compressed ones marked `slow` (left to `-m slow`)."""
    return [
        pytest.param(path, marks=pytest.mark.slow)
        if path.suffix in (".gz", ".xz") and path.stat().st_size > LARGE_COMPRESSED else path
        for path in paths
    ]


_STATIC_METHOD = re.compile(r"static \w+ (\w+)\(")


def source_marks(source: Path, mark: re.Pattern[str]) -> dict[tuple[str, ...], tuple[str, int]]:
    """The marks (`// FIND …`, `// TWIN …`) of a twin program's source `Class.java`: the groups of `mark` on a line
    (an absent one as "") → `Class::method`, the static method holding that line, and the line's number."""
    marks, method = {}, ""
    for number, text in enumerate(source.read_text().splitlines(), 1):
        found = _STATIC_METHOD.search(text)
        if found:
            method = found.group(1)
        marked = mark.search(text)
        if marked:
            marks[tuple(group or "" for group in marked.groups())] = (f"{source.stem}::{method}", number)
    return marks
