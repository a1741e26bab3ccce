"""PrintAssembly text with hsdis: JDK 13+ `[Disassembly]`, JDK 6-12 `Decoding compiled method`, fragments."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from asmcfg.dialects import interleave
from asmcfg.dialects.builder import HEX_ADDRESS, MethodBuilder
from asmcfg.dialects.header import (
    banner_compiler,
    method_label,
    parse_header,
    parse_section,
    unnamed_header,
)
from asmcfg.hotspot import sections
from asmcfg.model import Compiler, DialectName, Feature, Header, Method
from asmcfg.sources.lines import Line

if TYPE_CHECKING:
    from asmcfg.dialects import ReadOptions

_INSTRUCTION = re.compile(r"^\s*0x[0-9a-fA-F]+:\s+[a-z.]")
_MNEMONIC_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz.")
_CONSTANT_ROW = re.compile(r"^\s*(0x[0-9a-fA-F]+):\s+0x[0-9a-fA-F]+(?:\s+(0x[0-9a-fA-F]+))?\s*$")
_MARKER = re.compile(r"^\[([A-Za-z][^\]]*)\]\s*$")
_RESUMED = re.compile(r"^[a-z][a-z0-9.]*(?:\t| {2,}|$)")
_VM_VERSION = re.compile(r"# VM version: JDK (\d+)")
_KNOWN_NOISE = re.compile(
    r"^\s*(?:$|-{20,}|={20,}|#|=|Address\s+hex4|;;|\[Disassembling for|Code:|Argument \d+ is unknown\.|RIP: 0x)"
)
"""Lines of no use: rules, comments, and old headers such as JDK 7 Windows hsdis's
`Argument 0 is unknown.RIP: 0x25b4cc0 Code size: 0x00000078`."""
_SECTION_LABELS = sections.KEPT | {sections.CONSTANTS}


def _starts_instruction(text: str, address: re.Match[str]) -> bool:
    """What `_INSTRUCTION` matches, from the address already matched: a blank, then a lowercase mnemonic."""
    return address.group(2)[:1] in _MNEMONIC_FIRST and text[address.end(1) + 1].isspace()


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
        self._banner: Compiler | None = None
        self._broken: int | None = None
        self._in_machcode = False

    def complete(self, method: Method) -> Method:
        """`method` as read: nothing follows the code in this dialect."""
        return method

    def methods(self, lines: Iterable[Line]) -> Iterator[Method]:
        """Yield each method once read, with lines another compiler thread printed inside it given back."""
        return interleave.untangle(self._methods(lines))

    def _methods(self, lines: Iterable[Line]) -> Iterator[Method]:
        """Yield each method as soon as its last line has been read."""
        for line in lines:
            done = self._feed(line)
            if done is not None:
                yield done
        if self._current is not None and self._current.instructions:
            yield self._current.build(self.jdk_hint)
        self._current = None

    def _feed(self, line: Line) -> Method | None:
        text = line.text
        if "Compiled method (" in text or "Decoding compiled method" in text:
            return self._start(line)
        if "-compiled nmethod" in text and banner_compiler(text):
            finished = self._finish()
            self._banner = banner_compiler(text)
            return finished
        if self._in_machcode or text.strip() == "[MachCode]":
            # Raw hex belongs to the machcode dialect; never read hex digits as mnemonics.
            self._in_machcode = text.strip() != "[/MachCode]"
            return None
        current = self._current
        if current is None:
            return self._outside(line)
        broken, self._broken = self._broken, None
        address = None if self._in_constants else HEX_ADDRESS.match(text)
        if address is not None and _starts_instruction(text, address):
            current.add_instruction(int(address.group(1), 16), address.group(2), line.number)
            return None
        if broken is not None and _RESUMED.match(text):
            # The rest of an instruction line cut by the program's own output.
            current.add_instruction(broken, text, line.number)
            return None
        if address is not None and address.group(2).strip():
            self._broken = int(address.group(1), 16)
        return self._other(current, line)

    def _start(self, line: Line) -> Method | None:
        current = self._current
        if "Decoding compiled method" in line.text and current is not None and not current.instructions:
            current.features.add(Feature.LEGACY)
            return None
        finished = self._finish()
        header = parse_header(line.text, line.number)
        if header is None:
            header = unnamed_header(line.number, self._banner or Compiler.UNKNOWN)
        self._current = _builder(header, self.source)
        if "Decoding compiled method" in line.text:
            self._current.features.add(Feature.LEGACY)
        self._banner = None
        return finished

    def _finish(self) -> Method | None:
        current, self._current = self._current, None
        self._in_constants = False
        if current is None or not current.instructions:
            return None
        return current.build(self.jdk_hint)

    def _outside(self, line: Line) -> Method | None:
        text = line.text
        version = _VM_VERSION.search(text)
        if version:
            self.jdk_hint = int(version.group(1))
        if self._current is None and _INSTRUCTION.match(text):
            # A fragment that starts mid-method: collect it under an unnamed header.
            self._current = _builder(unnamed_header(line.number), self.source)
            self._current.features.add(Feature.FRAGMENT)
            return self._feed(line)
        if text.strip():
            self.outside += 1
        return None

    def _other(self, current: MethodBuilder, line: Line) -> Method | None:
        text = line.text
        stripped = text.strip()
        if stripped == "[/Disassembly]":
            return self._finish()
        marker = _MARKER.match(stripped)
        if marker:
            self._on_marker(current, marker.group(1))
            return None
        if self._in_constants:
            self._constant(current, text)
            return None
        if stripped.startswith(";") and not stripped.startswith(";;") and current.add_comment(stripped):
            return None
        self._known_or_skipped(current, line)
        return None

    def _on_marker(self, current: MethodBuilder, label: str) -> None:
        if label.startswith("Constant Pool"):
            self._in_constants = True
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

    def _known_or_skipped(self, current: MethodBuilder, line: Line) -> None:
        text = line.text
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
        current.skipped.append((line.number, text))


def _builder(header: Header, source: str) -> MethodBuilder:
    """A method of this dialect: PrintAssembly text, whose layout alone does not date the JDK."""
    builder = MethodBuilder(header, source, DialectName.HSDIS)
    builder.features.add(Feature.UNDATED_LAYOUT)
    return builder
