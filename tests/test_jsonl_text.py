"""Full `--jsonl` records are written as text straight from the analysis (`render.jsonl`): every record of every
copied input is the text the JSON encoder makes of the record's dict, and the fields the direct writer handles
apart (relocations, scopes, frames with and without a line, implicit exceptions, patching stubs, traps, measured
heat) all occur in these inputs."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, slow_when_large

from asmcfg.errors import InputError
from asmcfg.model import Analysis
from asmcfg.render.json import jsonl_record
from asmcfg.render.jsonl import record_line
from asmcfg.run import parallel

INPUTS = sorted(
    path for folder in ("hsdis", "nohsdis", "logc", "perfasm", "public", "diff")
    for path in (DATA / folder).rglob("*") if path.is_file() and path.suffix not in {".md", ".java"}
)


def both(result: Analysis) -> dict[str, Any]:
    """The record's text from the dict and from the direct writer."""
    return {"encoded": json.dumps(jsonl_record(result), separators=(",", ":")), "direct": record_line(result)}


NOT_CODE = {
    "facts.json",
    "toobig-perfasm-console.txt",
    "perfasm-savelog-switchRun-compile568.log",
    "mmpataki__tensor.benchmark__observations__p1-baseline-and-jit-compilers__benchmark_output.txt",
}
"""Copied inputs that hold no compiled method asmcfg reads (facts, console output, an XML excerpt)."""


@functools.cache
def records(path: Path) -> list[dict[str, Any]]:
    return list(parallel.analyse_file(str(path), both, workers=1))


@pytest.mark.parametrize("path", slow_when_large(INPUTS), ids=lambda p: str(p.relative_to(DATA)))
def test_direct_text_equals_the_encoded_record(path: Path) -> None:
    try:
        found = records(path)
    except InputError:
        assert path.name in NOT_CODE
        return
    assert found
    for record in found:
        assert record["direct"] == record["encoded"]


@pytest.mark.slow
def test_the_inputs_hold_every_field_the_direct_writer_handles_apart() -> None:
    seen: set[str] = set()
    for name in ("hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz", "nohsdis", "perfasm", "logc"):
        paths = [DATA / name] if (DATA / name).is_file() else [
            p for p in INPUTS if p.is_relative_to(DATA / name) and p.name not in NOT_CODE]
        for path in paths:
            for record in records(path):
                method = json.loads(record["direct"])
                for block in method["blocks"]:
                    seen.update(key for ins in block["instructions"] for key in ins)
                    seen.update(f"frame line {f['line'] is None}" for ins in block["instructions"]
                                for f in ins.get("frames", ()))
                    seen.update(f"block {key}" for key, value in block.items() if value)
    assert {"relocs", "bytecode", "frames", "implicit_exception", "patching_stub", "heat"} <= seen
    assert {"frame line True", "frame line False", "block trap", "block source", "block heat"} <= seen
