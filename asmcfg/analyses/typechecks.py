"""Type checks: compares against a class constant (`{metadata('Shapes$Circle')}`) and subtype-check stub calls.

The class comes from the `metadata('…')` relocation of the compare itself (x86 `cmpl $0x1001000, %r8d`) or of
the instruction that loaded it into a register the compare reads (AArch64 `movz x14, … ; {metadata(…)}`
hoisted before the loop, then `cmp w8, w14`), as long as nothing wrote that register on any path since (a call
writes them all) and the compare reads it as an operand of its own, not as the address of a memory operand (C1's
lock-stack compare `cmpq -8(%r15,%rdx),%rsi` and class-initialization test `cmpb $4,0x130(%rdx)` are no type
checks). A compare that is an implicit null check (C1's `cmpq (%rsi),%rax`) is none either. A compare counts
when its block ends in a conditional branch;
what its failing side leads to is the trap reached through straight-line code (`class_check`,
`bimorphic`, …) or the virtual or interface call made there. C1's and C2's subtype-check stubs
(`slow_subtype_check`, `partial_subtype_check`) are type checks too.
"""

from __future__ import annotations

import functools
import re

from asmcfg.analyses import registers
from asmcfg.analyses.checks import failure_path
from asmcfg.analyses.context import Context, add_tags
from asmcfg.hotspot.stubs import SUBTYPE_CHECK
from asmcfg.model import Analysis, CallKind, EdgeKind, Flow, Instruction, Syntax, Tag, TypeCheck
from asmcfg.model.factory import replace

_ROUNDS = 64
"""Passes over the blocks `_held` makes at most before giving up."""
_CLASS = re.compile(r"^metadata\(('[^']*'|\{type array \w+\})((?:\[\])*)\)$")


def run(ctx: Context, result: Analysis) -> Analysis:
    """`type_checks`, with a `type_check` tag on their blocks."""
    found: list[TypeCheck] = []
    instructions = ctx.cfg.method.instructions
    syntax, flows = ctx.cfg.method.syntax, ctx.layout.flows
    held = _held(ctx) if any(_class(r) for ins in instructions for r in ins.relocs) else {}
    for block in ctx.cfg.blocks:
        loaded = dict(held.get(block.id, {}))
        ends_cond = flows[block.end - 1] is Flow.COND
        for i in range(block.start, block.end):
            classes = _step(instructions[i], flows[i], loaded, syntax)
            if classes and ends_cond and instructions[i].implicit_target is None:
                found.append(_check(ctx, result, block.id, i, classes))
    for call in result.calls:
        if SUBTYPE_CHECK.search(call.callee):
            found.append(TypeCheck(call.block, call.site, (), "", instructions[call.site].bytecode))
    tags = {check.block: {Tag.TYPE_CHECK} for check in found}
    return add_tags(replace(result, type_checks=tuple(found)), tags)


def _held(ctx: Context) -> dict[int, dict[str, str]]:
    """Per block, the class constants held on entry (register -> class) on every path into it: a forward
    must-analysis over the graph, from nothing held at the entries, to its fixed point (bounded)."""
    instructions, flows, syntax = ctx.cfg.method.instructions, ctx.layout.flows, ctx.cfg.method.syntax
    out: dict[int, dict[str, str]] = {}
    held: dict[int, dict[str, str]] = {}
    for _ in range(_ROUNDS):
        changed = False
        for block in ctx.cfg.blocks:
            known = [out[e.src] for e in ctx.predecessors.get(block.id, ()) if e.src in out]
            state = _meet(known)
            held[block.id] = dict(state)
            for i in range(block.start, block.end):
                _step(instructions[i], flows[i], state, syntax)
            if out.get(block.id) != state:
                out[block.id], changed = state, True
        if not changed:
            return held
    return {}  # no fixed point within the bound: claim nothing held anywhere


def _meet(states: list[dict[str, str]]) -> dict[str, str]:
    """What every state holds alike."""
    if not states:
        return {}
    first, *rest = states
    return {r: c for r, c in first.items() if all(other.get(r) == c for other in rest)}


def _step(ins: Instruction, flow: Flow, loaded: dict[str, str], syntax: Syntax) -> tuple[str, ...]:
    """Classes `ins` compares against, with `loaded` updated past it."""
    if flow is Flow.CALL:
        loaded.clear()  # compiled Java code keeps no value in a register across a call
        return ()
    if not ins.relocs and not loaded:
        return ()  # no class named here or held in a register: nothing compared, nothing to forget
    return _compared(ins, loaded, syntax)


def _compared(ins: Instruction, loaded: dict[str, str], syntax: Syntax) -> tuple[str, ...]:
    """Classes `ins` compares against; keeps `loaded` (register -> class) up to date as registers are written.
    A compare reads a held class only from a register operand of its own: `cmpq -8(%r15,%rdx),%rsi` or the
    class-initialization test `cmpb $4,0x130(%rdx)` compare memory at an address made from the class, not the
    class itself."""
    names = [_class(r) for r in ins.relocs if _class(r)]
    if ins.mnemonic.lower().startswith("cmp") and not ins.mnemonic.lower().startswith("cmpxchg"):
        if names:
            return tuple(names)
        return tuple(dict.fromkeys(loaded[r] for r in registers.direct(ins.operands) if r in loaded))
    writes = registers.written(ins.mnemonic, ins.operands, syntax)
    for register in writes:
        loaded.pop(register, None)
    if names and writes:
        loaded[writes[-1] if syntax is Syntax.ATT else writes[0]] = names[0]
    return ()


@functools.lru_cache(maxsize=4096)
def _class(reloc: str) -> str:
    found = _CLASS.match(reloc)
    return found.group(1).strip("'") + found.group(2) if found else ""


def _check(ctx: Context, result: Analysis, block: int, site: int, classes: tuple[str, ...]) -> TypeCheck:
    for edge in ctx.successors.get(block, ()):
        if edge.kind not in (EdgeKind.TAKEN, EdgeKind.FALLTHROUGH) or not isinstance(edge.dst, int):
            continue
        path = failure_path(ctx, result, edge.dst)
        if path and path[-1] in result.traps:
            trap = result.traps[path[-1]]
            return TypeCheck(block, site, classes, trap.reason, trap.bytecode)
        called = [c for c in result.calls if c.block == edge.dst and c.kind in (CallKind.VIRTUAL, CallKind.INTERFACE)]
        if called:
            bytecode = ctx.cfg.method.instructions[called[0].site].bytecode
            return TypeCheck(block, site, classes, f"{called[0].kind} call", bytecode)
    return TypeCheck(block, site, classes, "", "")
