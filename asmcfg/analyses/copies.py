"""C2's copies of one source loop: the pre-loop, the unrolled main loop, the vector drain loop and the post-loop.

C2 splits a counted loop into a pre-loop (a few iterations, to align), a main loop (unrolled, vectorized,
and strip-mined: wrapped in an outer loop that holds the safepoint poll) and a post-loop (the remaining
iterations); after a vectorized main loop, a vector post-loop drains what is left at full width before the
scalar post-loop. From the code: the main loop is the only loop inside a strip-mined outer loop (it polls, the
inner one does not) or, without strip mining, the innermost loop that repeats its memory accesses most;
it counts as main only when another innermost loop of the same enclosing loop leads to it (the pre-loop);
another strip-mined main loop is never a pre- or post-loop.
Innermost loops it leads to are the post-loop, or the drain loop when both it and the main loop are vectorized.
Control is followed forward inside the enclosing loop, never through its header or another loop's header.
In a partial method (perfasm regions) only the strip-mined main loop is named: the code between copies may
not be shown.
The unroll factor of a main or drain loop is the number of copies its own blocks hold of one memory access
(same mnemonic and address registers at distinct displacements) or of one bytecode@bci of the debug info.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from dataclasses import dataclass, field

from asmcfg.analyses.context import Context
from asmcfg.analyses.hotness import is_cold
from asmcfg.analyses.vectors import own_blocks
from asmcfg.model import Analysis, Feature, Loop, LoopFacts, LoopRole
from asmcfg.model.factory import replace

_NUMBER = re.compile(r"-?0x[0-9a-fA-F]+|#-?\d+")



def _memory(operands: str) -> tuple[int, str] | None:
    """(start, text) of the first `(…)` or `[…]` in `operands`: what `\\([^)]*\\)|\\[[^\\]]*\\]` searches for, in one
    pass (the search would scan to the end from every `(` of a line of them). Only the first opening bracket of a
    kind can start one: when no closing bracket follows it, none follows a later one either."""
    found = []
    for opening, closing in ("()", "[]"):
        start = operands.find(opening)
        end = operands.find(closing, start + 1) if start >= 0 else -1
        if end >= 0:
            found.append((start, operands[start : end + 1]))
    return min(found) if found else None

def strip_mined_outer(result: Analysis, loop: Loop) -> bool:
    """C2's strip-mined outer loop: it polls, and holds exactly one inner loop that does not."""
    mine = frozenset(loop.blocks)
    inner = [other for other in result.loops if other.depth == loop.depth + 1 and frozenset(other.blocks) < mine]
    return loop.has_poll and len(inner) == 1 and not inner[0].has_poll


def run(ctx: Context, result: Analysis) -> Analysis:
    """Role and unroll factor of every loop, in `loop_facts`."""
    facts = dict(result.loop_facts)
    roles = _roles(ctx, result)
    for loop in result.loops:
        old = facts.get(loop.header, LoopFacts(loop.header, LoopRole.NONE, 1, None, ""))
        role = roles.get(loop.header, LoopRole.NONE)
        copies = unroll(ctx, result, loop) if role in (LoopRole.MAIN, LoopRole.DRAIN) else 1
        facts[loop.header] = replace(old, role=role, unroll=copies)
    return replace(result, loop_facts=facts)


def unroll(ctx: Context, result: Analysis, loop: Loop) -> int:
    """How many copies of one memory access (same mnemonic and address registers, distinct displacements) or of
    one bytecode@bci the loop's own blocks hold (1 when none repeats)."""
    accesses: dict[str, set[str]] = {}
    scopes: Counter[tuple[str, int, str]] = Counter()
    for block in own_blocks(result, loop):
        if is_cold(result, block):
            continue
        b = ctx.block(block)
        for ins in ctx.cfg.method.instructions[b.start : b.end]:
            memory = _memory(ins.operands)
            if memory:
                outside = ins.operands[: memory[0]].rsplit(",", 1)[-1]
                displacement = outside + "".join(_NUMBER.findall(memory[1]))
                accesses.setdefault(ins.mnemonic + _NUMBER.sub("N", memory[1]), set()).add(displacement)
            if ins.frames and ins.bytecode and not ins.poll:
                scopes[(ins.frames[0].method, ins.frames[0].bci, ins.bytecode)] += 1
    return max([1, *map(len, accesses.values()), *scopes.values()])


@dataclass(frozen=True, slots=True)
class _Nest:
    """How a method's loops nest, worked out once: each question below is asked of every pair of loops."""

    blocks: dict[int, frozenset[int]]
    """Each loop's blocks, by header."""
    strip_mined: frozenset[int]
    """Headers of the strip-mined outer loops (`strip_mined_outer`)."""
    parent: dict[int, int | None]
    """Header of the smallest loop strictly holding each loop and not its strip-mined outer loop, or None."""
    headers: frozenset[int]
    """Every loop's header."""
    reached: dict[int, frozenset[int]] = field(default_factory=dict)
    """The headers each loop leads to (`_headers_reached`), by header, as they are asked for."""


def _nest(result: Analysis) -> _Nest:
    loops = result.loops
    blocks = {loop.header: frozenset(loop.blocks) for loop in loops}
    strip_mined = frozenset(loop.header for loop in loops if _strip_mined(loops, blocks, loop))
    parent: dict[int, int | None] = {}
    for loop in loops:
        mine = blocks[loop.header]
        holders = [o for o in loops if mine < blocks[o.header] and o.header not in strip_mined]
        parent[loop.header] = min(holders, key=lambda o: len(o.blocks)).header if holders else None
    return _Nest(blocks, strip_mined, parent, frozenset(blocks))


def _strip_mined(loops: tuple[Loop, ...], blocks: dict[int, frozenset[int]], loop: Loop) -> bool:
    """`strip_mined_outer` with every loop's blocks as a set already (`blocks`, by header)."""
    mine = blocks[loop.header]
    inner = [other for other in loops if other.depth == loop.depth + 1 and blocks[other.header] < mine]
    return loop.has_poll and len(inner) == 1 and not inner[0].has_poll


def _roles(ctx: Context, result: Analysis) -> dict[int, LoopRole]:
    roles: dict[int, LoopRole] = {}
    nest = _nest(result)
    innermost = [loop for loop in result.loops if not _contains_loop(result, nest, loop)]
    outers = [loop for loop in result.loops if loop.header in nest.strip_mined]
    for outer in outers:
        roles[outer.header] = LoopRole.STRIP_MINED_OUTER
    mains = [(_inner(result, nest, o), o) for o in outers]
    if Feature.PARTIAL in ctx.cfg.method.features:
        return roles | {main.header: LoopRole.MAIN for main, _ in mains}  # code between the copies may not be shown
    if not mains:
        mains = _unstripped_mains(ctx, result, nest, innermost)
    chosen = [(main, entry, _pres(ctx, result, nest, innermost, main, entry, mains)) for main, entry in mains]
    chosen = [(main, entry, pres) for main, entry, pres in chosen if pres]
    for main, _, pres in chosen:
        roles[main.header] = LoopRole.MAIN
        roles.update({pre.header: LoopRole.PRE for pre in pres})
    for main, entry, _ in chosen:
        vector = result.loop_facts.get(main.header)
        for after in _siblings(nest, innermost, entry, mains):
            if after.header not in roles and _leads(ctx, result, nest, entry, after):
                facts = result.loop_facts.get(after.header)
                drain = vector is not None and vector.vectorized and facts is not None and facts.vectorized
                roles[after.header] = LoopRole.DRAIN if drain else LoopRole.POST
    return roles


def _siblings(nest: _Nest, innermost: list[Loop], entry: Loop, mains: list[tuple[Loop, Loop]]) -> list[Loop]:
    """Innermost loops in the same enclosing loop as `entry`, main loops (of any copy group) excepted."""
    taken = {main.header for main, _ in mains}
    parent = nest.parent[entry.header]
    return [s for s in innermost if s.header not in taken and nest.parent[s.header] == parent]


def _pres(ctx: Context, result: Analysis, nest: _Nest, innermost: list[Loop], main: Loop, entry: Loop,
          mains: list[tuple[Loop, Loop]]) -> list[Loop]:
    """The sibling loops whose exit leads forward to the main loop's entry: its pre-loops."""
    return [s for s in _siblings(nest, innermost, entry, mains)
            if s is not main and _leads(ctx, result, nest, s, entry)]


def _unstripped_mains(ctx: Context, result: Analysis, nest: _Nest, innermost: list[Loop]) -> list[tuple[Loop, Loop]]:
    """Without strip mining: per enclosing loop, the innermost loop repeating its body most (at least twice)."""
    groups: dict[int | None, list[Loop]] = {}
    for loop in innermost:
        groups.setdefault(nest.parent[loop.header], []).append(loop)
    found = []
    for loops in groups.values():
        if len(loops) < 2:
            continue
        best = max(loops, key=lambda loop: (unroll(ctx, result, loop), -loop.header))
        if unroll(ctx, result, best) >= 2:
            found.append((best, best))
    return found


def _contains_loop(result: Analysis, nest: _Nest, loop: Loop) -> bool:
    mine = nest.blocks[loop.header]
    return any(other is not loop and nest.blocks[other.header] < mine for other in result.loops)


def _inner(result: Analysis, nest: _Nest, outer: Loop) -> Loop:
    mine = nest.blocks[outer.header]
    return next(o for o in result.loops if o.depth == outer.depth + 1 and nest.blocks[o.header] < mine)


def _leads(ctx: Context, result: Analysis, nest: _Nest, source: Loop, target: Loop) -> bool:
    """True when control leaving `source` reaches `target`'s header forward, inside their enclosing loop."""
    reached = nest.reached.get(source.header)
    if reached is None:
        reached = nest.reached[source.header] = _headers_reached(ctx, result, nest, source)
    return target.header in reached


def _headers_reached(ctx: Context, result: Analysis, nest: _Nest, source: Loop) -> frozenset[int]:
    """The loop headers that control leaving `source` reaches forward inside its enclosing loop, through no other
    header: the search for any one of them would pass over the others, and stop at it (cold or not)."""
    parent = nest.parent[source.header]
    inside = None if parent is None else nest.blocks[parent] - {parent}
    body = nest.blocks[source.header]
    queue = deque(e.dst for b in source.blocks for e in ctx.successors.get(b, ())
                  if isinstance(e.dst, int) and e.dst not in body)
    seen: set[int] = set()
    reached: set[int] = set()
    while queue:
        block = queue.popleft()
        if block in nest.headers:
            reached.add(block)
            continue
        if block in seen or is_cold(result, block) or (inside is not None and block not in inside):
            continue
        seen.add(block)
        queue.extend(e.dst for e in ctx.successors.get(block, ()) if isinstance(e.dst, int))
    return frozenset(reached)
