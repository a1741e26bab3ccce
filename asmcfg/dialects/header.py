"""Parse the `Compiled method (c2) …` header and the section table shared by several layouts."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from asmcfg.model import Compiler
from asmcfg.sources.numbers import DIGITS, HEX

if TYPE_CHECKING:
    from asmcfg.model import Header

_HEADER = re.compile(
    rf"Compiled method \((?P<compiler>[^)]{{1,64}})\)\s+(?P<ts>{DIGITS})\s+(?:\S+:\s*)?(?P<id>{DIGITS}) "
    rf"(?P<flags>[%sbn! ]{{5}}) (?:(?P<level>\d|-) )?\s*(?P<name>\S+)(?: @ (?P<osr>{DIGITS}))?"
    rf"(?: \((?:(?P<size>{DIGITS}) bytes|native)\))?"
)
"""A method's header; a number of more digits than HotSpot prints makes the line no header (or, the OSR bci and
bytecode size, leaves that field out)."""
_SECTION = re.compile(
    rf"^\s*(?P<name>[a-zA-Z](?:[a-zA-Z ]*[a-zA-Z])?)\s*\[({HEX}),({HEX})\]\s*=\s*\d+"
)
_BANNER = re.compile(r"(?<!=)=+ (C1|C2|JVMCI)-compiled nmethod =+")
# Every pattern here is linear on any line: no two neighbouring repeats can share a character (the compiler name
# is bounded, the section name ends at a letter, a banner's `=` run is tried from its start only), so a line of
# spaces, of `=` or of `Compiled method (` does not make them backtrack over the same text again and again.
_METHOD_LABEL = re.compile(r"#\s*\{method\}\s*(?:\{0x[0-9a-fA-F]+\}\s*)?'([^']*)'\s*'[^']*'\s*in\s*'([^']*)'")


HeaderFields = tuple[Compiler, int, int | None, str, str, int | None, int | None, int]
"""What a `Compiled method` line says, in Header's order: compiler, compile id, tier level, flags, name, OSR
bci, bytecode size, timestamp."""


def parse_header(text: str, line: int) -> Header | None:
    """A Header from a `Compiled method` line, or None if the line is not one."""
    from asmcfg.model.code import Header  # here: the fast index reads header fields without the record classes

    fields = header_fields(text)
    return None if fields is None else Header(*fields, line)


def header_fields(text: str) -> HeaderFields | None:
    """The fields of a `Compiled method` line, or None if the line is not one (the fast index builds no Header)."""
    match = _HEADER.search(text)
    if not match:
        return None
    compiler, timestamp, compile_id, flags, level, name, osr, size = match.groups()
    return (
        _compiler(compiler),
        int(compile_id),
        int(level) if level and level != "-" else None,
        flags.replace(" ", ""),
        name,
        int(osr) if osr else None,
        int(size) if size else None,
        int(timestamp),
    )


_COMPILERS: dict[str, Compiler] = {}
"""`Compiler.named` of the texts seen in headers (a log names a handful)."""


def _compiler(text: str) -> Compiler:
    found = _COMPILERS.get(text)
    if found is None:
        found = Compiler.named(text)
        if len(_COMPILERS) < 64:
            _COMPILERS[text] = found
    return found


def unnamed_header(line: int, compiler: Compiler = Compiler.UNKNOWN) -> Header:
    """A header for a method printed without one (JDK 8 layout, a fragment)."""
    from asmcfg.model.code import Header

    return Header(compiler, None, None, "", "<unknown>", None, None, None, line)


def parse_section(text: str) -> tuple[str, int, int] | None:
    """(`main code`, begin, end) from a section-table row."""
    match = _SECTION.match(text)
    if not match:
        return None
    return match.group("name").strip(), int(match.group(2), 16), int(match.group(3), 16)


def section_bounds(text: str) -> tuple[int, int] | None:
    """(begin, end) from a section-table row, as `parse_section` reads it but without its name."""
    match = _SECTION.match(text)
    return (int(match.group(2), 16), int(match.group(3), 16)) if match else None


def method_label(text: str) -> str | None:
    """`pkg.Class::m` from a `# {method} … 'm' '(…)' in 'pkg/Class'` line."""
    match = _METHOD_LABEL.search(text)
    if not match:
        return None
    return match.group(2).replace("/", ".") + "::" + match.group(1)


def banner_compiler(text: str) -> Compiler | None:
    """`c2` from `==== C2-compiled nmethod ====`."""
    match = _BANNER.search(text)
    return Compiler.named(match.group(1)) if match else None
