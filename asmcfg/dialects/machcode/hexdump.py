"""The byte side of `[MachCode]`: hex rows and their repair, the capstone sweep, comments per 4-byte chunk
(`placing` says which instruction each describes)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from asmcfg.dialects.annotations import read_notes
from asmcfg.dialects.machcode.hexrows import layout, parse_hex
from asmcfg.dialects.machcode.placing import SCOPE, Fields, Placer, kind
from asmcfg.isa.base import Isa
from asmcfg.model import Instruction, IsaName, Syntax

DATA = ".byte"
"""Mnemonic of a pseudo-instruction that covers bytes which are not code."""
ROW = re.compile(r"^\s*0x([0-9a-fA-F]{1,16}):(?: (.*))?$")  # at most 64 bits: `numbers.ADDRESS`
_LITERAL = re.compile(r"^([wxsdq])\d+, #(0x[0-9a-f]+)$")
_LITERAL_SIZE = {"w": 4, "x": 8, "s": 4, "d": 8, "q": 16}
_WIDE = re.compile(r"\$(\d{19,20})\b")  # capstone's AT&T `$18446744073709551615`: made hex, as all else it prints
_SAMPLE_WORDS, _MIN_WORDS = 64, 16
_AARCH64_MAX_INVALID = 0.3


@dataclass(frozen=True, slots=True)
class Row:
    """The bytes of one `0xADDR: hhhh hhhh | …` line."""

    address: int
    """Address of the first byte."""
    data: bytes
    """The bytes, in memory order."""
    line: int
    """Input line the row started on."""


@dataclass(frozen=True, slots=True)
class Note:
    """A comment HotSpot printed for the 4-byte chunk at `address`."""

    address: int
    """First byte of the chunk."""
    lines: tuple[str, ...]
    """Comment lines, each starting with `;`."""


@dataclass(frozen=True, slots=True)
class Decoded:
    """One instruction, or one unit of data, found by the linear sweep."""

    address: int
    """Address of the first byte."""
    size: int
    """Length in bytes."""
    mnemonic: str
    """Capstone's mnemonic, or `.byte` for data."""
    operands: str
    """Capstone's operand string, or the data bytes as `0x..` literals."""


REPAIRABLE = len(layout(bytes(64)))
"""The longest row text a cut is looked for in (HotSpot prints 32 bytes a row): keeps the search linear."""


@dataclass(slots=True)
class RowBuffer:
    """A hex row held until the next address tells how many bytes it must hold."""

    address: int
    """Address of the row."""
    body: str
    """Text after `0xADDR: `."""
    line: int
    """Input line of the row."""
    extra: list[tuple[int, str]] = field(default_factory=list)
    """Lines without an address that followed it: the rest of a cut row, or program output."""

    def close(self, expected: int | None) -> tuple[Row | None, list[tuple[int, str]]]:
        """The row with interleaved text removed, and that text as (line, text) pairs. Program output ends with
        a newline, so it cuts a row in two: the first part ends with the output, the rest follows on a line of
        its own. `expected` (the next row's address less this one's) tells which cut gives a well-laid-out row
        of the right length."""
        whole = parse_hex(self.body)
        if whole is not None and expected in (None, len(whole)):
            return Row(self.address, whole, self.line), list(self.extra)
        core = self.body.lstrip()  # a cut within the blanks before the row reads as one at its start: tried once
        for j, (_, tail) in enumerate([*self.extra, (self.line, "")]):
            if len(tail.rstrip()) > REPAIRABLE:
                continue
            for k in range(min(len(core), REPAIRABLE), -1, -1):
                data = parse_hex(core[:k] + tail)
                if data is not None and expected in (None, len(data)):
                    dropped = [(self.line, core[k:]), *self.extra[:j], *self.extra[j + 1 :]]
                    return Row(self.address, data, self.line), [d for d in dropped if d[1].strip()]
        if whole is not None:
            return Row(self.address, whole, self.line), list(self.extra)
        return None, [(self.line, self.body), *self.extra]


@cache
def _disassembler(isa: IsaName, syntax: Syntax) -> Any:
    import capstone  # imported on first decode: sniffing other formats must not pay for it

    if isa is IsaName.AARCH64:
        arch = getattr(capstone, "CS_ARCH_ARM64", None) or capstone.CS_ARCH_AARCH64
        return capstone.Cs(arch, capstone.CS_MODE_ARM)
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_INTEL if syntax is Syntax.INTEL else capstone.CS_OPT_SYNTAX_ATT
    return md


def guess_isa(data: bytes, prior: IsaName | None = None) -> IsaName:
    """`aarch64` when the leading non-zero words decode as AArch64, else `x86_64`; `prior` decides short samples."""
    md = _disassembler(IsaName.AARCH64, Syntax.AARCH64)
    words = [data[i : i + 4] for i in range(0, len(data) - 3, 4) if any(data[i : i + 4])][:_SAMPLE_WORDS]
    if len(words) < _MIN_WORDS and prior is not None:
        return prior
    if not words:
        return IsaName.X86_64
    invalid = sum(1 for w in words if not _aarch64_code(list(md.disasm_lite(w, 0))))
    return IsaName.AARCH64 if invalid / len(words) <= _AARCH64_MAX_INVALID else IsaName.X86_64


def _aarch64_code(found: list[tuple[int, int, str, str]]) -> bool:
    # UDF is the architecturally undefined encoding: padding and data, never code HotSpot runs.
    return bool(found) and found[0][2] != "udf"


def sweep(data: bytes, start: int, isa: IsaName, syntax: Syntax, starts: Collection[int] = ()) -> list[Decoded]:
    """Decode `data` at `start` linearly; bytes that are not code become `.byte` units. `starts` are addresses
    known to begin an instruction: decoding restarts there whatever came before."""
    md = _disassembler(isa, syntax)
    unit = 4 if isa is IsaName.AARCH64 else 1
    stops = sorted(a - start for a in starts if 0 < a - start < len(data))
    literals: set[int] = set()
    out: list[Decoded] = []
    offset = 0
    while offset < len(data):
        later = bisect_right(stops, offset)
        limit = stops[later] if later < len(stops) else len(data)
        for address, size, mnemonic, operands in md.disasm_lite(data[offset:limit], start + offset):
            if address in literals or (unit == 4 and mnemonic == "udf"):
                break
            out.append(Decoded(address, size, mnemonic, _WIDE.sub(_hex, operands) if "$" in operands else operands))
            offset += size
            literals.update(_literal_words(mnemonic, operands))
        if offset < limit:
            chunk = data[offset : min(offset + unit, limit)]
            out.append(Decoded(start + offset, len(chunk), DATA, ", ".join(f"0x{b:02x}" for b in chunk)))
            offset += len(chunk)
    return out


def _hex(found: re.Match[str]) -> str:
    """`_WIDE`'s immediate in hex."""
    return f"${int(found.group(1)):#x}"


def _literal_words(mnemonic: str, operands: str) -> range:
    """Word addresses an AArch64 `ldr xN, #literal` reads: data inside the code, not instructions."""
    match = _LITERAL.match(operands) if mnemonic in ("ldr", "ldrsw") else None
    if not match:
        return range(0)
    size = 4 if mnemonic == "ldrsw" else _LITERAL_SIZE[match.group(1)]
    first = int(match.group(2), 16)
    return range(first, first + size, 4)


def regions(rows: list[Row], cuts: set[int]) -> list[tuple[int, bytes]]:
    """Contiguous runs of bytes, cut again at every section label: each is swept on its own."""
    runs: list[tuple[int, bytearray]] = []
    for row in rows:
        last = runs[-1] if runs else None
        if last is None or row.address in cuts or last[0] + len(last[1]) != row.address:
            runs.append((row.address, bytearray()))
        runs[-1][1].extend(row.data)
    return [(start, bytes(data)) for start, data in runs]


def plain_instructions(decoded: list[Decoded], rows: list[Row]) -> list[Instruction]:
    """Instructions without comments, each with the input line of the row holding its first byte."""
    row_starts = [row.address for row in rows]
    out = []
    for d in decoded:
        row = rows[max(bisect_right(row_starts, d.address) - 1, 0)]
        out.append(Instruction(d.address, d.mnemonic, d.operands, row.line, size=d.size))
    return out


def annotate(plain: list[Instruction], notes: list[Note], table: Isa, fields: Fields) -> tuple[Instruction, ...]:
    """Give each instruction the comment lines that describe it (scope, then relocations, then handlers);
    `fields` tells the immediate and displacement sizes of an instruction (`placing.field_sizes`)."""
    place = Placer(plain, table, fields)
    found: dict[int, list[tuple[int, str]]] = {}
    lines = [(note.address, kind(text), text.lstrip(";").strip()) for note in notes for text in note.lines]
    # Relocations first: a poll's oop map describes the pc where the poll starts.
    for address, line_kind, body in sorted(lines, key=lambda line: line[1] == SCOPE):
        index = place.scope(address) if line_kind == SCOPE else place.other(address, line_kind, body)
        if index is not None:
            found.setdefault(index, []).append((line_kind, body))
            if body.startswith("{poll"):
                place.polls.add(index)
    return tuple(_with_comment(ins, sorted(found.get(i, []), key=lambda p: p[0])) for i, ins in enumerate(plain))


def _with_comment(ins: Instruction, parts: list[tuple[int, str]]) -> Instruction:
    if not parts:
        return ins
    comment = "\n".join(text for _, text in parts if text)
    notes = read_notes(comment)
    return replace(
        ins,
        comment=comment,
        relocs=notes.relocs,
        bytecode=notes.bytecode,
        frames=notes.frames,
        implicit_target=notes.implicit_target,
    )
