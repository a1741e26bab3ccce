"""Type checks: compares against a class constant (`{metadata('Shapes$Circle')}`) and subtype-check stub calls.

The class comes from the `metadata('…')` relocation of the compare itself (x86 `cmpl $0x1001000, %r8d`) or of
the instruction that loaded it into a register the compare reads (AArch64 `movz x14, … ; {metadata(…)}`
hoisted before the loop, then `cmp w8, w14`), as long as nothing wrote that register on any path since (a call
writes them all) and the compare reads it as an operand of its own, not as the address of a memory operand (C1's
lock-stack compare `cmpq -8(%r15,%rdx),%rsi` and class-initialization test `cmpb $4,0x130(%rdx)` are no type
checks). Graal's compares of a class word with a constant-pool class constant are found by `klassconstants`. A
compare that is an implicit null check (C1's `cmpq (%rsi),%rax`) is none either. A compare counts
when its block ends in a conditional branch;
what its failing side leads to is the trap reached through straight-line code (`class_check`,
`bimorphic`, …) or the virtual or interface call made there. C1's and C2's subtype-check stubs
(`slow_subtype_check`, `partial_subtype_check`) are type checks too.
"""

from __future__ import annotations

import functools
import heapq
import re
from collections.abc import Sequence
from dataclasses import replace

from asmcfg.analyses import klassconstants, registers
from asmcfg.analyses.checks import failure_path
from asmcfg.analyses.context import Context, add_tags
from asmcfg.hotspot.stubs import SUBTYPE_CHECK
from asmcfg.model import Analysis, CallKind, EdgeKind, Flow, Instruction, Syntax, Tag, TypeCheck

_ROUNDS = 64
"""Passes over the blocks `_held` makes at most before giving up."""
_CLASS = re.compile(r"^metadata\(('[^']*'|\{type array \w+\})((?:\[\])*)\)$")


def run(ctx: Context, result: Analysis) -> Analysis:
    """`type_checks`, with a `type_check` tag on their blocks."""
    found: list[TypeCheck] = []
    instructions = ctx.cfg.method.instructions
    flows = ctx.layout.flows
    if any(_class(r) for ins in instructions for r in ins.relocs):
        steps = _Steps(ctx)
        held = _held(ctx, steps) if steps.compares_held else {}
        for at, chosen in steps.blocks:
            block = ctx.cfg.blocks[at]
            loaded = dict(held.get(block.id, {}))
            ends_cond = flows[block.end - 1] is Flow.COND
            for i in chosen:
                classes = steps.step(i, loaded)
                if classes and ends_cond and instructions[i].implicit_target is None:
                    found.append(_check(ctx, result, block.id, i, classes))
    found.extend(_switch(ctx, [_check(ctx, result, b, site, named) for b, site, named in klassconstants.compares(ctx)]))
    for call in result.calls:
        if SUBTYPE_CHECK.search(call.callee):
            found.append(TypeCheck(call.block, call.site, (), "", instructions[call.site].bytecode))
    tags = {check.block: {Tag.TYPE_CHECK} for check in found}
    return add_tags(replace(result, type_checks=tuple(found)), tags)


Effect = tuple[bool, tuple[str, ...], tuple[str, ...], str | None]
"""What an instruction does to the classes held in registers: (it is a compare, the classes its relocations
name, the registers it reads as operands of its own when it is a compare and writes otherwise, the register that
then holds its class)."""
_CALL: Effect = (False, (), (), None)
"""A call's effect, as far as `Effect` says it: `_Steps` clears every register there."""


class _Steps:
    """The instructions that may change or compare the classes held in registers, each with its `Effect`.

    Only the registers some instruction loads a class into can hold one. An instruction that is no call, has no
    relocation, holds no view of those registers in its operand text (`%edx`, `%dl` of `rdx`; `w14` of `14`) and
    writes none of them without naming it (`cltq` writes `rax`) leaves the classes held as they are and compares
    none of them: it is passed over (most of a method's instructions). When no compare reads one of those
    registers (x86 code compares a class named in the compare itself), only the instructions with relocations
    are chosen: the compares that name their class."""

    def __init__(self, ctx: Context) -> None:
        instructions = ctx.cfg.method.instructions
        flows = ctx.layout.flows
        syntax = ctx.cfg.method.syntax
        self.flows = flows
        self.instructions = instructions
        effects: dict[int, Effect] = {}
        self.effects = effects
        relocated = [i for i, ins in enumerate(instructions) if ins.relocs]
        for i in relocated:
            effects[i] = _effect(instructions[i], flows[i], syntax)
        holders = {effect[3] for effect in effects.values() if effect[3] is not None}
        naming = _naming(instructions, holders) if holders else []
        for i in naming:
            ins = instructions[i]
            if i not in effects and ins.mnemonic.lower().startswith("cmp"):
                effects[i] = _effect(ins, flows[i], syntax)
        self.compares_held = any(compare and not names and not holders.isdisjoint(used)
                                 for compare, names, used, _ in effects.values())
        """Some compare may read a class held in a register (else only the compares naming their class are
        type checks, and what registers hold need not be followed)."""
        chosen = set(relocated)
        if self.compares_held:
            chosen.update(naming, (i for i, flow in enumerate(flows) if flow is Flow.CALL))
            if not holders.isdisjoint(registers.IMPLIED):
                implying = {m for m in {ins.mnemonic for ins in instructions} if registers.implies(m, syntax)}
                chosen.update(i for i, ins in enumerate(instructions) if ins.mnemonic in implying)
            for i in chosen:
                if i not in effects:
                    effects[i] = _effect(instructions[i], flows[i], syntax)
        self.blocks = _by_block(ctx, sorted(chosen))
        """(position in the graph's blocks, the chosen instructions in it in order) of each block holding some."""

    def step(self, i: int, loaded: dict[str, str]) -> tuple[str, ...]:
        """Classes chosen instruction `i` compares against, with `loaded` (register -> class) updated past it."""
        if self.flows[i] is Flow.CALL:
            loaded.clear()  # compiled Java code keeps no value in a register across a call
            return ()
        if not loaded and not self.instructions[i].relocs:
            return ()  # no class named here or held in a register: nothing compared, nothing to forget
        compare, names, used, dest = self.effects[i]
        if compare:
            return names or tuple(dict.fromkeys(loaded[r] for r in used if r in loaded))
        for register in used:
            loaded.pop(register, None)
        if dest is not None:
            loaded[dest] = names[0]
        return ()

    def block(self, chosen: list[int]) -> tuple[bool, frozenset[str], dict[str, str]]:
        """What the `chosen` instructions of a block do to the classes held, as one step: (every register
        forgotten on the way, the registers written, the classes held at the end from loads of their own)."""
        cleared = False
        written: set[str] = set()
        made: dict[str, str] = {}
        for i in chosen:
            if self.flows[i] is Flow.CALL:
                cleared, made = True, {}
                written.clear()
                continue
            compare, names, used, dest = self.effects[i]
            if compare:
                continue
            for register in used:
                made.pop(register, None)
                written.add(register)
            if dest is not None:
                made[dest] = names[0]
        return cleared, frozenset(written), made


def _by_block(ctx: Context, chosen: list[int]) -> list[tuple[int, list[int]]]:
    """`chosen` (instruction indices, in order) grouped by the block holding them: (position of the block in the
    graph's blocks, its chosen instructions), in block order (blocks are laid out in address order)."""
    grouped: list[tuple[int, list[int]]] = []
    blocks = ctx.cfg.blocks
    at = 0
    for i in chosen:
        while at < len(blocks) and blocks[at].end <= i:
            at += 1
        if at == len(blocks):
            break
        if blocks[at].start <= i:
            if not grouped or grouped[-1][0] != at:
                grouped.append((at, []))
            grouped[-1][1].append(i)
    return grouped


def _naming(instructions: Sequence[Instruction], holders: set[str]) -> list[int]:
    """The instructions whose operand text holds a view of one of `holders` (`registers.views`), in order."""
    views = sorted({view for register in holders for view in registers.views(register)})
    search = re.compile("|".join(map(re.escape, views))).search
    return [i for i, ins in enumerate(instructions) if search(ins.operands)]


def _effect(ins: Instruction, flow: Flow, syntax: Syntax) -> Effect:
    """`Effect` of one instruction."""
    return _CALL if flow is Flow.CALL else _text_effect(ins.mnemonic, ins.operands, ins.relocs, syntax)


@functools.lru_cache(maxsize=8192)
def _text_effect(mnemonic: str, operands: str, relocs: tuple[str, ...], syntax: Syntax) -> Effect:
    """`Effect` of an instruction that is no call, from its text (a method's instructions repeat theirs). A compare
    against a held class reads it only from a register operand of its own: `cmpq -8(%r15,%rdx),%rsi` or the
    class-initialization test `cmpb $4,0x130(%rdx)` compare memory at an address made from the class, not the
    class itself."""
    names = tuple(_class(r) for r in relocs if _class(r)) if relocs else ()
    lower = mnemonic.lower()
    if lower.startswith("cmp") and not lower.startswith("cmpxchg"):
        return True, names, () if names else registers.direct(operands), None
    writes = registers.written(mnemonic, operands, syntax)
    dest = (writes[-1] if syntax is Syntax.ATT else writes[0]) if names and writes else None
    return False, names, writes, dest


def _held(ctx: Context, steps: _Steps) -> dict[int, dict[str, str]]:
    """Per block, the class constants held on entry (register -> class) on every path into it: a forward
    must-analysis over the graph, from nothing held at the entries, to its fixed point (bounded).

    Rounds over the blocks in order, each block's state on exit made from its predecessors' as they are when it
    is reached, until a round changes nothing. Each block goes as one step (`_Steps.block`), made once, and a
    round works out only the blocks something flowing into them changed since they last were (any other comes
    out as it was): the states of every round, and the count of rounds, are those of working out every block."""
    blocks = ctx.cfg.blocks
    order = {block.id: at for at, block in enumerate(blocks)}
    moves: list[tuple[bool, frozenset[str], dict[str, str]] | None] = [None] * len(blocks)
    for at, chosen in steps.blocks:
        moves[at] = steps.block(chosen)
    sources: list[list[int]] = [[] for _ in blocks]
    targets: list[list[int]] = [[] for _ in blocks]
    for at, block in enumerate(blocks):
        for edge in ctx.predecessors.get(block.id, ()):
            sources[at].append(order[edge.src])
            targets[order[edge.src]].append(at)
    out: list[dict[str, str] | None] = [None] * len(blocks)
    held: dict[int, dict[str, str]] = {}
    todo: list[int] = list(range(len(blocks)))
    for round_ in range(1, _ROUNDS + 1):
        changed = False
        later: set[int] = set()  # something flowing into these changed after this round worked them out
        queued = set(todo)
        heapq.heapify(todo)
        while todo:
            at = heapq.heappop(todo)
            state = _meet([known for src in sources[at] if (known := out[src]) is not None])
            held[blocks[at].id] = state
            move = moves[at]
            if move is None:
                after = state  # nothing here changes what is held (no state is changed once made)
            else:
                cleared, written, made = move
                after = dict(made) if cleared else {r: c for r, c in state.items() if r not in written} | made
            if out[at] != after:
                out[at], changed = after, True
                for target in targets[at]:
                    if target <= at:
                        later.add(target)
                    elif target not in queued:
                        queued.add(target)
                        heapq.heappush(todo, target)
        if not changed:
            return held
        if not later:  # the next round would change nothing
            return held if round_ < _ROUNDS else {}
        todo = list(later)
    return {}  # no fixed point within the bound: claim nothing held anywhere


def _meet(states: list[dict[str, str]]) -> dict[str, str]:
    """What every state holds alike (one state itself: no state is changed once made)."""
    if not states:
        return {}
    first, *rest = states
    if not rest:
        return first
    return {r: c for r, c in first.items() if all(other.get(r) == c for other in rest)}


def _switch(ctx: Context, checks: list[TypeCheck]) -> list[TypeCheck]:
    """A type switch's compares, each failing into the next one's block, all fail to where the last one does."""
    by_block = {check.block: check for check in checks}
    for check in reversed(checks):
        if check.fails_to:
            continue
        onward = [by_block[e.dst] for e in ctx.successors.get(check.block, ()) if e.dst in by_block]
        if onward and onward[0].fails_to:
            by_block[check.block] = replace(check, fails_to=onward[0].fails_to, bytecode=onward[0].bytecode)
    return [by_block[check.block] for check in checks]


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
