"""Calls of the compiled build's C modules with wrong types and arities, odd objects (subclasses of str, int and
tuple, objects whose `__eq__`, `__hash__` or `__index__` raise) and objects that change the very lists and dicts
being read while the C code reads them. tests/test_native_hardening.py runs them in a child process, where a crash
kills only the child: first, with `--workload`, the copied inputs of tests/data read through the same modules (its
AddressSanitizer run).

Run: python tests/native_calls.py FOLDER [--workload]. FOLDER holds the five modules, built. One JSON line per
case is printed before its call (`start`) and one after (`done`, with what it gave: `returned` or the exception's
class name), so a crash names its case.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from native import MODULES, library, load

from asmcfg.dialects import annotations, builder
from asmcfg.dialects.annotations import FRAME_FIELDS, read_notes
from asmcfg.dialects.header import unnamed_header
from asmcfg.dialects.logcompilation import inline, logxml
from asmcfg.dialects.logcompilation.logxml import Tag, unescape
from asmcfg.dialects.perfasm import saved
from asmcfg.model import Edge, Frame, Instruction, make

DATA = Path(__file__).resolve().parent / "data"
Call = Callable[[Any], object]
"""A case: it calls the C modules (a namespace of `scan`, `build`, `tags`)."""
REJECTED = frozenset({"TypeError"})
"""What a call with a wrong type or arity must give."""
SURVIVED = frozenset({"returned", "TypeError", "ValueError", "KeyError", "AttributeError", "BufferError"})
"""What a call whose objects change the containers being read may give: anything but a crash."""


@dataclass(frozen=True, slots=True)
class Case:
    """One call of a C module."""

    name: str
    """The function's name."""
    call: Call
    """The call."""
    expected: frozenset[str]
    """What it may give: `returned`, or the class name of the exception it raises."""


CASES: list[Case] = []


def case(*expected: str) -> Callable[[Call], Call]:
    """Register the decorated call as a case that gives one of `expected` (REJECTED when none is named)."""

    def register(call: Call) -> Call:
        CASES.append(Case(call.__name__, call, frozenset(expected) or REJECTED))
        return call

    return register


def fresh(text: str) -> str:
    """A copy of `text` made at run time, which only its container holds (no interned constant)."""
    return "".join(list(text))


class Text(str):
    """A subclass of str."""


class Number(int):
    """A subclass of int."""


class Row(tuple):  # type: ignore[type-arg]
    """A subclass of tuple."""


class Raising:
    """An object whose `__eq__`, `__hash__` and `__index__` raise."""

    def __eq__(self, other: object) -> bool:
        raise ValueError("no __eq__")

    def __hash__(self) -> int:
        raise ValueError("no __hash__")

    def __index__(self) -> int:
        raise ValueError("no __index__")


class Emptying:
    """A key equal in hash to `hash(number)` whose `__eq__` empties `targets` (lists and dicts)."""

    def __init__(self, number: int, *targets: Any) -> None:
        self.number, self.targets = number, targets

    def __hash__(self) -> int:
        return hash(self.number)

    def __eq__(self, other: object) -> bool:
        for target in self.targets:
            target.clear()
        return False


class EmptyingLine(str):
    """A comment line whose `strip()` empties `targets`."""

    targets: tuple[Any, ...] = ()

    def strip(self, chars: str | None = None) -> str:
        for target in self.targets:
            target.clear()
        return str.strip(self, chars)


def emptying_line(text: str, *targets: Any) -> EmptyingLine:
    line = EmptyingLine(text)
    line.targets = targets
    return line


def row(address: int, mnemonic: str = "movl", operands: str = "%eax, %ebx") -> tuple[int, str, str, int]:
    return (0x1000 + 4 * address, fresh(mnemonic), fresh(operands), 1000 + address)


FIELDS = builder._FIELDS


def build(m: Any, rows: Any, comments: Any, notes: Any = read_notes) -> Any:
    return m.build.instructions(rows, comments, Instruction, FIELDS, notes, Frame, FRAME_FIELDS)


def python_build(rows: list[Any], comments: dict[int, list[str]]) -> tuple[Instruction, ...]:
    saved, builder.BUILD = builder.BUILD, None
    try:
        made = builder.MethodBuilder(unnamed_header(1), "x", instructions=rows, comments=comments)
        return made._instructions()
    finally:
        builder.BUILD = saved


# `_build.notes`


@case("returned")
def notes_of_a_str_subclass_read_as_python_reads_it(m: Any) -> object:
    text = Text("{poll}\n*invokevirtual\n- (reexecute) A::b@-1 (line 12)\nimplicit exception: dispatches to 0x1f")
    found = m.build.notes(text, Frame, FRAME_FIELDS)
    assert annotations.Notes(*found) == annotations._read_notes(text)
    return found


# `_build.instructions`


@case()
def instructions_with_a_strip_that_gives_no_str(m: Any) -> object:
    class Odd(str):
        def strip(self, chars: str | None = None) -> Any:
            return 5

    return build(m, [row(1)], {0: [Odd(" {poll} ")]})


@case("returned")
def instructions_of_subclassed_rows_and_lines_made_as_python_makes_them(m: Any) -> object:
    rows = [Row((Number(1), Text("movl"), Text("%eax, %ebx"), Number(9))), row(2)]
    comments = {0: [Text(" {poll} "), Text("  ")], 1: [Text("*getfield\n")]}
    made = build(m, rows, comments)
    assert made == python_build(rows, comments)
    return made


@case(*SURVIVED)
def instructions_whose_comment_line_empties_rows_comments_and_its_lines(m: Any) -> object:
    rows = [row(i) for i in range(8)]
    comments: dict[int, list[str]] = {}
    parts: list[str] = [fresh(" ;one"), fresh(" ;two"), fresh(" ;three")]
    parts.insert(1, emptying_line(" {poll} ", rows, comments, parts))
    comments[0] = parts
    comments[3] = [fresh("- A::b@3")]
    return build(m, rows, comments)


@case(*SURVIVED)
def instructions_whose_only_comment_line_empties_its_list(m: Any) -> object:
    rows = [row(1)]
    parts: list[str] = []
    parts.append(emptying_line(" {poll} ", parts, rows))
    return build(m, rows, {0: parts})


@case(*SURVIVED)
def instructions_whose_python_notes_empty_rows_and_comments(m: Any) -> object:
    rows = [row(i) for i in range(6)]
    comments = {i: [fresh(f"- caf\u00e9::b@{i}")] for i in range(6)}

    def notes(comment: str) -> annotations.Notes:
        rows.clear()
        comments.clear()
        return annotations._read_notes(comment)

    return build(m, rows, comments, notes)


@case(*SURVIVED)
def instructions_whose_comments_hold_a_key_that_empties_them(m: Any) -> object:
    rows = [row(i) for i in range(6)]
    comments: dict[Any, list[str]] = {}
    comments[Emptying(0, rows, comments)] = [fresh("{poll}")]
    for i in range(6):
        comments[i] = [fresh(f"- A::b@{i}")]
    return build(m, rows, comments)


@case("returned")
def instructions_read_with_another_frame_class_give_its_frames(m: Any) -> object:
    class Scope(Frame):
        __slots__ = ()

    first = m.build.instructions([row(1)], {0: ["- A::b@1"]}, Instruction, FIELDS, read_notes, Scope, FRAME_FIELDS)
    again = build(m, [row(1)], {0: ["- A::b@1"]})
    assert type(first[0].frames[0]) is Scope and type(again[0].frames[0]) is Frame
    return again


# `_scan.scan`

LINES = ["  0x0000000000001000:   movl\t%eax, %ebx ;*iload", "  ; - A::b@3 (line 4)", "  0x0000000000001004:   ret"]


def lines() -> list[str]:
    return [fresh(text) for text in LINES]


@case("returned")
def scan_with_the_largest_line_number_leaves_the_lines_it_cannot_number(m: Any) -> object:
    rows: list[Any] = []
    end = m.scan.scan(lines(), 0, sys.maxsize - 1, rows, {})
    assert end == 2 and [r[3] for r in rows] == [sys.maxsize - 1]
    return end


@case("returned")
def scan_from_a_subclassed_index_reads_as_from_an_int(m: Any) -> object:
    rows: list[Any] = []
    end = m.scan.scan(lines(), Number(0), Number(5), rows, {})
    assert end == 3 and [r[3] for r in rows] == [5, 7]
    return end


@case("returned")
def scan_of_a_non_str_line_leaves_it(m: Any) -> object:
    end = m.scan.scan([*lines()[:1], 5, *lines()], 0, 1, [], {})
    assert end == 1
    return end


@case(*SURVIVED)
def scan_whose_comments_hold_a_key_that_empties_the_lines(m: Any) -> object:
    texts = lines() * 4
    rows: list[Any] = []
    comments: dict[Any, list[str]] = {}
    comments[Emptying(0, texts, rows, comments)] = []
    return m.scan.scan(texts, 0, 1, rows, comments)


# `_tags.tags` and `_tags.collect`


@case("ValueError")
def tags_whose_unescape_raises(m: Any) -> object:
    def unescape(text: str) -> str:
        raise ValueError(text)

    return m.tags.tags("<a x='&amp;'>", Tag, unescape)


@case("returned")
def tags_of_a_str_subclass_read_as_python_reads_them(m: Any) -> object:
    text = Text("<task id='1' method='A b ()V'/> <a x = \"&lt;init&gt;\" y='2'></a>")
    found = m.tags.tags(text, Tag, unescape)
    assert found == logxml._tags(text)
    return found


TASK = (b"<task compile_id='7' method='A b ()V'>\n<uncommon_trap reason='null_check' action='maybe_recompile'/>\n"
        b"</task>\n")


def feeds() -> dict[str, tuple[Callable[[Any, int], None], ...]]:
    return inline._feeds((logxml.TrapCollector(), inline.InlineCollector()))


@case("returned")
def collect_of_a_memoryview_counts_as_python_does(m: Any) -> object:
    number = m.tags.collect(memoryview(TASK), Number(4), 0, 10**6, logxml.tags, feeds())
    assert number == 4 + TASK.count(b"\n")
    return number


@case(*SURVIVED)
def collect_whose_feed_empties_the_feeds_and_resizes_the_data(m: Any) -> object:
    data = bytearray(TASK * 3)
    table: dict[str, Any] = {}

    def feed(tag: Any, line: int) -> None:
        table.clear()
        data.extend(b"x")  # refused while the C code reads it

    table.update({name: (feed, feed) for name in ("task", "uncommon_trap", "/task")})
    return m.tags.collect(data, 0, 0, len(data), logxml.tags, table)


@case(*SURVIVED)
def collect_whose_tag_names_empty_the_tags_read(m: Any) -> object:
    found: list[Any] = []

    class Named:
        @property
        def name(self) -> str:
            found.clear()
            return fresh("task")

    def tags(text: str) -> list[Any]:
        found[:] = [Named() for _ in range(4)]
        return found

    return m.tags.collect(TASK, 0, 0, len(TASK), tags, {"task": (lambda tag, line: None,)})


# wrong types and arities

REFUSALS: list[tuple[str, str, Call]] = [  # (name, what it gives, the call)
    ("notes_with_int_and_ints_for_frame", "TypeError",  # once a segmentation fault
     lambda m: m.build.notes("- a@1", int, (1, 2, 3))),
    ("notes_with_a_frame_class_that_makes_no_instances", "TypeError",
     lambda m: m.build.notes("- a@1", type(sys.flags), FRAME_FIELDS)),
    ("notes_with_descriptors_of_another_class", "TypeError",
     lambda m: m.build.notes("- a@1", Frame, make.field_descriptors(Edge)[:3])),
    ("notes_with_properties_for_fields", "TypeError",
     lambda m: m.build.notes("- a@1", Frame, (property(), property(), property()))),
    ("notes_with_two_fields", "TypeError", lambda m: m.build.notes("- a@1", Frame, FRAME_FIELDS[:2])),
    ("notes_of_bytes", "TypeError", lambda m: m.build.notes(b"- a@1", Frame, FRAME_FIELDS)),
    ("notes_of_nothing", "TypeError", lambda m: m.build.notes()),
    ("instructions_of_a_tuple_of_rows", "TypeError", lambda m: build(m, (row(1),), {})),
    ("instructions_with_a_list_of_comments", "TypeError", lambda m: build(m, [row(1)], [])),
    ("instructions_with_ten_fields", "TypeError",
     lambda m: m.build.instructions([row(1)], {}, Instruction, FIELDS[:10], read_notes, Frame, FRAME_FIELDS)),
    ("instructions_of_a_class_that_makes_no_instances", "TypeError",
     lambda m: m.build.instructions([row(1)], {}, type(sys.flags), FIELDS, read_notes, Frame, FRAME_FIELDS)),
    ("instructions_with_ints_for_fields", "TypeError",
     lambda m: m.build.instructions([row(1)], {}, Instruction, (1,) * 11, read_notes, Frame, FRAME_FIELDS)),
    ("instructions_with_an_int_for_notes", "TypeError",
     lambda m: m.build.instructions([row(1)], {}, Instruction, FIELDS, 5, Frame, FRAME_FIELDS)),
    ("instructions_with_int_and_ints_for_frame", "TypeError",
     lambda m: m.build.instructions([row(1)], {0: ["- a@1"]}, Instruction, FIELDS, read_notes, int, (1, 2, 3))),
    ("instructions_of_a_row_of_three", "TypeError", lambda m: build(m, [(1, "movl", "%eax")], {})),
    ("instructions_of_a_list_row", "TypeError", lambda m: build(m, [[1, "movl", "%eax", 1]], {})),
    ("instructions_with_comment_lines_in_a_tuple", "TypeError", lambda m: build(m, [row(1)], {0: ("{poll}",)})),
    ("instructions_with_an_int_comment_line", "TypeError", lambda m: build(m, [row(1), row(2)], {1: [" ;x", 7]})),
    ("instructions_with_a_raising_key_in_comments", "ValueError",
     lambda m: build(m, [row(1)], {Raising(): ["{poll}"]})),
    ("scan_of_a_tuple_of_lines", "TypeError", lambda m: m.scan.scan(tuple(lines()), 0, 1, [], {})),
    ("scan_from_a_str_index", "TypeError", lambda m: m.scan.scan(lines(), "0", 1, [], {})),
    ("scan_from_a_raising_index", "TypeError", lambda m: m.scan.scan(lines(), Raising(), 1, [], {})),
    ("scan_with_a_float_line_number", "TypeError", lambda m: m.scan.scan(lines(), 0, 1.5, [], {})),
    ("scan_with_a_line_number_past_64_bits", "OverflowError", lambda m: m.scan.scan(lines(), 0, 2**70, [], {})),
    ("scan_into_a_tuple", "TypeError", lambda m: m.scan.scan(lines(), 0, 1, (), {})),
    ("scan_into_comments_that_hold_a_str", "TypeError", lambda m: m.scan.scan(lines(), 0, 1, [], {0: "x"})),
    ("scan_into_comments_with_a_raising_key", "ValueError", lambda m: m.scan.scan(lines(), 0, 1, [], {Raising(): []})),
    ("tags_of_bytes", "TypeError", lambda m: m.tags.tags(b"<a x='1'>", Tag, unescape)),
    ("tags_made_by_an_int", "TypeError", lambda m: m.tags.tags("<a x='1'>", 5, unescape)),
    ("tags_of_two_arguments", "TypeError", lambda m: m.tags.tags("<a x='1'>", Tag)),
    ("collect_of_a_str", "TypeError", lambda m: m.tags.collect(TASK.decode(), 0, 0, len(TASK), logxml.tags, feeds())),
    ("collect_from_line_none", "TypeError", lambda m: m.tags.collect(TASK, None, 0, len(TASK), logxml.tags, feeds())),
    ("collect_with_a_raising_start", "TypeError",
     lambda m: m.tags.collect(TASK, 0, Raising(), len(TASK), logxml.tags, feeds())),
    ("collect_with_a_float_stop_after_a_bad_start", "TypeError",  # once read with an error pending
     lambda m: m.tags.collect(TASK, 0, 2**70, 1.5, logxml.tags, feeds())),
    ("collect_to_a_negative_stop", "ValueError", lambda m: m.tags.collect(TASK, 0, -20, -1, logxml.tags, feeds())),
    ("collect_after_the_largest_line_number", "OverflowError",
     lambda m: m.tags.collect(TASK, sys.maxsize - 1, 0, len(TASK), logxml.tags, feeds())),
    ("collect_with_tags_that_give_a_tuple", "TypeError",
     lambda m: m.tags.collect(TASK, 0, 0, len(TASK), lambda text: tuple(logxml.tags(text)), feeds())),
    ("collect_with_feeds_that_hold_a_list", "TypeError",
     lambda m: m.tags.collect(TASK, 0, 0, len(TASK), logxml.tags, {"task": [print]})),
    ("collect_with_an_int_for_tags", "TypeError", lambda m: m.tags.collect(TASK, 0, 0, len(TASK), 5, feeds())),
]
"""Calls that the C code must refuse with an exception: wrong types and arities, objects that raise, numbers past a
Py_ssize_t."""
CASES.extend(Case(name, call, frozenset({gives})) for name, gives, call in REFUSALS)


# the workload

WORKLOAD = [
    DATA / "hsdis" / "jdk17-Tensor4D-print-hsdis-att.txt.gz",
    DATA / "hsdis" / "jdk25-Shapes-print-hsdis-intel.txt.gz",
    DATA / "hsdis" / "jdk17-aarch64-RecOsr-print-hsdis.txt.gz",
    DATA / "nohsdis" / "jdk25-Patch-nohsdis.txt",
    DATA / "logc" / "jdk17-Eq-inlined-trap.xml.gz",
    DATA / "public" / "pythonee__hsdis-lab__singleton.txt",
]
"""Real inputs the AddressSanitizer run reads: hsdis AT&T and Intel, AArch64, hex, LogCompilation, binutils text."""
LOGS = [DATA / "logc" / "inlining-jdk17.xml.gz", DATA / "logc" / "javac-jdk17-traps.xml.gz"]


def modules(folder: Path) -> SimpleNamespace:
    """The four C modules built into `folder`."""
    found = {name: load(name, library(name, folder)) for name in MODULES}
    return SimpleNamespace(scan=found["asmcfg.dialects.hsdis._scan"], build=found["asmcfg.dialects._build"],
                           tags=found["asmcfg.dialects.logcompilation._tags"],
                           lines=found["asmcfg.dialects._lines"])


def workload(m: SimpleNamespace) -> int:
    """Read the real inputs through the C modules, as the compiled build does; the number of records written."""
    from asmcfg.dialects.hsdis import reader
    from asmcfg.render.jsonl import record_line
    from asmcfg.run import parallel

    if hasattr(os, "RTLD_DEEPBIND"):  # capstone loads its library with it, which the sanitizer runtime refuses
        del os.RTLD_DEEPBIND
    reader.SCAN, builder.BUILD, annotations.NOTES = m.scan.scan, m.build.instructions, m.build.notes
    logxml.TAGS, inline.COLLECT = m.tags.tags, m.tags.collect
    annotations.read_notes.cache_clear()
    written = 0
    for path in WORKLOAD:
        written += sum(1 for _ in parallel.analyse_file(str(path), record_line, workers=1))  # type: ignore[arg-type]
    for path in LOGS:
        data = gzip.decompress(path.read_bytes())
        written += len(inline.read_log(str(path)).traps)
        inline.collect((logxml.TrapCollector(), inline.InlineCollector()), data, 0, 0, len(data))
    for path in WORKLOAD:
        data = path.read_bytes() if path.suffix != ".gz" else gzip.decompress(path.read_bytes())
        assert m.lines.newlines(data, 0, len(data)) == data.count(b"\n")
        for start in range(0, len(data), 4093):  # every alignment the 8-byte reads meet
            assert m.lines.newlines(data, start, start + 9000) == data[start : start + 9000].count(b"\n")
            stop = min(start + 9000, len(data))
            assert m.lines.block_newlines(data, start, start + 9000, 512) == [
                data[at : min(at + 512, stop)].count(b"\n") for at in range(start, stop, 512)]
            found_all, at = [], data.find(b"Compiled method", start, start + 9000)
            while 0 <= at < start + 4500:
                found_all.append(at)
                at = data.find(b"Compiled method", at + 15, start + 9000)
            assert m.lines.find_all(data, b"Compiled method", start, start + 4500, start + 9000) == found_all
            found = m.lines.percent_blank(data, start, start + 9000)
            expected = saved._HEAT.search(data, start, min(start + 9000, len(data)))
            assert found == (-1 if expected is None else expected.start())
    return written


# `_lines.newlines` and `_lines.percent_blank`


@case()
def newlines_of_a_str(m: Any) -> object:
    return m.lines.newlines("a\nb", 0, 3)


@case()
def percent_blank_of_no_buffer(m: Any) -> object:
    return m.lines.percent_blank(None, 0, 3)


@case()
def newlines_with_a_float_bound(m: Any) -> object:
    return m.lines.newlines(b"a\nb", 0.5, 3)


@case("returned")
def newlines_and_percent_blank_with_bounds_past_either_end_clamp_them(m: Any) -> object:
    data = b"12.50% \t0x1:\n%rax %\n" * 3
    for start, stop in ((-sys.maxsize - 1, sys.maxsize), (sys.maxsize, -sys.maxsize - 1), (Number(-4), Number(99))):
        assert m.lines.newlines(data, start, stop) == data[start:stop].count(b"\n")
        where = m.lines.percent_blank(bytearray(data), start, stop)
        assert where == -1 or data[where : where + 2] in (b"% ", b"%\n")
    return m.lines.newlines(memoryview(data)[1:], 0, sys.maxsize)


@case("ValueError")
def block_newlines_of_empty_blocks(m: Any) -> object:
    return m.lines.block_newlines(b"a\nb", 0, 3, 0)


@case("ValueError")
def find_all_of_an_empty_needle(m: Any) -> object:
    return m.lines.find_all(b"a\nb", b"", 0, 3, 3)


@case()
def find_all_of_a_str_needle(m: Any) -> object:
    return m.lines.find_all(b"a\nb", "a", 0, 3, 3)


@case("returned")
def block_newlines_and_find_all_with_bounds_past_either_end(m: Any) -> object:
    data = b"ab\nab\n" * 5
    for start, stop in ((-sys.maxsize - 1, sys.maxsize), (sys.maxsize, -sys.maxsize - 1), (-7, 99)):
        assert sum(m.lines.block_newlines(data, start, stop, 3)) == data[start:stop].count(b"\n")
        assert m.lines.block_newlines(data, start, stop, sys.maxsize) in ([], [data[start:stop].count(b"\n")])
        found = m.lines.find_all(bytearray(data), b"ab", start, stop, stop)
        assert all(data[at : at + 2] == b"ab" for at in found)
    return m.lines.find_all(memoryview(data)[1:], b"b\n", 0, sys.maxsize, sys.maxsize)


@case("ValueError")
def newlines_with_a_bound_whose_index_raises(m: Any) -> object:
    return m.lines.newlines(b"a\nb", Raising(), 3)


def main() -> None:
    m = modules(Path(sys.argv[1]))
    if "--workload" in sys.argv[2:]:
        print(json.dumps({"workload": workload(m)}), flush=True)
    for one in CASES:
        print(json.dumps({"start": one.name}), flush=True)
        try:
            one.call(m)
            got = "returned"
        except Exception as exc:
            got = type(exc).__name__
        print(json.dumps({"done": one.name, "got": got}), flush=True)


if __name__ == "__main__":
    main()
