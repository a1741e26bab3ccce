"""Section labels the hex printer could not print, found from the code.

HotSpot labels only pcs at a 4-byte chunk boundary in `[MachCode]` hex. The handlers: the deopt handler pushes
its own pc and jumps, the exception handler is the code just before it. The unverified entry of an instance
method: from JDK 21 its inline-cache check is aligned so that the verified entry after it is aligned instead;
on JDK 25 C2 code starts with a 2-byte `66 90` nop and the check 2 bytes after `[Instructions begin]`, so no
`[Entry Point]` (and no `# {method}` or `# this:` lines) is printed. The check is the receiver's klass load, a
compare and a conditional jump to the ic-miss stub, right before the verified entry: its first instruction is
the entry.
"""

from __future__ import annotations

import re

from asmcfg.hotspot.sections import DEOPT_HANDLER, ENTRY, EXCEPTION_HANDLER, STUB_CODE, VERIFIED_ENTRY
from asmcfg.isa.base import Isa
from asmcfg.model import Flow, Instruction

_CHECK_MAX = 12
"""Most instructions before the verified entry: alignment nops and the check (JDK 25 C1 has 5, C2 4)."""
_LITERAL = re.compile(r"0x[0-9a-fA-F]+")


def unverified_entry(
    instructions: tuple[Instruction, ...], markers: list[tuple[int, str]], table: Isa,
    code: tuple[int | None, int | None],
) -> list[tuple[int, str]]:
    """`markers` with an `Entry Point` at the inline-cache check before the verified entry, when there is one
    and no label names it; `code` is the method's (begin, end) from the section table."""
    labels = dict((label, index) for index, label in markers)
    verified = labels.get(VERIFIED_ENTRY)
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


def unlabelled_handlers(
    instructions: tuple[Instruction, ...], markers: list[tuple[int, str]], table: Isa
) -> list[tuple[int, str]]:
    """Add the handler labels HotSpot could not print: it labels only pcs at a 4-byte chunk boundary."""
    labels = {label: index for index, label in markers}
    stub = labels.get(STUB_CODE, labels.get(EXCEPTION_HANDLER))
    if stub is None:
        return markers
    flows = [table.flow(ins) for ins in instructions]
    deopt = labels.get(DEOPT_HANDLER)
    if deopt is None:
        first = labels.get(EXCEPTION_HANDLER, stub)
        deopt = next((i for i in range(first, len(instructions)) if _own_pc(instructions, flows, i)), None)
        markers = markers if deopt is None else [*markers, (deopt, DEOPT_HANDLER)]
    if deopt is not None and EXCEPTION_HANDLER not in labels:
        # The exception handler is the code just before the deopt handler, after the stubs' last jump.
        ends = (i for i in range(deopt - 2, stub - 1, -1) if flows[i] in (Flow.JUMP, Flow.HALT, Flow.RETURN))
        start = next(ends, None)
        if start is not None and start + 1 < deopt:
            markers = [*markers, (start + 1, EXCEPTION_HANDLER)]
    return sorted(markers)


def _own_pc(instructions: tuple[Instruction, ...], flows: list[Flow], i: int) -> bool:
    """The deopt handler's entry: it pushes its own pc (`call .+5`, `movabs $here`, `adr lr, here`) then jumps."""
    ins = instructions[i]
    here = ins.address
    if flows[i] is Flow.CALL:
        pushes = any(int(v, 16) == here + (ins.size or 0) for v in _LITERAL.findall(ins.operands))
    else:
        pushes = flows[i] is Flow.NONE and any(int(v, 16) == here for v in _LITERAL.findall(ins.operands))
    return pushes and Flow.JUMP in flows[i + 1 : i + 4]
