"""A whole-log run of full records gives the heap's free memory back to the system after every fourth batch each
process analyses, and its records are the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import DATA

from asmcfg.render.jsonl import record_line
from asmcfg.run import memory, parallel

LOG = DATA / "logc" / "javac-jdk17-excerpt.xml.gz"


def test_full_records_trim_the_heap_every_fourth_batch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    plain = list(parallel.analyse_file(str(LOG), record_line, workers=1))
    trims: list[int] = []
    batches: list[None] = []
    real_start, real_done = memory.start, memory.batch_done

    def start() -> None:
        real_start()
        assert memory._trim is not None  # glibc's malloc_trim, found
        monkeypatch.setattr(memory, "_trim", lambda pad: trims.append(pad) or 1)

    def batch_done() -> None:
        batches.append(None)
        real_done()

    monkeypatch.setattr(memory, "start", start)
    monkeypatch.setattr(memory, "batch_done", batch_done)
    out = tmp_path / "full.jsonl"
    with out.open("w") as sink:
        stats = parallel.analyse_to_jsonl(str(LOG), sink, record_line, workers=1, large_records=True)
    lines = out.read_text().splitlines()
    assert lines == plain and stats.analysed == len(lines) > 0
    assert len(batches) >= memory.EVERY
    assert trims == [0] * (len(batches) // memory.EVERY)
