"""C2's copies of one Java loop: the pre-loop, the unrolled main loop, the vector drain loop and the post-loop.

C2 splits a counted loop into a pre-loop (a few iterations, to align), a main loop (unrolled, vectorized,
and strip-mined: wrapped in an outer loop that holds the safepoint poll) and post-loops (the remaining
iterations: after a vectorized main loop a vector drain loop at full width, then the scalar post-loop), laid
out in that order. The copies of one Java loop walk the same Java array elements (same base registers, element
sizes, reads and writes: see analyses.strides) in the same enclosing loop; loops that walk none (the compare
loops of `String.equals`, the zeroing of a new array, other intrinsic and stub loops) are nobody's copies.
Among the copies of one walk, the main loop is the loop a strip-mined outer loop holds or, without strip
mining, the one loop stepping furthest per trip. Another copy is its pre-loop when its exit leads forward to
the main loop (through no other loop header, inside the enclosing loop) and the main loop does not lead to it,
and it is scalar; a post-loop (scalar) or drain loop (packed, after a packed main loop) when the main loop
leads to it. A copy with more than one such place, a second pre-loop, and a copy whose debug info names none of
the methods the main loop's debug info names get no role; nor does a main loop with no copy that is not
packed (it may be a loop C2 never split). In a partial method (perfasm regions) only packed strip-mined main
loops are named: the code between copies may not be shown.
The unroll factor of a main or drain loop is its stride per trip over the elements one copy handles (1 scalar,
register width over element size packed) times the Java loop's step, which is the scalar copies' stride;
absent when any of these is not known.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field, replace

from asmcfg.analyses.context import Context
from asmcfg.analyses.dominators import immediate_dominators, postorder
from asmcfg.analyses.hotness import COLD_TAGS, is_cold
from asmcfg.analyses.loops import _ROOT as ROOT, block_graph
from asmcfg.analyses.strides import Walk, walk
from asmcfg.model import Analysis, Compiler, Feature, Loop, LoopFacts, LoopRole


def strip_mined_outer(result: Analysis, loop: Loop) -> bool:
    """C2's strip-mined outer loop: it polls, and holds exactly one inner loop that does not. Never a JVMCI
    compiler's: a Graal loop that calls needs no poll of its own, so a source's own nest can have that shape."""
    if _jvmci(result):
        return False
    mine = frozenset(loop.blocks)
    inner = [other for other in result.loops if other.depth == loop.depth + 1 and frozenset(other.blocks) < mine]
    return loop.has_poll and len(inner) == 1 and not inner[0].has_poll


def run(ctx: Context, result: Analysis) -> Analysis:
    """Role and unroll factor of every loop, in `loop_facts`."""
    facts = dict(result.loop_facts)
    roles: dict[int, LoopRole] = {}
    unrolls: dict[int, int] = {}
    if not _jvmci(result):  # C2's copies; no Graal loop shape is proven one of them
        walks = {loop.header: walk(ctx, result, loop) for loop in result.loops}
        roles, unrolls = _roles(ctx, result, walks)
    for loop in result.loops:
        old = facts.get(loop.header, LoopFacts(loop.header, LoopRole.NONE, None, None, ""))
        facts[loop.header] = replace(old, role=roles.get(loop.header, LoopRole.NONE), unroll=unrolls.get(loop.header))
    return replace(result, loop_facts=facts)


def _jvmci(result: Analysis) -> bool:
    return result.cfg.method.header.compiler is Compiler.JVMCI


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
    cold: frozenset[int]
    """The cold blocks (`hotness.is_cold`)."""
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
    cold = frozenset(b for b, tags in result.tags.items() if tags & COLD_TAGS)
    return _Nest(blocks, strip_mined, parent, frozenset(blocks), cold)


def _strip_mined(loops: tuple[Loop, ...], blocks: dict[int, frozenset[int]], loop: Loop) -> bool:
    """`strip_mined_outer` with every loop's blocks as a set already (`blocks`, by header)."""
    mine = blocks[loop.header]
    inner = [other for other in loops if other.depth == loop.depth + 1 and blocks[other.header] < mine]
    return loop.has_poll and len(inner) == 1 and not inner[0].has_poll


def _roles(ctx: Context, result: Analysis, walks: dict[int, Walk]) -> tuple[dict[int, LoopRole], dict[int, int]]:
    """Roles of C2's copies, grouped by the array elements they walk in one enclosing loop, and the unroll factor
    of each main and drain loop whose stride and lanes say it."""
    nest = _nest(result)
    roles = {header: LoopRole.STRIP_MINED_OUTER for header in nest.strip_mined}
    entries = {_inner(result, nest, outer).header: outer for outer in result.loops if outer.header in nest.strip_mined}
    groups: dict[tuple[int | None, frozenset[tuple[int, bool]]], list[Loop]] = {}
    walking = [loop for loop in result.loops if loop.header in nest.strip_mined or walks[loop.header].elements]
    for loop in walking:
        held = nest.blocks[loop.header]
        if loop.header in nest.strip_mined or any(nest.blocks[o.header] < held for o in walking):
            continue  # a loop holding loops that walk arrays is no copy: the loops it holds may be
        groups.setdefault((nest.parent[loop.header], walks[loop.header].elements), []).append(loop)
    partial = Feature.PARTIAL in ctx.cfg.method.features
    unrolls: dict[int, int] = {}
    for members in groups.values():
        mains = _mains(members, walks, entries, partial)
        copies = {} if partial else _copies(ctx, result, nest, members, mains, entries, walks)
        for main in mains:
            mine = {h: r for h, (m, r) in copies.items() if m == main.header}
            if not mine and (walks[main.header].lanes or 1) < 2:
                continue
            roles[main.header] = LoopRole.MAIN
            roles.update(mine)
            unrolls.update(_unrolls(walks, main.header, mine))
    return roles, unrolls


def _mains(members: list[Loop], walks: dict[int, Walk], entries: dict[int, Loop], partial: bool) -> list[Loop]:
    """The main loops among copies of one walk: each loop a strip-mined outer loop holds; without strip mining,
    the one loop stepping furthest per trip when every other steps less."""
    stripped = [m for m in members if m.header in entries]
    if stripped or partial:
        return [m for m in stripped if not partial or (walks[m.header].lanes or 1) > 1]
    strides = [(walks[m.header].stride, m) for m in members]
    known = sorted(((s, m.header) for s, m in strides if s is not None), reverse=True)
    if len(members) < 2 or len(known) < len(members) or known[0][0] <= known[1][0]:
        return []
    return [m for m in members if m.header == known[0][1]]


def _copies(ctx: Context, result: Analysis, nest: _Nest, members: list[Loop], mains: list[Loop],
            entries: dict[int, Loop], walks: dict[int, Walk]) -> dict[int, tuple[int, LoopRole]]:
    """(main, role) of each other member with exactly one place: the scalar pre-loop of the nearest main loop its
    exit leads to, which it dominates (C2 enters a main loop only through its pre-loop), or the post-loop (scalar)
    or drain loop (packed, after a packed main loop) of the nearest main loop leading to it. A loop whose debug
    info names none of the methods the main loop's names is no copy of it."""
    entry = {main.header: entries.get(main.header, main) for main in mains}
    dominators: dict[int, int] | None = None
    found: dict[int, list[tuple[int, LoopRole]]] = {}
    for other in members:
        if other in mains:
            continue
        mine = [m for m in mains if _same_scope(ctx, result, entry[m.header], other)]
        after = _nearest(ctx, result, nest, [m for m in mine if _leads(ctx, result, nest, other, entry[m.header])],
                         entry, first=True)
        before = _nearest(ctx, result, nest, [m for m in mine if _leads(ctx, result, nest, entry[m.header], other)],
                          entry, first=False)
        places = found.setdefault(other.header, [])
        lanes = walks[other.header].lanes
        if after is not None and lanes == 1:
            dominators = dominators if dominators is not None else _dominators(ctx)
            if _dominates(dominators, other.header, entry[after].header):
                places.append((after, LoopRole.PRE))
        if before is not None:
            packed = (walks[before].lanes or 0) > 1
            role = LoopRole.POST if lanes == 1 else LoopRole.DRAIN if packed and lanes else LoopRole.NONE
            places.append((before, role))
    chosen = {h: p[0] for h, p in found.items() if len(p) == 1 and p[0][1] is not LoopRole.NONE}
    once = Counter(chosen.values())
    return {h: (m, r) for h, (m, r) in chosen.items() if once[(m, r)] <= 1}


def _nearest(ctx: Context, result: Analysis, nest: _Nest, mains: list[Loop], entry: dict[int, Loop],
             first: bool) -> int | None:
    """Of main loops all before (`first` False) or all after a loop, the one nearest to it: no other one lies
    between (is led to by it, when they come before; leads to it, when they come after)."""
    def between(a: Loop, b: Loop) -> bool:
        return _leads(ctx, result, nest, entry[a.header], entry[b.header])
    near = [m for m in mains if not any(o is not m and (between(o, m) if first else between(m, o)) for o in mains)]
    return near[0].header if len(near) == 1 else None


def _dominators(ctx: Context) -> dict[int, int]:
    succ, pred = block_graph(ctx)
    return immediate_dominators(succ, pred, ROOT, postorder(succ, ROOT))


def _dominates(dominators: dict[int, int], a: int, b: int) -> bool:
    """True when every path from an entry to block `b` passes block `a`."""
    node = b
    while node != a:
        parent = dominators.get(node)
        if parent is None or parent == node:
            return False
        node = parent
    return True


def _same_scope(ctx: Context, result: Analysis, main: Loop, other: Loop) -> bool:
    mine, theirs = _methods(ctx, result, main), _methods(ctx, result, other)
    return not mine or not theirs or bool(mine & theirs)


def _methods(ctx: Context, result: Analysis, loop: Loop) -> set[str]:
    """The methods the debug info of the loop's warm blocks names (innermost frames)."""
    found: set[str] = set()
    for block in loop.blocks:
        if not is_cold(result, block):
            b = ctx.block(block)
            found.update(i.frames[0].method for i in ctx.cfg.method.instructions[b.start : b.end] if i.frames)
    return found


def _unrolls(walks: dict[int, Walk], main: int, copies: dict[int, LoopRole]) -> dict[int, int]:
    """Unroll of the main loop and its drain loop: stride over lanes times the Java step, which the scalar
    copies' stride says (absent when they disagree or there is none)."""
    steps = {walks[h].stride for h, role in copies.items() if role in (LoopRole.PRE, LoopRole.POST)}
    if len(steps) != 1:
        return {}
    step = steps.pop()
    unrolls = {}
    for header in [main, *[h for h, role in copies.items() if role is LoopRole.DRAIN]]:
        stride, lanes = walks[header].stride, walks[header].lanes
        if step and stride and lanes and stride % (lanes * step) == 0:
            unrolls[header] = stride // (lanes * step)
    return unrolls


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
        if block in seen or block in nest.cold or (inside is not None and block not in inside):
            continue
        seen.add(block)
        queue.extend(e.dst for e in ctx.successors.get(block, ()) if isinstance(e.dst, int))
    return frozenset(reached)
