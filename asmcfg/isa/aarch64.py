"""AArch64 tables as HotSpot's capstone hsdis prints them (`b.hs #0x…`, `movn w1, #0x1b`)."""

from __future__ import annotations

import re

from asmcfg.isa.base import Isa, parse_int, signed32
from asmcfg.model import Instruction

_CONDITIONS = [
    "eq",
    "ne",
    "cs",
    "hs",
    "cc",
    "lo",
    "mi",
    "pl",
    "vs",
    "vc",
    "hi",
    "ls",
    "ge",
    "lt",
    "gt",
    "le",
    "al",
    "nv",
]
_W1_IMM = re.compile(r"^w1\s*,\s*#?(-?(?:0x)?[0-9a-fA-F]+)(?:\s*,\s*lsl\s*#?(\d{1,2}))?$")
_W1_DEST = re.compile(r"^[wx]1\s*,")


class AArch64(Isa):
    """AArch64: `b`, `b.<cond>`, `cbz/cbnz`, `tbz/tbnz`, `br`, `bl/blr`, `ret`."""

    name = "aarch64"
    conditional = frozenset([f"b.{c}" for c in _CONDITIONS] + ["cbz", "cbnz", "tbz", "tbnz"])
    jumps = frozenset({"b"})
    indirect_jumps = frozenset({"br", "braa", "brab", "braaz", "brabz"})
    calls = frozenset({"bl", "blr", "blraa", "blrab"})
    returns = frozenset({"ret", "retaa", "retab"})
    halts = frozenset({"brk", "udf", "hlt", "dcps1", "dcps2", "dcps3"})
    """`dcps1 #0xdeae` is HotSpot's `stop()`: like x86 `hlt`, control never goes on."""
    unsigned_conditional = frozenset({"b.hs", "b.cs", "b.lo", "b.cc", "b.hi", "b.ls"})

    def base_mnemonic(self, mnemonic: str) -> str:
        """AArch64 has no prefixes; only lower-case the mnemonic."""
        return mnemonic.strip().lower()

    def trap_immediate(self, ins: Instruction) -> int | None:
        """`movn w1, #imm` (w1 = ~imm), `mov/movz w1, #imm`."""
        base = self.base_mnemonic(ins.mnemonic)
        if base not in ("mov", "movz", "movn"):
            return None
        match = _W1_IMM.match(ins.operands.strip())
        if not match:
            return None
        value = parse_int(match.group(1))
        if value is None:
            return None
        value <<= int(match.group(2) or 0)
        return signed32(~value if base == "movn" else value)

    def writes_trap_register(self, ins: Instruction) -> bool:
        """True when the destination is w1/x1 (stores name their source first, so skip them)."""
        base = self.base_mnemonic(ins.mnemonic)
        if base.startswith(("st", "cmp", "cmn", "tst", "b", "cb", "tb")):
            return False
        return bool(_W1_DEST.match(ins.operands.strip()))
