"""Where an OSR compilation is entered from the interpreter: its OSR entry, which the dump prints no marker for.

The code at an OSR entry builds the compiled frame, loads the interpreter's locals and monitors from the OSR
buffer HotSpot passes in the first Java argument register (`%rsi` on x86-64, `x1` on AArch64), calls
`SharedRuntime::OSR_migration_end` to free that buffer and jumps into the loop.

- C1 emits that code where the OSR entry block falls in its block order, after code that never falls through
  into it (a `ret` or a `jmp`): the OSR entry is the first instruction of the straight run of code that leads
  to the call of `OSR_migration_end`, which the dump names (`{runtime_call SharedRuntime::OSR_migration_end…}` on
  the call, or on AArch64 on the `movz` that loads its address). The `[Verified Entry Point]` of a C1 OSR
  compilation is the method's normal entry.
- C2 puts the OSR entry right after its first block, which for an OSR compilation holds only a breakpoint
  (`PoisonOSREntry`: `call os::breakpoint()` on x86-64, whose relocation some dumps print as `{no_reloc}`;
  `brk #0` on AArch64) at the `[Verified Entry Point]`, padded to `InteriorEntryAlignment` (16 bytes on both):
  the OSR entry is the first instruction after the breakpoint that is no padding or starts a 16-byte unit (on
  AArch64 the prolog itself starts with a `nop`, kept free to patch in a jump). Without a breakpoint the OSR
  entry is the verified entry itself.

Any other compiler's OSR entry is not known here (None).
"""

from __future__ import annotations

from asmcfg.hotspot import sections
from asmcfg.model import Compiler, Flow, Instruction, Method

MIGRATION = "OSR_migration_end"
"""The runtime routine every OSR entry calls once the locals are loaded."""
_REACH = 64
"""Instructions before the `OSR_migration_end` call searched for the start of a C1 OSR entry."""
_ALIGN = 16
"""`InteriorEntryAlignment` on x86-64 and AArch64: C2 aligns the block after the breakpoint to it."""
_PADDING = frozenset({"int3", "hlt"})
"""Alignment filler besides the `nop`s."""


def entry(method: Method, flows: tuple[Flow, ...], ends: tuple[bool, ...]) -> int | None:
    """Index of the first instruction of the OSR entry of `method` (None when it is no OSR compilation, or the
    entry cannot be found); `flows` and `ends` are each instruction's flow and whether it ends its block."""
    if method.header.osr_bci is None:
        return None
    if method.header.compiler is Compiler.C1:
        return _c1_entry(method.instructions, flows, ends)
    if method.header.compiler is Compiler.C2:
        return _c2_entry(method, flows)
    return None


def _c1_entry(instructions: tuple[Instruction, ...], flows: tuple[Flow, ...], ends: tuple[bool, ...]) -> int | None:
    """The start of the straight run of code that ends in the named `OSR_migration_end` call."""
    site = next((i for i, ins in enumerate(instructions) if MIGRATION in ins.runtime_call()), None)
    if site is None:
        return None
    start = site
    while start > 0 and not (ends[start - 1] and flows[start - 1] is not Flow.COND):
        start -= 1
        if site - start > _REACH:
            return None
    while start < site and _is_padding(instructions[start]):
        start += 1
    return start


def _c2_entry(method: Method, flows: tuple[Flow, ...]) -> int | None:
    """The first instruction after the breakpoint at the verified entry and its alignment padding."""
    instructions = method.instructions
    verified = next((i for i, label in method.markers if label == sections.VERIFIED_ENTRY), None)
    if verified is None or verified >= len(instructions):
        return None
    if flows[verified] is not Flow.CALL and instructions[verified].mnemonic != "brk":
        return verified
    start = verified + 1
    while start < len(instructions) and _is_padding(instructions[start]) and instructions[start].address % _ALIGN:
        start += 1
    return start if start < len(instructions) else None


def _is_padding(ins: Instruction) -> bool:
    return ins.mnemonic in _PADDING or ins.mnemonic.startswith("nop")
