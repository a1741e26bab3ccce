"""A whole-log run of full records gives the heap's free memory back to the system after every fourth batch each
process analyses, and its records are the same; where the C library has no `malloc_trim`, nothing is trimmed and
the records are still the same.

The C library is a stand-in here (`ctypes.CDLL` replaced), so the tests say the same on glibc, musl or macOS."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA

from asmcfg.render.jsonl import record_line
from asmcfg.run import memory, parallel

LOG = DATA / "logc" / "javac-jdk17-excerpt.xml.gz"


def _count_batches(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """One entry per batch the run reports done (the real `batch_done` still runs)."""
    batches: list[None] = []
    real_done = memory.batch_done

    def batch_done() -> None:
        batches.append(None)
        real_done()

    monkeypatch.setattr(memory, "batch_done", batch_done)
    return batches


def _full_records(tmp_path: Path) -> tuple[list[str], parallel.RunStats]:
    """The full records of LOG from one in-process whole-log run, and its counts."""
    out = tmp_path / "full.jsonl"
    with out.open("w") as sink:
        stats = parallel.analyse_to_jsonl(str(LOG), sink, record_line, workers=1, large_records=True)
    return out.read_text().splitlines(), stats


@pytest.mark.slow
def test_full_records_trim_the_heap_every_fourth_batch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    plain = list(parallel.analyse_file(str(LOG), record_line, workers=1))
    batches = _count_batches(monkeypatch)
    trimmed_after: list[int] = []
    opened: list[str | None] = []

    class Libc:
        """A C library with `malloc_trim`: each call records how many batches were done before it."""

        def malloc_trim(self, pad: int) -> int:
            assert pad == 0  # keep no extra free memory at the top of the heap
            trimmed_after.append(len(batches))
            return 1

    def cdll(name: str | None, *args: Any, **kwargs: Any) -> Libc:
        opened.append(name)
        return Libc()

    monkeypatch.setattr(ctypes, "CDLL", cdll)
    lines, stats = _full_records(tmp_path)
    assert lines == plain and stats.analysed == len(lines) > 0
    assert opened == [None]  # the running process's own C library, looked up once per run
    assert len(batches) >= 2 * memory.EVERY
    assert trimmed_after == list(range(memory.EVERY, len(batches) + 1, memory.EVERY))


def _no_library(name: str | None, *args: Any, **kwargs: Any) -> Any:
    raise OSError("no C library to open")


@pytest.mark.parametrize(
    "cdll",
    [lambda name, *args, **kwargs: object(), _no_library],
    ids=["library-without-malloc_trim", "no-library"],
)
def test_without_malloc_trim_nothing_is_trimmed_and_the_records_are_the_same(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cdll: Callable[..., Any]
) -> None:
    plain = list(parallel.analyse_file(str(LOG), record_line, workers=1))
    batches = _count_batches(monkeypatch)
    monkeypatch.setattr(ctypes, "CDLL", cdll)
    lines, stats = _full_records(tmp_path)
    assert lines == plain and stats.analysed == len(lines) > 0
    assert len(batches) >= memory.EVERY  # the batches that would have trimmed were done, without a C library call
    assert memory._trim is None
