"""Parse the `Compiled method (c2) …` header and the section table shared by several layouts."""

from __future__ import annotations

import re

from asmcfg.model import Compiler, Header

_HEADER = re.compile(
    r"Compiled method \((?P<compiler>[^)]+)\)\s+(?P<ts>\d+)\s+(?:\S+:)?\s*(?P<id>\d+) (?P<flags>[%sbn! ]{5}) "
    r"(?:(?P<level>\d|-) )?\s*(?P<name>\S+)(?: @ (?P<osr>\d+))?(?: \((?:(?P<size>\d+) bytes|native)\))?"
)
_SECTION = re.compile(r"^\s*(?P<name>[a-zA-Z][a-zA-Z ]*?)\s*\[(0x[0-9a-fA-F]+),(0x[0-9a-fA-F]+)\]\s*=\s*\d+")
_METHOD_LABEL = re.compile(r"#\s*\{method\}\s*(?:\{0x[0-9a-fA-F]+\}\s*)?'([^']*)'\s*'[^']*'\s*in\s*'([^']*)'")


def parse_header(text: str, line: int) -> Header | None:
    """A Header from a `Compiled method` line, or None if the line is not one."""
    match = _HEADER.search(text)
    if not match:
        return None
    level = match.group("level")
    return Header(
        compiler=Compiler.named(match.group("compiler")),
        compile_id=int(match.group("id")),
        level=int(level) if level and level != "-" else None,
        flags="".join(c for c in match.group("flags") if c != " "),
        name=match.group("name"),
        osr_bci=int(match.group("osr")) if match.group("osr") else None,
        bytecode_size=int(match.group("size")) if match.group("size") else None,
        timestamp=int(match.group("ts")),
        line=line,
    )


def unnamed_header(line: int, compiler: Compiler = Compiler.UNKNOWN) -> Header:
    """A header for a method printed without one (JDK 8 layout, a fragment)."""
    return Header(compiler, None, None, "", "<unknown>", None, None, None, line)


def parse_section(text: str) -> tuple[str, int, int] | None:
    """(`main code`, begin, end) from a section-table row."""
    match = _SECTION.match(text)
    if not match:
        return None
    return match.group("name").strip(), int(match.group(2), 16), int(match.group(3), 16)


def method_label(text: str) -> str | None:
    """`pkg.Class::m` from a `# {method} … 'm' '(…)' in 'pkg/Class'` line."""
    match = _METHOD_LABEL.search(text)
    if not match:
        return None
    return match.group(2).replace("/", ".") + "::" + match.group(1)


def banner_compiler(text: str) -> Compiler | None:
    """`c2` from `==== C2-compiled nmethod ====`."""
    match = re.search(r"=+ (C1|C2|JVMCI)-compiled nmethod =+", text)
    return Compiler.named(match.group(1)) if match else None
