"""What every architecture table provides: flow kinds, branch targets, trap-request writes."""

from __future__ import annotations

import re
from collections.abc import Sequence

from asmcfg.model import Flow, Instruction

_HEX = re.compile(r"^(?:#)?(0x[0-9a-fA-F]+)\b")

# Runtime calls that never come back: the block ends at the call.
NORETURN_CALLS = (
    "UncommonTrapBlob",
    "DeoptimizationBlob",
    "ExceptionBlob",
    "throw_",
    "deoptimize",
    "unwind_exception",
    "handle_exception",
    "rethrow",
    "forward_exception",
    "MacroAssembler::debug",
)


_CACHED = 1 << 16
"""Distinct mnemonic spellings remembered per table (a bound against hostile input)."""


class Isa:
    """An architecture's tables. Subclasses override the sets, not the logic."""

    name = "generic"
    prefixes: frozenset[str] = frozenset()
    conditional: frozenset[str] = frozenset()
    jumps: frozenset[str] = frozenset()
    indirect_jumps: frozenset[str] = frozenset()
    calls: frozenset[str] = frozenset()
    returns: frozenset[str] = frozenset()
    halts: frozenset[str] = frozenset()
    unsigned_conditional: frozenset[str] = frozenset()
    """Conditional branches on an unsigned comparison (range checks use these)."""

    def __init__(self) -> None:
        self._bases: dict[str, str] = {}
        self._flows: dict[str, Flow] = {}

    def base_mnemonic(self, mnemonic: str) -> str:
        """The mnemonic without prefixes and branch hints (`repz retq` -> `retq`, `jae,pn` -> `jae`)."""
        base = self._bases.get(mnemonic)
        if base is None:
            base = self._base(mnemonic)
            if len(self._bases) < _CACHED:
                self._bases[mnemonic] = base
        return base

    def _base(self, mnemonic: str) -> str:
        words = mnemonic.lower().split()
        while len(words) > 1 and words[0] in self.prefixes:
            words.pop(0)
        return words[-1].split(",", 1)[0] if words else ""

    def flow(self, ins: Instruction) -> Flow:
        """What `ins` does to control flow."""
        known = self._flows.get(ins.mnemonic)
        if known is not None:
            return known
        base = self.base_mnemonic(ins.mnemonic)
        if base in self.jumps:
            return Flow.JUMP if self.target(ins) is not None else Flow.INDIRECT
        flow = self._flow(base)
        if len(self._flows) < _CACHED:
            self._flows[ins.mnemonic] = flow
        return flow

    def flows(self, instructions: Sequence[Instruction]) -> tuple[Flow, ...]:
        """`flow` of each instruction, in order."""
        known, flow = self._flows.get, self.flow
        return tuple(known(ins.mnemonic) or flow(ins) for ins in instructions)

    def _flow(self, base: str) -> Flow:
        if base in self.conditional:
            return Flow.COND
        if base in self.indirect_jumps:
            return Flow.INDIRECT
        if base in self.calls:
            return Flow.CALL
        if base in self.returns:
            return Flow.RETURN
        if base in self.halts:
            return Flow.HALT
        return Flow.NONE

    def target(self, ins: Instruction) -> int | None:
        """The direct branch or call target, if the operand is an address."""
        operand = ins.operands.strip().rsplit(",", 1)[-1].strip()
        match = _HEX.match(operand)
        return int(match.group(1), 16) if match else None

    def noreturn(self, ins: Instruction, last: bool) -> bool:
        """True when `ins` is a call that never returns (traps, throw stubs, a final breakpoint)."""
        callee = ins.runtime_call()
        if any(name in callee for name in NORETURN_CALLS):
            return True
        return last and "breakpoint" in callee

    def trap_immediate(self, ins: Instruction) -> int | None:
        """The immediate this instruction writes to the trap-request register, if it does."""
        return None

    def writes_trap_register(self, ins: Instruction) -> bool:
        """True when `ins` writes the trap-request register in any way."""
        return False

    def table_bound(self, before: Sequence[Instruction]) -> int | None:
        """Entries a jump table can index, from the bounds check in the instructions `before` its jump."""
        return None

    def thread_store(self, ins: Instruction) -> tuple[int, int | str] | None:
        """(offset, immediate or source register) of a store into the current thread's fields, if `ins` is one."""
        return None

    def register_immediate(self, ins: Instruction) -> tuple[str, int] | None:
        """(register, value) when `ins` moves an immediate into a register."""
        return None

    def klass_load(self, ins: Instruction) -> str | None:
        """The register (64-bit name) `ins` loads an object's class word into (`movl 8(%rdx), %eax`), if it does."""
        return None

    def constant_compare(self, ins: Instruction, next_address: int) -> tuple[str, int] | None:
        """(register, address) when `ins` compares a register with a pc-relative constant (`cmpq -0x47(%rip),
        %rax`), the address the constant is read from; `next_address` is the next instruction's."""
        return None

    def written_register(self, ins: Instruction) -> str | None:
        """The register `ins` writes as its destination operand, as its 64-bit name, if any."""
        return None


def signed32(value: int) -> int:
    """Interpret the low 32 bits of `value` as a signed int."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


_MASM = re.compile(r"^[0-9][0-9a-fA-F]*[hH]$")


def masm_number(text: str) -> bool:
    """True for a MASM-style hex number (`25b4d0ah`, `0ffffffffffffa000h`), as Windows hsdis builds print."""
    return _MASM.match(text) is not None


def parse_int(text: str) -> int | None:
    """Parse a decimal, `0x` hex or MASM `…h` hex literal with optional sign and `$`/`#` prefix."""
    text = text.strip().lstrip("$#")
    negative = text.startswith("-")
    text = text.lstrip("+-")
    try:
        if masm_number(text):
            value = int(text[:-1], 16)
        else:
            value = int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    except ValueError:
        return None
    return -value if negative else value
