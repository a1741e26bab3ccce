"""The unverified entry of an instance method, found from the code when the hex printer could not label it.

HotSpot labels only pcs at a 4-byte chunk boundary in `[MachCode]` hex. From JDK 21 the inline-cache check
of an instance method is aligned so that the verified entry after it is aligned instead: on JDK 25 C2 code
starts with a 2-byte `66 90` nop and the check 2 bytes after `[Instructions begin]`, so no `[Entry Point]`
(and no `# {method}` or `# this:` lines) is printed. The check is the receiver's klass load, a compare and a
conditional jump to the ic-miss stub, right before the verified entry: its first instruction is the entry.
"""

from __future__ import annotations

from asmcfg.isa.base import Isa
from asmcfg.model import Flow, Instruction

ENTRY, VERIFIED = "Entry Point", "Verified Entry Point"
_CHECK_MAX = 12
"""Most instructions before the verified entry: alignment nops and the check (JDK 25 C1 has 5, C2 4)."""


def unverified_entry(
    instructions: tuple[Instruction, ...], markers: list[tuple[int, str]], table: Isa,
    code: tuple[int | None, int | None],
) -> list[tuple[int, str]]:
    """`markers` with an `Entry Point` at the inline-cache check before the verified entry, when there is one
    and no label names it; `code` is the method's (begin, end) from the section table."""
    labels = dict((label, index) for index, label in markers)
    verified = labels.get(VERIFIED)
    if ENTRY in labels or not verified:
        return markers
    if verified > _CHECK_MAX or not _to_ic_miss(instructions[verified - 1], table, code):
        return markers
    first = next((i for i in range(verified) if not _padding(instructions[i])), None)
    if first is None or first == verified - 1 or not any(_compares(ins) for ins in instructions[first:verified]):
        return markers
    return sorted([*markers, (first, ENTRY)])


def _to_ic_miss(ins: Instruction, table: Isa, code: tuple[int | None, int | None]) -> bool:
    """A conditional jump to the ic-miss stub: named so, or out of the method's code."""
    if table.flow(ins) is not Flow.COND:
        return False
    if "ic_miss" in ins.runtime_call():
        return True
    target = table.target(ins)
    begin, end = code
    return target is not None and begin is not None and end is not None and not begin <= target < end


def _padding(ins: Instruction) -> bool:
    return ins.mnemonic.startswith("nop")


def _compares(ins: Instruction) -> bool:
    return ins.mnemonic.startswith(("cmp", "subs")) or ins.mnemonic == "eor"
