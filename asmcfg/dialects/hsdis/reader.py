"""PrintAssembly text with hsdis: JDK 13+ `[Disassembly]`, JDK 6-12 `Decoding compiled method`, fragments."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from asmcfg.dialects import interleave
from asmcfg.dialects.builder import MethodBuilder
from asmcfg.dialects.header import (
    banner_compiler,
    method_label,
    parse_header,
    parse_section,
    unnamed_header,
)
from asmcfg.hotspot import sections
from asmcfg.model import Compiler, DialectName, Feature, Header, Method
from asmcfg.model.make import compiled
from asmcfg.sources.lines import VM_VERSION, Line
from asmcfg.sources.numbers import ADDRESS, HEX

if TYPE_CHECKING:
    from asmcfg.dialects.base import Counts, ReadOptions

Numbered = Iterable[tuple[int, str]]
"""Lines as (line number, text) pairs."""
Runs = Iterable[tuple[int, list[str]]]
"""Lines as runs of consecutive ones: (number of the first, their texts)."""

_INSTRUCTION = re.compile(r"^\s*0x[0-9a-fA-F]+:\s+[a-z.]")
_ADDRESS = re.compile(rf"\s*({ADDRESS}):\s*")
"""`builder.HEX_ADDRESS` without its second group: what follows the match is the line's body."""
_MNEMONIC_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz.")
_CONSTANT_ROW = re.compile(rf"^\s*({HEX}):\s+{HEX}(?:\s+({HEX}))?\s*$")
_MARKER = re.compile(r"^\[([A-Za-z][^\]]*)\]\s*$")
_RESUMED = re.compile(r"^[a-z][a-z0-9.]*(?:\t| {2,}|$)")
_VM_VERSION = re.compile(VM_VERSION)
_KNOWN_NOISE = re.compile(
    r"^\s*(?:$|-{20,}|={20,}|#|=|Address\s+hex4|;;|\[Disassembling for|Code:|Argument \d+ is unknown\.|RIP: 0x)"
)
"""Lines of no use: rules, comments, and old headers such as JDK 7 Windows hsdis's
`Argument 0 is unknown.RIP: 0x25b4cc0 Code size: 0x00000078`."""
_SECTION_LABELS = sections.KEPT | {sections.CONSTANTS}

Scan = Callable[[list[str], int, int, list[Any], dict[int, list[str]]], int]
"""`_scan.scan(texts, start, first, instructions, comments)`: reads the instruction and continuation comment lines
from `start` on (`texts[0]` is line `first`) into a method's lists as `_feed` would, and returns the index of the
first line it leaves to `_feed`."""
SCAN: Scan | None = compiled("asmcfg.dialects.hsdis._scan", "scan")
"""The scanner `Reader` uses, or None: then `_feed` reads every line."""
CHUNK = 4096
"""Lines handed to the scanner at a time, at most, when they come from an iterator."""


def sniff(sample: list[str]) -> float:
    """How well the sample fits: instruction lines with mnemonics and no hex dump."""
    text = "\n".join(sample)
    if "[MachCode]" in text or "<hotspot_log" in text or "Hottest Region" in text:
        return 0.1
    hits = sum(1 for line in sample if _INSTRUCTION.match(line))
    if "Compiled method (" in text or "Decoding compiled method" in text:
        return 0.9 if hits else 0.6
    return 0.5 if hits else 0.0


class Reader:
    """Reads methods from hsdis text; counts the lines outside any method."""

    def __init__(self, source: str, options: ReadOptions | None = None) -> None:
        self.source = source
        self.outside = 0
        self.jdk_hint: int | None = None
        self._current: MethodBuilder | None = None
        self._in_constants = False
        self._after_pool = False
        """The method's constant pool was printed and no instruction yet: binutils hsdis decodes the bytes between
        the pool and the code there, as text without an address (`add    %al,(%rax)` for two zero bytes)."""
        self._banner: Compiler | None = None
        self._broken: int | None = None
        self._in_machcode = False

    def complete(self, method: Method) -> Method:
        """`method` as read: nothing follows the code in this dialect."""
        return method

    def methods(self, lines: Iterable[Line]) -> Iterator[Method]:
        """Yield each method once read, with lines another compiler thread printed inside it given back."""
        return self.numbered(pairs(lines))

    def numbered(self, lines: Numbered) -> Iterator[Method]:
        """`methods` of lines given as (number, text) pairs."""
        return interleave.untangle(self._fed(lines) if SCAN is None else self._methods(runs(lines)))

    def texts(self, lines: Runs) -> Iterator[Method]:
        """`methods` of lines given as runs of consecutive ones."""
        return interleave.untangle(self._methods(lines))

    def _fed(self, lines: Numbered) -> Iterator[Method]:
        """Yield each method as soon as its last line has been read, reading each line in Python."""
        yield from self._each(lines)
        yield from self._end()

    def _methods(self, lines: Runs) -> Iterator[Method]:
        """Yield each method as soon as its last line has been read."""
        scan = SCAN
        for first, texts in lines:
            yield from self._each(enumerate(texts, first)) if scan is None else self._scanned(texts, first, scan)
        yield from self._end()

    def _each(self, lines: Numbered) -> Iterator[Method]:
        """The methods that `lines` end, each line read by `_feed`."""
        feed = self._feed
        for number, text in lines:
            done = feed(number, text)
            if done is not None:
                yield done

    def _end(self) -> Iterator[Method]:
        """The method the input ends in, if it has instructions."""
        current, self._current = self._current, None
        if current is not None and current.instructions:
            yield current.build(self.jdk_hint)

    def _scanned(self, texts: list[str], first: int, scan: Scan) -> Iterator[Method]:
        """`_methods` of a run of lines, whose runs of instruction lines inside a method's code `scan` reads."""
        feed, at, end = self._feed, 0, len(texts)
        while at < end:
            current = self._current
            if current is not None and self._broken is None and not self._in_constants and not self._in_machcode:
                at = scan(texts, at, first, current.instructions, current.comments)
                if at == end:
                    break
            done = feed(first + at, texts[at])
            if done is not None:
                yield done
            at += 1

    def _feed(self, number: int, text: str) -> Method | None:
        if "Compiled method (" in text or "Decoding compiled method" in text:
            return self._start(number, text)
        if "-compiled nmethod" in text and banner_compiler(text):
            finished = self._finish()
            self._banner = banner_compiler(text)
            return finished
        if self._in_machcode or ("[MachCode]" in text and text.strip() == "[MachCode]"):
            # Raw hex belongs to the machcode dialect; never read hex digits as mnemonics.
            self._in_machcode = text.strip() != "[/MachCode]"
            return None
        current = self._current
        if current is None:
            return self._outside(number, text)
        broken, self._broken = self._broken, None
        address = None if self._in_constants else _ADDRESS.match(text)
        body = ""
        if address is not None:
            body = text[address.end() :]
            # an instruction: a blank after the colon, then a lowercase mnemonic
            if body[:1] in _MNEMONIC_FIRST and text[address.end(1) + 1].isspace():
                current.add_instruction(int(address.group(1), 16), body, number)
                return None
        if broken is not None and _RESUMED.match(text):
            # The rest of an instruction line cut by the program's own output.
            current.add_instruction(broken, text, number)
            return None
        if address is not None and body.strip():
            self._broken = int(address.group(1), 16)
        return self._other(current, number, text)

    def _start(self, number: int, text: str) -> Method | None:
        current = self._current
        if "Decoding compiled method" in text and current is not None and not current.instructions:
            current.features.add(Feature.LEGACY)
            return None
        finished = self._finish()
        header = parse_header(text, number)
        if header is None:
            header = unnamed_header(number, self._banner or Compiler.UNKNOWN)
        self._current = _builder(header, self.source)
        if "Decoding compiled method" in text:
            self._current.features.add(Feature.LEGACY)
        self._banner = None
        return finished

    def _finish(self) -> Method | None:
        current, self._current = self._current, None
        self._in_constants = self._after_pool = False
        if current is None or not current.instructions:
            return None
        return current.build(self.jdk_hint)

    def _outside(self, number: int, text: str) -> Method | None:
        version = _VM_VERSION.search(text)
        if version:
            self.jdk_hint = int(version.group(1))
        if self._current is None and _INSTRUCTION.match(text):
            # A fragment that starts mid-method: collect it under an unnamed header.
            self._current = _builder(unnamed_header(number), self.source)
            self._current.features.add(Feature.FRAGMENT)
            return self._feed(number, text)
        if text.strip():
            self.outside += 1
        return None

    def _other(self, current: MethodBuilder, number: int, text: str) -> Method | None:
        stripped = text.strip()
        if stripped[:1] == ";" and not self._in_constants:
            # a comment line (the commonest here): neither a marker nor the end
            if stripped[:2] == ";;" or not current.add_comment(stripped):
                self._known_or_skipped(current, number, text)
            return None
        if stripped == "[/Disassembly]":
            return self._finish()
        marker = _MARKER.match(stripped)
        if marker:
            self._on_marker(current, marker.group(1))
            return None
        if self._in_constants:
            self._constant(current, text)
            return None
        self._known_or_skipped(current, number, text)
        return None

    def _on_marker(self, current: MethodBuilder, label: str) -> None:
        if label.startswith("Constant Pool"):
            self._in_constants = self._after_pool = True
            return
        self._in_constants = False
        if label in _SECTION_LABELS:
            current.add_marker(label)

    def _constant(self, current: MethodBuilder, text: str) -> None:
        row = _CONSTANT_ROW.match(text)
        if row and row.group(2):
            current.constants.append((int(row.group(1), 16), int(row.group(2), 16)))
        elif text.startswith("---"):
            self._in_constants = False

    def _known_or_skipped(self, current: MethodBuilder, number: int, text: str) -> None:
        section = parse_section(text)
        if section:
            current.sections[section[0]] = (section[1], section[2])
            return
        label = method_label(text)
        if label:
            current.label = current.label or label
            return
        if _KNOWN_NOISE.match(text) or banner_compiler(text):
            return
        if self._after_pool and not current.instructions and _RESUMED.match(text):
            return  # the bytes before the code, decoded: not an instruction of the method
        current.skipped.append((number, text))


def pairs(lines: Iterable[Line]) -> Iterator[tuple[int, str]]:
    """The lines as (number, text) pairs, one at a time. A generator function, never a generator expression: the
    compiled build (mypyc) makes a generator expression a list, which would hold the whole input."""
    for line in lines:
        yield line.number, line.text


def runs(lines: Numbered) -> Iterator[tuple[int, list[str]]]:
    """The lines as runs of consecutive numbers, of at most `CHUNK` lines each."""
    first = 0
    texts: list[str] = []
    for number, text in lines:
        if texts and (number != first + len(texts) or len(texts) >= CHUNK):
            yield first, texts
            texts = []
        if not texts:
            first = number
        texts.append(text)
    if texts:
        yield first, texts


def _builder(header: Header, source: str) -> MethodBuilder:
    """A method of this dialect: PrintAssembly text, whose layout alone does not date the JDK."""
    builder = MethodBuilder(header, source, DialectName.HSDIS)
    builder.features.add(Feature.UNDATED_LAYOUT)
    return builder


def read_piece(piece: Any, source: str, options: ReadOptions | None, counts: Counts) -> Iterator[Method]:
    """The methods of one piece the cutter cut (a `ReadPiece`); its lines outside methods go to `counts`."""
    reader = Reader(source, options)
    reader.jdk_hint = piece.jdk_hint
    yield from reader.texts([(piece.first_line, piece.texts())])
    counts.outside += reader.outside
