"""A log's compiler tasks found in one pass and read with the units that need them give the records a whole read
of the log gives, in the same order."""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from asmcfg.dialects.logcompilation import tasks
from asmcfg.dialects.logcompilation.inline import read_log
from asmcfg.dialects.logcompilation.tasks import index_log
from asmcfg.model import TrapOrigin
from asmcfg.processes.child import Child
from asmcfg.render.json import jsonl_record
from asmcfg.run import parallel
from tests.conftest import DATA

LOGC = DATA / "logc"
LOGS = ["jdk17-Eq-inlined-trap.xml.gz", "inlining-jdk17.xml.gz", "javac-jdk17-excerpt.xml.gz", "jdk25-Tensor4D.xml.gz"]


def plain(name: str, tmp_path: Path, keep: int | None = None) -> Path:
    """The test log `name` uncompressed (tasks are read in place only from a plain file), cut to `keep` bytes."""
    data = gzip.decompress((LOGC / name).read_bytes())
    path = tmp_path / name.removesuffix(".gz")
    path.write_bytes(data if keep is None else data[:keep])
    return path


def assert_same_records(path: Path, chunk: int) -> None:
    whole = read_log(str(path))
    index = index_log(str(path), chunk)
    ids = sorted(set(whole.traps) | set(whole.inlines) | set(index.spans))
    traps, inlines = index.part(ids).records()
    assert {i: r for i, r in traps.items() if r} == whole.traps
    assert {i: r for i, r in inlines.items() if r} == whole.inlines


@pytest.mark.parametrize("name", LOGS)
@pytest.mark.parametrize("chunk", [997, 1 << 20])
def test_tasks_read_in_place_give_the_records_of_a_whole_read(name: str, chunk: int, tmp_path: Path) -> None:
    # 997-byte chunks put chunk ends inside tasks and inside their opening and closing lines
    assert_same_records(plain(name, tmp_path), chunk)


@pytest.mark.parametrize("name", LOGS)
def test_the_pass_over_the_log_notes_every_task_and_reads_none(name: str, tmp_path: Path) -> None:
    path = plain(name, tmp_path)
    index = index_log(str(path))
    text = path.read_bytes()
    assert sum(len(s) for s in index.spans.values()) == text.count(b"\n<task ")
    for compile_id, spans in index.spans.items():
        for span in spans:
            assert text[span.start : span.end].startswith(b"<task ")
            assert f"compile_id='{compile_id}'".encode() in text[span.start : text.index(b"\n", span.start)]
            assert text[: span.start].count(b"\n") + 1 == span.line
            # a task ends with its closing line, or with the log when it never closes (this excerpt's last)
            assert text[span.start : span.end].rstrip().endswith(b"</task>") or span.end == len(text)
    # what was read is outside the tasks: only traps that fired at run time
    assert index.outside.inlines == {}
    assert all(t.origin is TrapOrigin.RUNTIME for records in index.outside.traps.values() for t in records)


def test_runtime_traps_and_the_compilers_own_come_in_log_order(tmp_path: Path) -> None:
    path = plain("jdk17-Eq-inlined-trap.xml.gz", tmp_path)
    index = index_log(str(path))
    fired = {i for i, records in index.outside.traps.items() if records}
    assert fired  # this log has traps that fired, and the compilations that planted them
    traps, _ = index.part(sorted(fired | set(index.spans))).records()
    for compile_id in fired:
        lines = [t.line for t in traps[compile_id]]
        assert lines == sorted(lines)
        assert {t.origin for t in traps[compile_id]} == {TrapOrigin.PARSE, TrapOrigin.RUNTIME}


def test_a_log_that_ends_inside_a_task_keeps_the_records_before_the_end(tmp_path: Path) -> None:
    data = gzip.decompress((LOGC / "inlining-jdk17.xml.gz").read_bytes())
    last_task = data.rindex(b"\n<task ")
    keep = data.index(b"<inline_success", last_task) + 200  # mid-line, after a decision of the last task
    assert_same_records(plain("inlining-jdk17.xml.gz", tmp_path, keep), 997)


class Counted(Child[Any]):
    """A forked index that counts the results taken from it."""

    taken = 0

    def result(self) -> Any:
        found = super().result()
        Counted.taken += found is not None
        return found


class Failing(Child[Any]):
    """A forked index whose process fails."""

    def __init__(self, function: Callable[[Any], None], name: str, *, forked: bool = False) -> None:
        super().__init__(_fail, name, forked=forked)


def _fail(send: Callable[[Any], None]) -> None:
    send(os.stat("/no/such/file"))


@pytest.mark.parametrize("name", LOGS)
def test_a_log_indexed_on_two_cores_gives_the_index_of_one(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = plain(name, tmp_path)
    size = path.stat().st_size
    whole = index_log(str(path))  # a small log: indexed in one process
    monkeypatch.setattr(tasks, "Child", Counted)
    Counted.taken = 0
    cuts = range(0, size, max(size // 29, 1))  # the forked process starts between tasks, inside them, inside traps
    for cut in cuts:
        split = index_log(str(path), 997, cut)
        assert split.outside == whole.outside
        assert split.spans == whole.spans
    # the forked process's part was taken where the first part ends outside any task or trap, and only there
    assert 0 < Counted.taken < len(cuts)


def test_a_failed_forked_index_is_made_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = plain("jdk17-Eq-inlined-trap.xml.gz", tmp_path)
    whole = index_log(str(path))
    monkeypatch.setattr(tasks, "Child", Failing)
    split = index_log(str(path), cut=path.stat().st_size // 3)
    assert (split.outside, split.spans) == (whole.outside, whole.spans)


def test_a_log_is_indexed_here_when_no_process_can_be_forked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = plain("inlining-jdk17.xml.gz", tmp_path)
    whole = index_log(str(path))

    def refuse() -> int:
        raise BlockingIOError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refuse)
    split = index_log(str(path), cut=path.stat().st_size // 2)
    assert (split.outside, split.spans) == (whole.outside, whole.spans)
    assert sum(len(s) for s in split.spans.values()) > 10


def test_a_compressed_log_is_read_whole(tmp_path: Path) -> None:
    index = index_log(str(LOGC / "jdk17-Tensor4D.xml.gz"))
    assert index.spans == {}
    assert index.outside == read_log(str(LOGC / "jdk17-Tensor4D.xml.gz"))


@pytest.mark.parametrize("name", ["jdk17-Eq-inlined-trap.xml.gz", "inlining-jdk17.xml.gz"])
def test_a_plain_log_run_on_two_processes_gives_the_records_of_the_compressed_one(name: str, tmp_path: Path) -> None:
    # the compressed log's records are all read ahead; the plain log's tasks are read by the units
    want = list(parallel.analyse_file(str(LOGC / name), jsonl_record, workers=1))
    got = list(parallel.analyse_file(str(plain(name, tmp_path)), jsonl_record, workers=2))
    assert [without_source(r) for r in got] == [without_source(r) for r in want]
    # the log's evidence reached the compilations: trap records checked against the code, inlining decisions
    assert any(r["trap_log"]["records"] for r in got) or "trap" not in name
    assert any(r["inlining"] for r in got)


def without_source(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "source"}
