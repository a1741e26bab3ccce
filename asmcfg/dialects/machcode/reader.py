"""Raw `[MachCode]` hex that JDK 13+ prints without hsdis, decoded with capstone into the hsdis model."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from asmcfg import isa
from asmcfg.dialects.builder import Skipped, code_range, layout_features, main_code_size
from asmcfg.dialects.header import banner_compiler, method_label, parse_header, parse_section, unnamed_header
from asmcfg.dialects.machcode import c1patch, hexdump, placing
from asmcfg.dialects.machcode.hexdump import ROW, Note, Row, RowBuffer
from asmcfg.dialects.machcode.labels import unlabelled_handlers, unverified_entry
from asmcfg.hotspot import sections
from asmcfg.model import Compiler, DialectName, Feature, Header, IsaName, Method, Syntax
from asmcfg.sources.lines import VM_VERSION, Line
from asmcfg.sources.numbers import HEX

if TYPE_CHECKING:
    from asmcfg.dialects.base import ReadOptions

_MARKER = re.compile(r"^\[([A-Za-z][^\]]*)\]$")
_MORE_NOTE = re.compile(r"^\s+;")
_CONSTANT_ROW = re.compile(rf"^\s*({HEX}):\s+{HEX}(?:\s+({HEX}))?\s*$")
_FRAME = re.compile(r"^;\s*-\s+(?:\(reexecute\)\s+)?(\S+?)@-?\d+(?:\s+\(line \d+\))?\s*$")
_FRAME_LEAD = re.compile(r";\s*-\s+(?:\(reexecute\)\s+)?")
"""What comes before the method's name in a frame line."""
_FRAME_TAIL = re.compile(r"(\S*?)@-?\d+(?:\s+\(line \d+\))?\s*$")
"""The end of a frame line: the end of the method's name (up to its first `@`) and the bci and line."""
_GLUE_NAMES = 4096
"""A method whose frames name more methods than this is no real one: its cut frame lines are not repaired (each
line would be compared with every name)."""
_VM_VERSION = re.compile(VM_VERSION)
_NOISE = re.compile(r"^\s*(?:#|=|Address\s+hex4)")
_SECTIONS = {*sections.ROOTS, sections.STUB_CODE}
_SAMPLE_BYTES = 1024


def sniff(sample: list[str]) -> float:
    """High when the sample holds a `[MachCode]` block, unless it sits inside an XML log's `<tty>`."""
    if not any("[MachCode]" in line for line in sample):
        return 0.0
    return 0.5 if any("<hotspot_log" in line or "<tty>" in line for line in sample) else 0.95


@dataclass(slots=True)
class Dump:
    """What has been read of one method so far."""

    header: Header
    """The `Compiled method` header."""
    rows: list[Row] = field(default_factory=list)
    """Hex rows, repaired."""
    notes: list[Note] = field(default_factory=list)
    """Comments per chunk."""
    markers: list[tuple[int, str]] = field(default_factory=list)
    """(address, label) of each section label."""
    waiting: list[str] = field(default_factory=list)
    """Labels read whose address comes with the next row."""
    constants: list[tuple[int, int]] = field(default_factory=list)
    """Constant-pool rows as (address, 8-byte value)."""
    sections: dict[str, tuple[int, int]] = field(default_factory=dict)
    """The section table (`main code` -> (begin, end))."""
    skipped: Skipped = field(default_factory=Skipped)
    """Lines or text not understood or dropped (the first of them, and a count of the rest)."""
    names: set[str] = field(default_factory=set)
    """Methods named by inlining frames so far."""
    label: str | None = None
    """`Class::m` from a `# {method}` line."""
    in_code: bool = False
    """True inside `[MachCode]`."""
    pending: RowBuffer | None = None
    """The last hex row, until the next address fixes its length."""
    note: list[str] | None = None
    """Lines of the comment being read."""
    note_at: int = 0
    """Chunk address of that comment."""

    def close_row(self, expected_end: int | None) -> None:
        """Settle the held row now that the next address (or the end) is known."""
        pending, self.pending = self.pending, None
        if pending is None:
            return
        expected = None if expected_end is None or expected_end <= pending.address else expected_end - pending.address
        row, dropped = pending.close(expected)
        if row is not None:
            self.rows.append(row)
        self.skipped.extend(dropped)

    def close_note(self) -> None:
        """Store the comment being read."""
        if self.note:
            self.notes.append(Note(self.note_at, tuple(self.note)))
        self.note = None


class Reader:
    """Reads `[MachCode]` methods; counts the lines outside any method."""

    def __init__(self, source: str, options: ReadOptions | None = None) -> None:
        self.source = source
        self.outside = 0
        self.jdk_hint: int | None = None
        self.syntax = options.syntax if options is not None else Syntax.ATT
        self._dump: Dump | None = None
        self._banner: Compiler | None = None
        self._isa: IsaName | None = None

    def complete(self, method: Method) -> Method:
        """`method` as read: nothing follows the code in this dialect."""
        return method

    def methods(self, lines: Iterable[Line]) -> Iterator[Method]:
        """Yield each method as soon as its `[/MachCode]` has been read."""
        for line in lines:
            done = self._feed(line)
            if done is not None:
                yield done
        last = self._finish()
        if last is not None:
            yield last

    def _feed(self, line: Line) -> Method | None:
        text = line.text
        if "Compiled method (" in text:
            finished = self._finish()
            header = parse_header(text, line.number) or unnamed_header(line.number, self._banner or Compiler.UNKNOWN)
            self._dump, self._banner = Dump(header), None
            return finished
        dump = self._dump
        if text.strip() == "[MachCode]" and dump is None:
            dump = self._dump = Dump(unnamed_header(line.number, self._banner or Compiler.UNKNOWN))
        if dump is None:
            self._outside(text)
        elif text.strip() == "[/MachCode]":
            return self._finish()
        elif dump.in_code:
            _code_line(dump, line)
        else:
            _head_line(dump, line)
        return None

    def _outside(self, text: str) -> None:
        version = _VM_VERSION.search(text)
        if version:
            self.jdk_hint = int(version.group(1))
        self._banner = banner_compiler(text) or self._banner
        if text.strip():
            self.outside += 1

    def _finish(self) -> Method | None:
        dump, self._dump = self._dump, None
        if dump is None:
            return None
        code = dump.sections.get("stub code") or dump.sections.get("main code")
        dump.close_row(code[1] if code else None)
        dump.close_note()
        if not dump.rows:
            return None
        method = assemble(dump, self.source, self.syntax, self.jdk_hint, self._isa)
        self._isa = method.isa
        return method


def _head_line(dump: Dump, line: Line) -> None:
    """Section table and constant pool rows, before `[MachCode]`."""
    text = line.text
    stripped = text.strip()
    section = parse_section(text)
    constant = _CONSTANT_ROW.match(text)
    if stripped == "[MachCode]":
        dump.in_code = True
    elif section:
        dump.sections[section[0]] = (section[1], section[2])
    elif constant:
        if constant.group(2):
            dump.constants.append((int(constant.group(1), 16), int(constant.group(2), 16)))
    elif stripped and not stripped.startswith("[Constant Pool") and not _NOISE.match(text):
        dump.skipped.append((line.number, text))


def _code_line(dump: Dump, line: Line) -> None:
    """One line inside `[MachCode]`: a label, a hex row, a comment, or something else."""
    text = line.text
    stripped = text.strip()
    row = ROW.match(text)
    marker = _MARKER.match(stripped)
    if row:
        _addressed(dump, int(row.group(1), 16), row.group(2) or "", line.number)
    elif marker:
        dump.close_note()
        dump.waiting.append(marker.group(1))
    elif _MORE_NOTE.match(text) and dump.note is not None:
        _add_note_line(dump, stripped)
    elif not stripped or _NOISE.match(text):
        dump.label = dump.label or method_label(text)
    elif dump.pending is not None and dump.note is None:
        dump.pending.extra.append((line.number, text))
    elif not (dump.note and _glue(dump, line)):
        dump.skipped.append((line.number, text))


def _addressed(dump: Dump, address: int, body: str, number: int) -> None:
    """A `0xADDR:` line: it ends the held row and comment, and places waiting labels."""
    dump.close_row(address)
    dump.close_note()
    dump.markers.extend((address, label) for label in dump.waiting if label in _SECTIONS)
    dump.waiting.clear()
    if body.lstrip().startswith(";"):
        dump.note, dump.note_at = [], address
        _add_note_line(dump, body.strip())
    else:
        dump.pending = RowBuffer(address, body, number)


def _add_note_line(dump: Dump, text: str) -> None:
    assert dump.note is not None
    dump.note.append(text)
    frame = _FRAME.match(text)
    if frame:
        dump.names.add(frame.group(1))


def _glue(dump: Dump, line: Line) -> bool:
    """Join a frame line cut by program output, dropping the output: `; - C::m<junk>` + `@12 (line 3)`. The line
    holds the end of a known method's name and the rest of the frame; the cut is where the name's start ends in
    the held comment, so each name is compared once (trying every cut took time quadratic in the comment)."""
    assert dump.note
    last = dump.note[-1]
    lead, tail = _FRAME_LEAD.match(last), _FRAME_TAIL.match(line.text)
    if lead is None or tail is None or len(dump.names) > _GLUE_NAMES:
        return False
    rest, start = tail.group(1), lead.end()
    cuts = [start + len(name) - len(rest) for name in dump.names | {dump.header.name}
            if name.endswith(rest) and last.startswith(name[: len(name) - len(rest)], start)]
    for k in sorted((k for k in cuts if 0 < k <= len(last)), reverse=True):
        if _FRAME.match(last[:k] + line.text):
            dump.note[-1] = last[:k] + line.text
            dump.skipped.append((line.number - 1, last[k:]))
            return True
    return False


def assemble(dump: Dump, source: str, syntax: Syntax, jdk_hint: int | None, prior: IsaName | None = None) -> Method:
    """Decode the rows of `dump` and attach its comments; `prior` is the ISA of the input's previous method."""
    rows = sorted(dump.rows, key=lambda r: r.address)
    regions = hexdump.regions(rows, {address for address, _ in dump.markers})
    isa_name = hexdump.guess_isa(b"".join(data for _, data in regions)[:_SAMPLE_BYTES], prior)
    syntax = Syntax.AARCH64 if isa_name is IsaName.AARCH64 else syntax
    decoded, patched = c1patch.decode(regions, isa_name, syntax)
    table = isa.for_name(isa_name)
    fields = placing.field_sizes(regions, isa_name)
    instructions = hexdump.annotate(hexdump.plain_instructions(decoded, rows), dump.notes, table, fields)
    instructions = c1patch.mark(instructions, patched)
    starts = [ins.address for ins in instructions]
    markers = [(bisect_left(starts, address), label) for address, label in dump.markers]
    header = dump.header
    if header.name == "<unknown>" and dump.label:
        header = replace(header, name=dump.label)
    begin, end = code_range(dump.sections)
    markers = unverified_entry(instructions, markers, table, (begin, end))
    return Method(
        header=header,
        instructions=instructions,
        markers=tuple(unlabelled_handlers(instructions, markers, table)),
        source=source,
        isa=isa_name,
        syntax=syntax,
        code_begin=begin,
        code_end=end,
        main_code_size=main_code_size(dump.sections),
        constants=tuple(dump.constants),
        jdk_hint=jdk_hint,
        skipped=tuple(dump.skipped.kept),
        dialect=DialectName.MACHCODE,
        features=frozenset({Feature.DECODED, *layout_features(instructions, dump.sections)}),
        skipped_beyond=dump.skipped.beyond,
    )
