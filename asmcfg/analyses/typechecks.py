"""Type checks: compares against a class constant (`{metadata('Shapes$Circle')}`) and subtype-check stub calls.

The class comes from the `metadata('…')` relocation of the compare itself (x86 `cmpl $0x1001000, %r8d`) or of
the instruction that loaded it into a register the compare reads (AArch64 `movz x14, … ; {metadata(…)}`
hoisted before the loop, then `cmp w8, w14`). A compare counts when its block ends in a conditional branch;
what its failing side leads to is the trap reached through straight-line code (`class_check`,
`bimorphic`, …) or the virtual or interface call made there. C1's and C2's subtype-check stubs
(`slow_subtype_check`, `partial_subtype_check`) are type checks too.
"""

from __future__ import annotations

import functools
import re

from asmcfg.analyses.checks import failure_path
from asmcfg.analyses.context import Context, add_tags
from asmcfg.hotspot.stubs import SUBTYPE_CHECK
from asmcfg.model import Analysis, CallKind, EdgeKind, Flow, Instruction, Syntax, Tag, TypeCheck
from asmcfg.model.factory import replace

_CLASS = re.compile(r"^metadata\(('[^']*'|\{type array \w+\})((?:\[\])*)\)$")
_REGISTER = re.compile(r"%?\b([rx]\d+|[re]?[a-d]x|[re]?[sd]i|[re]?[sb]p|w\d+)[dwb]?\b")
_registers = functools.lru_cache(maxsize=4096)(_REGISTER.findall)
"""The registers an operand text names, cached: a method's operands repeat (`%r10d,0xc(%rsp)`); read only."""


def run(ctx: Context, result: Analysis) -> Analysis:
    """`type_checks`, with a `type_check` tag on their blocks."""
    found: list[TypeCheck] = []
    loaded: dict[str, str] = {}
    instructions = ctx.cfg.method.instructions
    syntax, flows = ctx.cfg.method.syntax, ctx.layout.flows
    for block in ctx.cfg.blocks:
        ends_cond = flows[block.end - 1] is Flow.COND
        for i in range(block.start, block.end):
            ins = instructions[i]
            if not ins.relocs and not any(held in ins.operands for held in loaded):
                continue  # no class named here or held in a register it names: nothing compared, nothing to forget
            classes = _compared(ins, loaded, syntax)
            if classes and ends_cond:
                found.append(_check(ctx, result, block.id, i, classes))
    for call in result.calls:
        if SUBTYPE_CHECK.search(call.callee):
            found.append(TypeCheck(call.block, call.site, (), "", instructions[call.site].bytecode))
    tags = {check.block: {Tag.TYPE_CHECK} for check in found}
    return add_tags(replace(result, type_checks=tuple(found)), tags)


def _compared(ins: Instruction, loaded: dict[str, str], syntax: Syntax) -> tuple[str, ...]:
    """Classes `ins` compares against; keeps `loaded` (register -> class) up to date as registers are written."""
    names = [_class(r) for r in ins.relocs if _class(r)]
    registers = _registers(ins.operands)
    compare = ins.mnemonic.lower().startswith("cmp")
    if names and compare:
        return tuple(names)
    if compare:
        held = [_number(r) for r in registers]
        return tuple(dict.fromkeys(loaded[r] for r in held if r in loaded))
    if registers:
        dest = _number(registers[-1] if syntax is Syntax.ATT else registers[0])
        if names:
            loaded[dest] = names[0]
        elif not ins.mnemonic.startswith("movk"):
            loaded.pop(dest, None)
    return ()


@functools.lru_cache(maxsize=4096)
def _class(reloc: str) -> str:
    found = _CLASS.match(reloc)
    return found.group(1).strip("'") + found.group(2) if found else ""


def _number(register: str) -> str:
    """One name for a register's views: `w14`/`x14` -> `14`, `%r10d` -> `r10`."""
    return register[1:] if register[:1] in "wx" and register[1:].isdigit() else register


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
