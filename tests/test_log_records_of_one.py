"""The records of one compile id, found by a search for it (`logcompilation.one`), are those the whole log's index
gives it; and a task a compiler thread's log left open (a `<fragment>`) does not take the next task's records."""

from __future__ import annotations

import gzip
import lzma
import mmap
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from asmcfg.dialects import passes
from asmcfg.dialects.logcompilation.inline import read_log
from asmcfg.dialects.logcompilation.one import index_one, needle
from asmcfg.dialects.logcompilation.tasks import index_log
from asmcfg.dialects.passes import lines_with
from asmcfg.model import TrapOrigin
from asmcfg.render.json import jsonl_record
from asmcfg.run import parallel
from tests.conftest import DATA

RECOMPILE = DATA / "record" / "jdk17-Recompile" / "jvmpid5529.xml.xz"
"""A JDK 17 run whose C2 thread's log ends in a `<fragment>` with task 6 open; task 7 comes next, in the other
compiler thread's log."""
LOGS = [DATA / "logc" / name for name in ("jdk17-Eq-inlined-trap.xml.gz", "inlining-jdk17.xml.gz",
                                          "javac-jdk17-excerpt.xml.gz", "jdk25-Tensor4D.xml.gz")] + [RECOMPILE]


def plain(source: Path, tmp_path: Path) -> Path:
    data = source.read_bytes()
    path = tmp_path / source.name.removesuffix(".gz").removesuffix(".xz")
    path.write_bytes(gzip.decompress(data) if source.suffix == ".gz" else lzma.decompress(data))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("source", LOGS, ids=[p.name for p in LOGS])
def test_one_compile_ids_records_are_those_of_the_whole_index(source: Path, tmp_path: Path) -> None:
    path = plain(source, tmp_path)
    whole = index_log(str(path))
    text = path.read_bytes()
    texts = text.split(b"\n")
    starts = [0]
    for line in texts[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    ids = sorted({int(m) for m in re.findall(rb"<nmethod compile_id='(\d+)'", text)})
    assert ids
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        for compile_id in ids:
            lines = lines_with(view, needle(compile_id))
            # every line naming it, numbered as the file counts them
            assert lines == [(starts[n], n + 1) for n, line in enumerate(texts) if needle(compile_id) in line]
            one = index_one(view, str(path), compile_id, lines)
            assert one is not None
            assert one.part([compile_id]).records() == whole.part([compile_id]).records(), compile_id


def test_a_task_left_open_by_a_fragment_ends_where_the_next_task_opens(tmp_path: Path) -> None:
    path = str(plain(RECOMPILE, tmp_path))
    traps, _ = index_log(path).part([7]).records()
    # task 7 (`Recompile::osrLoop` at OSR bci 5) plants four traps; one of its traps fired at run time (line 870)
    assert [(t.line, t.reason, t.origin) for t in traps[7]] == [
        (870, "unstable_if", TrapOrigin.RUNTIME),
        (30358, "predicate", TrapOrigin.PARSE),
        (30359, "profile_predicate", TrapOrigin.PARSE),
        (30360, "loop_limit_check", TrapOrigin.PARSE),
        (30363, "unstable_if", TrapOrigin.PARSE),
    ]
    assert traps[7] == read_log(path).traps[7]
    # the run on two processes reads them with compilation 7, as one process does
    records = {r["compile_id"]: r["trap_log"] for r in parallel.analyse_file(path, jsonl_record, workers=2)}
    assert records[7]["records"] == 4 and records[7]["fired"] == 1


def test_a_log_not_laid_out_as_hotspot_writes_it_is_left_to_the_whole_index(tmp_path: Path) -> None:
    path = plain(DATA / "logc" / "jdk17-Eq-inlined-trap.xml.gz", tmp_path)
    text = path.read_bytes()
    fired = text.index(b"<uncommon_trap thread=")
    element = text[fired : text.index(b"</uncommon_trap>\n", fired) + len(b"</uncommon_trap>\n")]
    compile_id = int(element.split(b"compile_id='")[1].split(b"'")[0])
    after_task = text.index(b"</task>\n") + len(b"</task>\n")
    path.write_bytes(text[:after_task] + element + text[after_task:])  # a fired trap after a task line
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        assert index_one(view, str(path), compile_id, lines_with(view, needle(compile_id))) is None


def test_an_indented_log_is_left_to_the_whole_index(tmp_path: Path) -> None:
    # a JMH saveLog indents every line of the fork's log: the index reads its tasks as text, not as spans
    path = plain(DATA / "perfasm" / "jdk25-DevBench" / "perfasm-savelog-switchRun.log.xz", tmp_path)
    traps, _ = index_log(str(path)).part([568]).records()
    assert len(traps[568]) == 28 and {t.reason for t in traps[568]} >= {"null_check", "range_check", "predicate"}
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        assert index_one(view, str(path), 568, lines_with(view, needle(568))) is None


@pytest.mark.parametrize("count_bytes", [mmap.PAGESIZE, 3 * mmap.PAGESIZE, 16 * mmap.PAGESIZE])  # madvise: pages
def test_a_pass_shared_with_a_forked_process_finds_what_one_process_finds(
    count_bytes: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = plain(RECOMPILE, tmp_path)
    text = path.read_bytes()
    offsets = [0, 1, len(text) // 2, text.rindex(b"\n<task ") + 1, len(text)]
    counted = [text[:at].count(b"\n") + 1 for at in offsets]
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        alone = {n: lines_with(view, needle(n)) for n in (1, 7, 175)}
        assert [passes.line_of(view, at) for at in offsets] == counted
        monkeypatch.setattr(passes, "COUNT_BYTES", count_bytes)
        monkeypatch.setattr(passes, "SHARED_BYTES", 0)  # every pass shared, its middle on a chunk boundary
        monkeypatch.setattr(passes, "Child", Counting)
        Counting.made = 0
        assert {n: lines_with(view, needle(n)) for n in (1, 7, 175)} == alone
        assert [passes.line_of(view, at) for at in offsets] == counted
        assert Counting.made == 3 + 3  # each pass over more than a chunk was shared: three searches, three counts
    assert all(alone.values())


class Counting(passes.Child[Any]):
    """A forked pass that counts how many were made."""

    made = 0

    def __init__(self, function: Callable[[Any], None], name: str, *, forked: bool = False) -> None:
        Counting.made += 1
        super().__init__(function, name, forked=forked)
