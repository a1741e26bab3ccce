"""The optional compiled build's C readers, the hsdis line scanner (`asmcfg/dialects/hsdis/_scan.c`) and the
maker of Instructions (`asmcfg/dialects/_build.c`), read every copied input exactly as the Python reader does: the
same methods, instruction for instruction and comment for comment. Where they are not built, they are compiled
here with the system's C compiler."""

from __future__ import annotations

import functools
import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, slow_when_large
from native import built

from asmcfg.dialects import annotations, builder
from asmcfg.dialects.annotations import read_notes
from asmcfg.dialects.builder import HEX_ADDRESS as ADDRESS, MethodBuilder
from asmcfg.dialects.header import unnamed_header
from asmcfg.dialects.hsdis import reader
from asmcfg.errors import InputError
from asmcfg.model import Frame, Instruction, Method
from asmcfg.run.pipeline import open_input

INPUTS = sorted(
    path for folder in ("hsdis", "nohsdis", "logc", "perfasm", "public", "diff")
    for path in (DATA / folder).rglob("*") if path.is_file() and path.suffix not in {".md", ".java", ".json"}
)
JDK17 = DATA / "hsdis" / "jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz"
SINGLETON = DATA / "public" / "pythonee__hsdis-lab__singleton.txt"
"""binutils-style hsdis text of JDK 6-8: `lock cmpxchg %edi,(%edx)`, `;;  block B1 [0, 0]`."""


@dataclass(frozen=True)
class Native:
    """The compiled build's C readers."""

    scan: reader.Scan
    build: builder.Build
    notes: annotations.ReadNotes


@pytest.fixture(scope="session")
def native(tmp_path_factory: pytest.TempPathFactory) -> Native:
    """The installed C readers, or ones built from their sources for these tests."""
    if reader.SCAN is not None and builder.BUILD is not None and annotations.NOTES is not None:
        return Native(reader.SCAN, builder.BUILD, annotations.NOTES)
    out = tmp_path_factory.mktemp("native")
    scan = built("asmcfg.dialects.hsdis._scan", Path(reader.__file__).with_name("_scan.c"), out).scan
    build = built("asmcfg.dialects._build", Path(builder.__file__).with_name("_build.c"), out)
    return Native(scan, build.instructions, build.notes)


@pytest.fixture
def scan(native: Native) -> reader.Scan:
    return native.scan


class Tally:
    """A scanner that counts the lines it read."""

    def __init__(self, scan: reader.Scan) -> None:
        self.scan, self.read = scan, 0

    def __call__(self, texts: list[str], start: int, first: int, rows: list[Any], notes: dict[int, list[str]]) -> int:
        end = self.scan(texts, start, first, rows, notes)
        self.read += end - start
        return end


def methods(
    path: Path, scan: reader.Scan | None, monkeypatch: pytest.MonkeyPatch, native: Native | None = None
) -> list[Method] | None:
    """Every method of `path` as `asmcfg` reads it with `scan`, and the C maker and comment reader of `native`
    (None: the Python reader's own), or None when the input holds none."""
    monkeypatch.setattr(reader, "SCAN", scan)
    monkeypatch.setattr(builder, "BUILD", native.build if native else None)
    monkeypatch.setattr(annotations, "NOTES", native.notes if native else None)
    annotations.read_notes.cache_clear()
    try:
        stream = open_input(str(path))
        found = list(stream.methods)
    except InputError:
        return None
    return [stream.complete(method) for method in found]


@functools.cache
def python_read(path: Path) -> list[Method] | None:
    with pytest.MonkeyPatch.context() as patch:
        return methods(path, None, patch)


@pytest.mark.parametrize("path", slow_when_large(INPUTS), ids=lambda p: str(p.relative_to(DATA)))
def test_methods_read_in_c_equal_the_python_readers(
    path: Path, native: Native, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = python_read(path)
    assert methods(path, native.scan, monkeypatch) == expected
    assert methods(path, None, monkeypatch, native) == expected
    assert methods(path, native.scan, monkeypatch, native) == expected


def test_the_scanner_reads_most_lines_of_hsdis_and_logcompilation_code(
    scan: reader.Scan, monkeypatch: pytest.MonkeyPatch
) -> None:  # the rest are headers, section tables, markers, `#` comments
    for path in (JDK17, DATA / "logc" / "javac-jdk17-excerpt.xml.gz"):
        tally = Tally(scan)
        found = methods(path, tally, monkeypatch)
        assert found
        instructions = sum(len(m.instructions) for m in found)
        assert tally.read > instructions * 0.9


def test_chunk_boundaries_change_nothing(scan: reader.Scan, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "CHUNK", 7)
    assert methods(JDK17, scan, monkeypatch) == python_read(JDK17)


def test_runs_keep_every_line_and_its_number_where_the_numbering_breaks() -> None:
    # a thread's lines in a LogCompilation log are interleaved with other threads': every third one left out here
    lines = [(number, text) for number, text in real_lines(JDK17) if number % 3]
    found = list(reader.runs(lines))
    assert [(first + i, text) for first, texts in found for i, text in enumerate(texts)] == lines
    assert all(0 < len(texts) <= min(2, reader.CHUNK) for _, texts in found)


def real_lines(path: Path) -> Iterator[tuple[int, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as text:
        yield from enumerate((line.rstrip("\n") for line in text), 1)


def test_an_instruction_line_and_its_comment_lines_become_the_builders_rows(scan: reader.Scan) -> None:
    lines = list(real_lines(JDK17))
    start = next(i for i, (_, text) in enumerate(lines) if "ImmutableOopMap" in text and "0x" in text)
    rows: list[Any] = []
    notes: dict[int, list[str]] = {}
    end = scan([text for _, text in lines], start, lines[0][0], rows, notes)
    assert end > start + 1
    expected = MethodBuilder(unnamed_header(1), "x")
    for number, text in lines[start:end]:
        address = ADDRESS.match(text)
        if address is not None:
            expected.add_instruction(int(address.group(1), 16), address.group(2), number)
        else:
            assert expected.add_comment(text.strip())
    assert rows == expected.instructions and notes == expected.comments
    assert rows[0][:2] == (0x7F8E79403B48, "movq") and rows[0][2] == "0x348(%r15), %r10"
    assert notes[0] == [" ImmutableOopMap {rsi=Oop }", "*goto {reexecute=1 rethrow=0 return_oop=0}",
                        " - (reexecute) ExcSyncAlloc::syncAdd@47 (line 19)"]
    # it stopped at a line that is neither an instruction nor a continuation comment
    stopped = lines[end][1]
    assert not re.match(r"\s*0x[0-9a-f]+:\s+[a-z.]\S*(\t|$)", stopped) and not re.match(r"\s*;(?!;)", stopped)


def first_line(path: Path, pattern: str) -> str:
    return next(text for _, text in real_lines(path) if re.search(pattern, text))


def lines_left_to_python() -> list[str]:
    """Real lines the scanner must leave to the Python reader, and one made from a real instruction line with a
    no-break space before its comment (Python's `strip()` removes it, the scanner's blanks are space and tab)."""
    instruction = first_line(JDK17, r"^\s+0x[0-9a-f]+:\s+movl\t")
    return [
        first_line(SINGLETON, r"0x[0-9a-f]+: lock cmpxchg"),
        first_line(SINGLETON, r"^\s*;;"),
        first_line(JDK17, r"^\[Verified Entry Point\]"),
        first_line(JDK17, r"^Compiled method \(c2\)"),
        instruction + "\u00a0;*getfield",
    ]


@pytest.mark.parametrize("text", lines_left_to_python())
def test_lines_it_cannot_read_as_python_does_are_left_to_python(scan: reader.Scan, text: str) -> None:
    rows: list[Any] = [(1, "movl", "%eax, %ebx", 1)]
    notes: dict[int, list[str]] = {}
    assert scan([text], 0, 7, rows, notes) == 0
    assert rows == [(1, "movl", "%eax, %ebx", 1)] and notes == {}


def test_instructions_made_in_c_carry_their_comment_read_into_scope_and_relocations(native: Native) -> None:
    lines = list(real_lines(JDK17))
    start = next(i for i, (_, text) in enumerate(lines) if "ImmutableOopMap" in text and "0x" in text)
    rows: list[Any] = []
    notes: dict[int, list[str]] = {}
    native.scan([text for _, text in lines], start, lines[0][0], rows, notes)
    made = native.build(rows, notes, Instruction, builder._FIELDS, read_notes, Frame, annotations.FRAME_FIELDS)
    python = MethodBuilder(unnamed_header(1), "x", instructions=rows, comments=notes)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(builder, "BUILD", None)
        assert made == python._instructions()
    goto, poll = made[0], made[1]
    assert goto.bytecode == "goto" and [(f.method, f.bci, f.line) for f in goto.frames] == [
        ("ExcSyncAlloc::syncAdd", 47, 19)
    ]
    assert goto.comment.startswith("ImmutableOopMap {rsi=Oop }\n*goto")
    assert poll.mnemonic == "testl" and poll.relocs == ("poll",) and poll.poll


def comments(path: Path) -> set[str]:
    """Every instruction comment of `path`, joined as the builder joins its lines."""
    found = python_read(path) or []
    return {i.comment for method in found for i in method.instructions if i.comment}


@pytest.mark.slow
def test_comments_read_in_c_equal_the_python_readers(native: Native) -> None:
    read = 0
    for path in INPUTS:
        for comment in comments(path):
            found = native.notes(comment, Frame, annotations.FRAME_FIELDS)
            if found is not None:
                read += 1
                assert annotations.Notes(*found) == annotations._read_notes(comment), comment
    # the C reader reads nearly all: scopes with and without a line, relocations, implicit exceptions
    assert read > 10_000
