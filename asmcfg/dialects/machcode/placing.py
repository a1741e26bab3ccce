"""Which decoded instruction a `[MachCode]` comment describes.

Without hsdis HotSpot prints the comments per 4-byte chunk `[begin, begin + 4)` of code
(`nmethod::print_code_comment_on(begin, end)`), and what it prints names an address inside or at the end of the
chunk, not an instruction:
- the oop map and the scope (`; - C::m@12`) of the first pc in `(begin, end]`: the end of the instruction they
  describe (a call's return address, the pc after a C2 instruction with non-safepoint debug info);
- the first relocation whose address is in `[begin, end)` (`reloc_string_for`): on x86 the first byte of the
  instruction whose bytes it describes (`Assembler::relocate(inst_mark(), …)`), on AArch64 its word;
- the implicit-exception entry of exactly `begin` (a faulting instruction that starts mid-chunk prints none).

On x86 several instructions can start in one chunk, and a relocation's text names only its kind, so the kind
says which of them holds it: a Java call relocation the direct call, a runtime call one a call or jump out of
the method (or the `movabs` of its address), a class, method or oop constant the instruction with a 4- or
8-byte immediate, a section, internal or external word the one with a 4- or 8-byte immediate or displacement,
a poll the memory read, a `{post_call_nop}` the `nop` after a call. A relocation whose kind says nothing of its
instruction (`{no_reloc}`, `{other}`), or a chunk with no instruction of the right shape, keeps the first
instruction that starts there.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from asmcfg.isa.base import Isa
from asmcfg.model import Flow, Instruction, IsaName

CHUNK = 4
"""HotSpot prints comments per 4-byte chunk of code, on x86 as on AArch64."""
SCOPE, RELOC, IMPLICIT = 0, 1, 2
"""Kinds of comment line: scope or oop map, relocation, implicit exception."""
_JAVA_CALLS = ("static_call", "opt_virtual_call", "optimized virtual_call", "virtual_call")
_CONSTANTS = ("metadata(", "oop(", "static_stub")
_WORDS = ("section_word", "internal_word", "external_word")
_WIDE = 4
"""Bytes of the smallest field a relocation patches on x86 (a 32-bit immediate or displacement)."""

Fields = Callable[[int, int], tuple[int, int]]
"""(address, size) of an instruction -> (immediate bytes, displacement bytes) of its encoding."""


def kind(text: str) -> int:
    """SCOPE, RELOC or IMPLICIT for a comment line."""
    body = text.lstrip(";").strip()
    if body.startswith("{"):
        return RELOC
    return IMPLICIT if body.startswith("implicit exception") else SCOPE


@cache
def _detailed() -> Any:
    import capstone

    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.detail = True
    return md


def field_sizes(regions: Sequence[tuple[int, bytes]], isa: IsaName) -> Fields:
    """The `Fields` of instructions decoded from `regions`; (0, 0) off x86-64, or where the bytes at an address
    do not decode to an instruction of that size (a C1 patching site, decoded from its stub's copy)."""
    starts = [start for start, _ in regions]

    def sizes(address: int, size: int) -> tuple[int, int]:
        k = bisect_right(starts, address) - 1
        if isa is not IsaName.X86_64 or k < 0:
            return 0, 0
        start, data = regions[k]
        code = data[address - start : address - start + size]
        for insn in _detailed().disasm(code, address, 1):
            return (insn.imm_size, insn.disp_size) if insn.size == size else (0, 0)
        return 0, 0

    return sizes


@dataclass(slots=True)
class Placer:
    """Finds the instruction a comment line of the chunk at `address` belongs to."""

    plain: list[Instruction]
    """The decoded instructions, without comments."""
    table: Isa
    """The ISA's table: flow kinds and branch targets."""
    fields: Fields
    """Immediate and displacement sizes of an instruction's encoding."""
    flows: list[Flow] = field(default_factory=list)
    """Flow kind of each instruction."""
    starts: list[int] = field(default_factory=list)
    """First address of each."""
    ends: list[int] = field(default_factory=list)
    """Address one past each."""
    polls: set[int] = field(default_factory=set)
    """Indices given a `{poll}` or `{poll_return}` so far."""
    unplaced: int = 0
    """Relocations of a chunk holding several instruction starts that no rule placed (kept on the first)."""

    def __post_init__(self) -> None:
        self.flows = [self.table.flow(ins) for ins in self.plain]
        self.starts = [ins.address for ins in self.plain]
        self.ends = [ins.address + (ins.size or 0) for ins in self.plain]

    def scope(self, address: int) -> int | None:
        """Scopes and oop maps describe a pc in (address, address + 4]: after a call, or where a poll starts."""
        ending = range(bisect_right(self.ends, address), bisect_right(self.ends, address + CHUNK))
        if not ending:
            return self.containing(address)
        return _prefer(ending, lambda i: self.flows[i] is Flow.CALL, lambda i: i + 1 in self.polls)

    def other(self, address: int, line_kind: int, body: str) -> int | None:
        """Relocations and implicit exceptions name an instruction starting in [address, address + 4)."""
        starting = range(bisect_left(self.starts, address), bisect_left(self.starts, address + CHUNK))
        if not starting:
            return self.containing(address)
        if line_kind == IMPLICIT:
            return _prefer(starting, lambda i: self.starts[i] == address)
        if len(starting) == 1:
            return starting[0]
        holds = self.holder(body[1:])
        found = next((i for i in starting if holds(i)), None) if holds is not None else None
        if found is None:
            self.unplaced += 1
            return starting[0]
        return found

    def holder(self, reloc: str) -> Callable[[int], bool] | None:
        """The test an instruction holding a relocation of this text passes; None when the kind says nothing."""
        if reloc.startswith(_JAVA_CALLS):
            return self.java_call
        if reloc.startswith("runtime_call"):
            return self.runtime_call
        if reloc.startswith("poll"):
            return self.reads_memory
        if reloc.startswith("post_call_nop"):
            return self.post_call_nop
        if reloc.startswith(_CONSTANTS):
            return lambda i: self.fields(self.starts[i], self.ends[i] - self.starts[i])[0] >= _WIDE
        if reloc.startswith(_WORDS):
            return lambda i: max(self.fields(self.starts[i], self.ends[i] - self.starts[i])) >= _WIDE
        return None

    def java_call(self, i: int) -> bool:
        """A direct call: what `{static_call}` and the virtual call relocations sit on."""
        return self.flows[i] is Flow.CALL and self.table.target(self.plain[i]) is not None

    def runtime_call(self, i: int) -> bool:
        """A direct call or jump out of the method, or the 8-byte immediate load of a routine's address."""
        if self.flows[i] in (Flow.CALL, Flow.JUMP):
            target = self.table.target(self.plain[i])
            return target is not None and self.containing(target) is None
        return self.flows[i] is Flow.NONE and self.fields(self.starts[i], self.ends[i] - self.starts[i])[0] == 8

    def reads_memory(self, i: int) -> bool:
        """An instruction with a memory operand: the load or compare of a safepoint poll."""
        return "(" in self.plain[i].operands or "[" in self.plain[i].operands

    def post_call_nop(self, i: int) -> bool:
        """The `nop` right after a call, where JDK 21+ keeps data for finding the call's frame."""
        return self.plain[i].mnemonic.startswith("nop") and i > 0 and self.flows[i - 1] is Flow.CALL

    def containing(self, address: int) -> int | None:
        """The instruction whose bytes include `address`."""
        index = bisect_right(self.starts, address) - 1
        return index if index >= 0 and address < self.ends[index] else None


def _prefer(indices: range, *tests: Callable[[int], bool]) -> int:
    """The first index passing the first test any index passes, else the first index."""
    for good in tests:
        found = next((i for i in indices if good(i)), None)
        if found is not None:
            return found
    return indices[0]
