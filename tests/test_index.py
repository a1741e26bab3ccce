"""The header index of a plain file, searched where the file is mapped into memory, finds what the stream finds."""

from __future__ import annotations

import gzip
import io
import mmap
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import asmcfg
from asmcfg.dialects import index
from asmcfg.dialects.index import index_file, index_stream
from asmcfg.errors import InputError
from asmcfg.model import Compiler
from asmcfg.processes import child, start
from asmcfg.render import listing
from asmcfg.run.compilations import Compilation
from asmcfg.sources.split import mapped
from tests.conftest import DATA

LOGC = DATA / "logc"
SAMPLES = ["hsdis-jdk17-Tensor4D.txt.gz", "hsdis-aarch64-RecOsr.txt.gz", "nohsdis-jdk17-Tensor4D.txt.gz",
           "javac-jdk17-excerpt.xml.gz", "jdk25-Tensor4D.xml.gz"]


def plain_copy(name: str, tmp_path: Path) -> tuple[Path, bytes]:
    data = gzip.decompress((LOGC / name).read_bytes())
    path = tmp_path / name.removesuffix(".gz")
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("buffer", [index.BUFFER, 50_000, 7_000])
def test_the_mapped_file_gives_the_records_of_the_stream(
    name: str, buffer: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, data = plain_copy(name, tmp_path)
    with mapped(str(path)) as view:
        assert view is not None and len(view) == len(data)
    monkeypatch.setattr(index, "BUFFER", buffer)
    streamed = list(index_stream(io.BytesIO(data)))
    assert list(index_file(str(path))) == streamed == list(index_file(str(LOGC / name)))
    assert streamed and all(r.code_size for r in streamed if r.printed)


def test_mapped_offsets_are_the_header_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, data = plain_copy("hsdis-jdk25-Switches.txt.gz", tmp_path)
    monkeypatch.setattr(index, "BUFFER", 4096)  # windows shorter than a method: headers near their edges
    records = list(index_file(str(path)))
    assert len(records) == data.count(b"\nCompiled method (") + data.startswith(b"Compiled method (")
    for record in records:
        line = data[record.offset : data.index(b"\n", record.offset)].decode()
        assert line.startswith("Compiled method (") and f" {record.compile_id} " in line
        assert record.method in line and record.compiler in (Compiler.C1, Compiler.C2)


def test_the_meter_counts_every_byte_of_a_mapped_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, data = plain_copy("hsdis-jdk17-Tensor4D.txt.gz", tmp_path)
    window = 3 * mmap.PAGESIZE  # windows of the mapped file start on page boundaries
    monkeypatch.setattr(index, "BUFFER", window)
    counted: list[int] = []
    assert list(index_file(str(path), counted.append))
    assert sum(counted) == len(data) and len(counted) == -(-len(data) // window)


def test_compressed_empty_and_stdin_are_not_mapped(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    for path in (str(LOGC / "hsdis-jdk17-Tensor4D.txt.gz"), str(empty), "-", str(tmp_path)):
        with mapped(path) as view:
            assert view is None


def test_index_rows_written_in_batches_are_the_rows_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    records = list(asmcfg.open(str(LOGC / "javac-jdk17-excerpt.xml.gz")).indexed())
    one_by_one = io.StringIO()
    monkeypatch.setattr(listing, "_BATCH", 1)
    assert listing.write_index(iter(records), one_by_one) == len(records)
    monkeypatch.setattr(listing, "_BATCH", 3)
    batched = io.StringIO()
    assert listing.write_index(iter(records), batched) == len(records)
    assert batched.getvalue() == one_by_one.getvalue()
    rows = one_by_one.getvalue().splitlines()[1:]
    assert [int(row.split()[1]) for row in rows] == [r.compile_id for r in records] and len(records) > 3


def test_rows_found_before_the_input_ends_badly_are_written(monkeypatch: pytest.MonkeyPatch) -> None:
    records = list(asmcfg.open(str(LOGC / "hsdis-jdk17-Tensor4D.txt.gz")).indexed())

    def ending_badly() -> Iterator[Compilation]:
        yield from records[:2]
        raise InputError("input ends badly: truncated", "x.gz")

    out = io.StringIO()
    with pytest.raises(InputError):
        listing.write_index(ending_badly(), out)
    assert [row.split()[-1] for row in out.getvalue().splitlines()[1:]] == [r.method for r in records[:2]]


def _cuts(data: bytes, needle: bytes) -> dict[str, int]:
    """Cut points around the second header of `data`: in its needle, in its line, at the line's start, one byte
    before it, in its section table; and the ends of the file."""
    line = data.index(b"\n" + needle, data.index(needle) + 1) + 1
    return {
        "in the needle": line + 4, "in the header line": line + len(needle) + 12, "at the line": line,
        "before the line": line - 1, "in the section table": data.index(b"\n", line) + 20, "at the start": 0,
        "at the end": len(data),
    }


@pytest.mark.parametrize(("name", "needle"), [("hsdis-jdk17-Tensor4D.txt.gz", index.HEADER),
                                              ("hsdis-jdk25-Switches.txt.gz", index.HEADER),
                                              ("javac-jdk17-excerpt.xml.gz", b"<nmethod compile_id="),
                                              ("javac-jdk17-excerpt.xml.gz", index.HEADER)])
@pytest.mark.parametrize("buffer", [index.BUFFER, 3 * mmap.PAGESIZE])
def test_the_split_search_gives_the_records_of_the_serial_one(
    name: str, needle: bytes, buffer: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, data = plain_copy(name, tmp_path)
    monkeypatch.setattr(index, "BUFFER", buffer)  # small: each part is searched in several windows
    serial = list(index_file(str(path)))
    offsets = [r.offset for r in serial]
    assert len(serial) > 5 and offsets == sorted(set(offsets))
    for where, cut in _cuts(data, needle).items():
        assert list(index_file(str(path), cut=cut)) == serial, where


def test_the_forked_process_parses_the_headers_from_the_cut_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, data = plain_copy("hsdis-jdk25-Switches.txt.gz", tmp_path)
    serial = list(index_file(str(path)))
    cut = _cuts(data, index.HEADER)["in the needle"]
    parsed_by = tmp_path / "parsed"
    parse = index.header_fields

    def noted(text: str) -> object:
        with parsed_by.open("a") as out:
            out.write(f"{os.getpid()} {text.split()[4]}\n")  # which process parsed which compile id
        return parse(text)

    monkeypatch.setattr(index, "header_fields", noted)
    assert list(index_file(str(path), cut=cut)) == serial
    parsed = [line.split() for line in parsed_by.read_text().splitlines()]
    here = [int(i) for pid, i in parsed if int(pid) == os.getpid()]
    forked = [int(i) for pid, i in parsed if int(pid) != os.getpid()]
    assert here == [r.compile_id for r in serial if r.offset < cut] and len(here) >= 2  # the cut header is here
    assert forked == ([r.compile_id for r in serial if r.offset >= cut] if start.FORK else [])
    assert len(forked) >= 2 or not start.FORK


def test_what_a_failed_forked_process_did_not_send_is_searched_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, data = plain_copy("javac-jdk17-excerpt.xml.gz", tmp_path)
    monkeypatch.setattr(index, "BUFFER", 16 * mmap.PAGESIZE)
    serial = list(index_file(str(path)))
    here, parse, calls = os.getpid(), index.header_fields, [0]

    def failing(text: str) -> object:
        calls[0] += 1
        if os.getpid() != here and calls[0] > 40:  # the forked process fails after sending some windows
            raise MemoryError
        return parse(text)

    monkeypatch.setattr(index, "header_fields", failing)
    counted: list[int] = []
    assert list(index_file(str(path), counted.append, cut=len(data) // 3)) == serial
    assert sum(counted) == len(data)


def test_a_forked_process_that_may_keep_nothing_waits_for_the_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, data = plain_copy("javac-jdk17-excerpt.xml.gz", tmp_path)
    monkeypatch.setattr(index, "BUFFER", 4 * mmap.PAGESIZE)  # many windows, each sent as soon as it is searched
    serial = list(index_file(str(path)))
    monkeypatch.setattr(child, "HELD", 0)
    assert list(index_file(str(path), cut=len(data) // 4)) == serial


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the processes in /proc")
def test_a_listing_stopped_early_ends_the_forked_process(tmp_path: Path) -> None:
    path, data = plain_copy("javac-jdk17-excerpt.xml.gz", tmp_path)
    records = index_file(str(path), cut=len(data) // 2)
    first = [next(records) for _ in range(3)]
    records.close()  # e.g. the reader of the output went away
    assert first == list(index_file(str(path)))[:3]
    assert copies() == [], "the forked process was ended and waited for"


def copies() -> list[int]:
    """This process's children that are copies of it (forked, not started afresh as the forkserver is), running
    or ended and not waited for."""
    mine = Path("/proc/self/cmdline").read_bytes()
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
            line = (stat.parent / "cmdline").read_bytes()
        except OSError:  # it ended meanwhile
            continue
        if int(parent) == os.getpid() and (state == "Z" or line == mine):
            found.append(int(stat.parent.name))
    return found
