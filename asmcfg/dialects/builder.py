"""Accumulate one method's lines into a Method record; shared by the text dialects."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from asmcfg import isa
from asmcfg.dialects.annotations import FRAME_FIELDS, read_notes
from asmcfg.model import DialectName, Feature, Frame, Header, Instruction, IsaName, Method
from asmcfg.model.make import compiled, field_descriptors
from asmcfg.sources.numbers import ADDRESS

_PREFIXES = isa.for_name(IsaName.X86_64).prefixes


Printed = tuple[int, str, str, int]
"""An instruction as read: address, mnemonic, operands and line number (its comment is kept apart)."""
Build = Callable[
    [list[Printed], dict[int, list[str]], type, tuple[Any, ...], Callable[[str], Any], type, tuple[Any, ...]],
    tuple[Any, ...],
]
"""`_build.instructions(rows, comments, Instruction, fields, read_notes, Frame, frame_fields)`: the Instructions
`MethodBuilder.build` makes of its rows and comment lines, made in C, which reads the comments as `read_notes`
does (leaving it those it cannot read the same way for certain) and keeps up to 1,024 of those it read."""
BUILD: Build | None = compiled("asmcfg.dialects._build", "instructions")
"""The maker `MethodBuilder.build` uses, or None: then it makes each Instruction in Python."""
_FIELDS = field_descriptors(Instruction)
"""The descriptors of Instruction's fields, in order, which `BUILD` sets."""
KEPT_SKIPPED = 1_000
"""Lines not understood inside a method that the method keeps (line and text); those beyond are only counted. A
method with no end marker (a JDK 8 dump has none) runs to the end of the input, so all the program printed after
it, maybe GBs, would otherwise be kept as its skipped lines."""


@dataclass(slots=True)
class Skipped:
    """The lines not understood inside one method: the first `KEPT_SKIPPED`, and a count of the rest."""

    kept: list[tuple[int, str]] = field(default_factory=list)
    """(line, text) of the first ones."""
    beyond: int = 0
    """How many came after those kept."""

    def append(self, item: tuple[int, str]) -> None:
        """Keep the line, or count it once `KEPT_SKIPPED` are kept."""
        if len(self.kept) < KEPT_SKIPPED:
            self.kept.append(item)
        else:
            self.beyond += 1

    def extend(self, items: Iterable[tuple[int, str]]) -> None:
        """`append` each of `items`."""
        for item in items:
            self.append(item)

    def merge(self, other: Skipped) -> None:
        """Add the lines of `other`, kept and counted, after these."""
        self.extend(other.kept)
        self.beyond += other.beyond


@dataclass(slots=True)
class MethodBuilder:
    """Collects instructions, markers, constants and skipped lines of one method."""

    header: Header
    source: str
    dialect: DialectName = DialectName.HSDIS
    instructions: list[Printed] = field(default_factory=list)
    comments: dict[int, list[str]] = field(default_factory=dict)
    """Comment lines by instruction index, the one on the instruction's own line first."""
    markers: list[tuple[int, str]] = field(default_factory=list)
    constants: list[tuple[int, int]] = field(default_factory=list)
    skipped: Skipped = field(default_factory=Skipped)
    sections: dict[str, tuple[int, int]] = field(default_factory=dict)
    features: set[Feature] = field(default_factory=set)
    label: str | None = None

    def add_instruction(self, address: int, body: str, line: int) -> None:
        """Add `mnemonic operands ;comment` at `address`."""
        text, _, comment = body.partition(";")
        mnemonic, operands = split_mnemonic(text)
        if comment:
            self.comments[len(self.instructions)] = [comment]
        self.instructions.append((address, mnemonic, operands, line))

    def add_comment(self, text: str) -> bool:
        """Append a continuation comment line to the last instruction; False if there is none."""
        if not self.instructions:
            return False
        self.comments.setdefault(len(self.instructions) - 1, []).append(text.strip().lstrip(";"))
        return True

    def add_marker(self, label: str) -> None:
        """A section label (`Verified Entry Point`) before the next instruction."""
        self.markers.append((len(self.instructions), label))

    def build(self, jdk_hint: int | None = None) -> Method:
        """The finished Method."""
        instructions = self._instructions()
        sample = instructions[:200]
        isa_name, syntax = isa.guess([i.mnemonic for i in sample], [i.operands for i in sample])
        header = self.header
        if header.name == "<unknown>" and self.label:
            header = replace(header, name=self.label)
        begin, end = code_range(self.sections)
        return Method(
            header=header,
            instructions=instructions,
            markers=tuple(self.markers),
            source=self.source,
            isa=isa_name,
            syntax=syntax,
            code_begin=begin,
            code_end=end,
            main_code_size=main_code_size(self.sections),
            constants=tuple(self.constants),
            jdk_hint=jdk_hint,
            skipped=tuple(self.skipped.kept),
            dialect=self.dialect,
            features=frozenset(self.features | layout_features(instructions, self.sections)),
            skipped_beyond=self.skipped.beyond,
        )

    def _instructions(self) -> tuple[Instruction, ...]:
        """An Instruction per row, with its comment lines read."""
        build, comments = BUILD, self.comments
        if build is not None and _FIELDS:
            made: tuple[Instruction, ...] = build(
                self.instructions, comments, Instruction, _FIELDS, read_notes, Frame, FRAME_FIELDS
            )
            return made
        make = Instruction
        return tuple(
            _noted(printed, comments[i]) if i in comments else make(*printed, "", (), "", (), None, None, None)
            for i, printed in enumerate(self.instructions)
        )


def split_mnemonic(text: str) -> tuple[str, str]:
    """Split `mnemonic operands`: capstone separates them with tabs, binutils with spaces."""
    text = text.strip()
    if "\t" in text:
        head, _, tail = text.partition("\t")
        return head.strip(), tail.strip()
    words = text.split(" ")
    count = 1
    while count < len(words) and words[count - 1].lower() in _PREFIXES:
        count += 1
    return " ".join(words[:count]), " ".join(words[count:]).strip()


def _noted(printed: Printed, parts: list[str]) -> Instruction:
    """The instruction with its comment lines read."""
    comment = parts[0].strip() if len(parts) == 1 else "\n".join(c.strip() for c in parts if c.strip())
    notes = read_notes(comment)
    return Instruction(
        *printed, comment, notes.relocs, notes.bytecode, notes.frames, notes.implicit_target, None, None
    )


def code_range(sections: dict[str, tuple[int, int]]) -> tuple[int | None, int | None]:
    """Start of `main code` and end of `stub code` (or of `main code`) from a section table."""
    main = sections.get("main code")
    last = sections.get("stub code") or main
    return (main[0] if main else None), (last[1] if last else None)


def main_code_size(sections: dict[str, tuple[int, int]]) -> int | None:
    """Bytes of `main code` from a section table (None without its row)."""
    main = sections.get("main code")
    return main[1] - main[0] if main else None


def layout_features(instructions: tuple[Instruction, ...], sections: dict[str, tuple[int, int]]) -> set[Feature]:
    """Layout features that date the JDK: an `immutable data` section, `{post_call_nop}`, `{reexecute=…}`."""
    found = set()
    if "immutable data" in sections:
        found.add(Feature.IMMUTABLE_DATA)
    if any("post_call_nop" in i.relocs for i in instructions):
        found.add(Feature.POST_CALL_NOP)
    if any("reexecute=" in i.comment for i in instructions[:400]):
        found.add(Feature.REEXECUTE)
    return found


HEX_ADDRESS = re.compile(rf"^\s*({ADDRESS}):\s*(.*)$")
