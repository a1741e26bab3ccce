"""Reading, analysing and serializing a method leaves no reference cycles: each method's records are freed as soon
as its record is written, not when the garbage collector next runs (a whole-log run holds one method at a time
only if nothing keeps the last one alive). The compiled build's closures made such cycles once: mypyc keeps a
closure's variables in an object that the closure and the object refer to each other through."""

from __future__ import annotations

import contextlib
import gc
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA

from asmcfg.render.facts import facts_record
from asmcfg.render.jsonl import record_line
from asmcfg.run import parallel

INPUTS = [
    DATA / "logc" / "javac-jdk17-traps.xml.gz",
    DATA / "logc" / "jdk17-Tensor4D.xml.gz",
    DATA / "hsdis" / "jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz",
    DATA / "hsdis" / "jdk17-aarch64-RecOsr-print-hsdis.txt.gz",
]
"""Compilations with traps (in the code and in the log), loops, inlining decisions; x86 and AArch64."""


def run(path: Path) -> tuple[list[Any], list[Any]]:
    """The facts and the full records of every compilation of `path`, in this process."""
    return (list(parallel.analyse_file(str(path), facts_record, workers=1)),
            list(parallel.analyse_file(str(path), record_line, workers=1)))


@contextlib.contextmanager
def no_collector() -> Iterator[None]:
    """The collector off, and every unreachable object it finds afterwards kept in `gc.garbage`."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_a_run_over_a_log_leaves_no_garbage_in_cycles(path: Path) -> None:
    # a first run imports what this input needs: a slots dataclass leaves the class it replaced to the collector
    run(path)
    with no_collector():
        facts, lines = run(path)
        assert len(facts) == len(lines) > 0
        assert all(record["name"] and record["counts"]["instructions"] > 0 for record in facts)
        gc.collect()
        cycles = Counter(type(o).__name__ for o in gc.garbage)
        assert not cycles, cycles.most_common(5)
