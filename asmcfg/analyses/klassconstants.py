"""Graal's type switches: an object's class word compared with class constants of the code's `[Constant Pool]`.

Graal (a JVMCI compiler) guards a type profile by loading the receiver's class (`movl 8(%rdx), %eax`, decoded
with `shlq $3, %rax` where the JDK needs it) and comparing it with 8-byte constants of the compilation's constant
pool (`cmpq -0x47(%rip), %rax`), one compare per class seen, the last failing into a deopt. A compare counts
when the register it reads provably holds a class word: the load is found walking back through the compare's
block and the blocks that can only fall into it, with nothing but the decoding shift writing the register on the
way, and when the constant is one the print shows. The class is named where the compilation's print names that
value (an instruction loading it with a `metadata('…')` relocation), else it is `klass constant #n`, the pool's
n-th 8-byte slot.
"""

from __future__ import annotations

import re

from asmcfg.analyses.context import Context
from asmcfg.isa.base import parse_int
from asmcfg.model import Flow

_LOOKBACK = 24
"""Instructions walked back from a compare to find its class-word load."""
_DECODE = re.compile(r"^shl[lq]?$")
_NAMED = re.compile(r"^metadata\('([^']*)'\)$")
_IMMEDIATE = re.compile(r"\$(0x[0-9a-fA-F]+)")


def compares(ctx: Context) -> list[tuple[int, int, tuple[str, ...]]]:
    """(block, compare, class named) of every compare of a class word with a constant-pool class constant."""
    method = ctx.cfg.method
    if not method.constants:
        return []
    pool = dict(method.constants)
    first = min(pool)
    names = _names(ctx)
    found: list[tuple[int, int, tuple[str, ...]]] = []
    instructions, flows = method.instructions, ctx.layout.flows
    for block in ctx.cfg.blocks:
        if flows[block.end - 1] is not Flow.COND:
            continue
        for i in range(block.start, block.end - 1):
            if i + 1 >= len(instructions) or not instructions[i].relocs:
                continue
            compared = ctx.table.constant_compare(instructions[i], instructions[i + 1].address)
            if compared is None or compared[1] not in pool or not _holds_klass(ctx, block.id, i, compared[0]):
                continue
            value = pool[compared[1]]
            name = names.get(value) or f"klass constant #{(compared[1] - first) // 8}"
            found.append((block.id, i, (name,)))
    return found


def _names(ctx: Context) -> dict[int, str]:
    """Values the print names: the immediate of an instruction with a `metadata('…')` relocation."""
    names: dict[int, str] = {}
    for ins in ctx.cfg.method.instructions:
        for reloc in ins.relocs:
            named, immediate = _NAMED.match(reloc), _IMMEDIATE.search(ins.operands)
            value = parse_int(immediate.group(1)) if named and immediate else None
            if named and value is not None:
                names.setdefault(value, named.group(1))
    return names


def _holds_klass(ctx: Context, block_id: int, site: int, register: str) -> bool:
    """The class-word load reaches compare `site` through `register`, along straight-line code only."""
    instructions = ctx.cfg.method.instructions
    current: int | None = block_id
    index, steps = site - 1, 0
    while current is not None and steps < _LOOKBACK:
        block = ctx.block(current)
        while index >= block.start and steps < _LOOKBACK:
            ins = instructions[index]
            if ctx.layout.flows[index] is Flow.CALL:
                return False
            if ctx.table.klass_load(ins) == register:
                return True
            if ctx.table.written_register(ins) == register and not _DECODE.match(ins.mnemonic):
                return False
            index -= 1
            steps += 1
        current = ctx.fallthrough_pred(current) if index < block.start else None
        if current is not None:
            index = ctx.block(current).end - 1
    return False
