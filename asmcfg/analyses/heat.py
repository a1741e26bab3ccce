"""Measured heat: per-block sums of the method's profile, and the hot paths ranked by that heat.

The hottest path goes round the hottest loop (moving to a smaller loop that shares blocks with it while that
one holds at least half of its heat: an inner or strip-mined loop), starting at its header and following the
hottest successor inside it until the loop closes. When no loop holds heat it starts at the entry (or the
hottest block when the entry has no sample) and follows the hottest successor until it would revisit a block
or control leaves the method. Further paths leave the ones already found at a branch into another sampled
block, or go round another sampled loop, and are ranked by their summed heat, highest first, after it (a path
that enters the hottest loop from outside sums more heat than the loop alone, so the sum cannot rank the first).

Successors are ranked by the heat of the block they lead to, a proxy for edge frequency: a tiny block with
few samples (a one-instruction loop top) can lose to a larger, rarer one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from asmcfg.analyses import loops
from asmcfg.analyses.context import Context, make_context
from asmcfg.analyses.hotness import entry_block, is_cold
from asmcfg.cfg.build import GAP
from asmcfg.model import Analysis, Cfg, EdgeKind, Feature, HotPath, Loop

if TYPE_CHECKING:
    from asmcfg.model import Profile

DEFAULT_PATHS = 3
"""Hot paths computed when the context does not ask for another number."""
_PREFERENCE = {EdgeKind.FALLTHROUGH: 0, EdgeKind.JUMP: 1, EdgeKind.TAKEN: 2, EdgeKind.INDIRECT: 3}

Heat = tuple[float, ...]


def run(ctx: Context, result: Analysis) -> Analysis:
    """`block_heat` and `hot_paths` when the method has a profile; otherwise `result` unchanged."""
    profile = ctx.cfg.method.profile
    if profile is None:
        return result
    result = replace(result, block_heat=block_heat(ctx.cfg, profile))
    count = ctx.paths
    view = partial_view(ctx)
    scene = result if view is ctx else loops.run(view, result)
    return replace(result, hot_paths=hot_paths(view, scene, count))


def partial_view(ctx: Context) -> Context:
    """For a partial method (perfasm regions) the graph as far as it can be known: no fall-through across a
    gap, and code entered only from code that was not printed is a root (a block nothing enters, then the
    first block of any cycle still unreached; alignment padding never is). Other methods are returned as is."""
    cfg = ctx.cfg
    if Feature.PARTIAL not in cfg.method.features:
        return ctx
    starts = {block.start: block.id for block in cfg.blocks}
    after_gap = {starts[i] for i, label in cfg.method.markers if label == GAP and i in starts}
    edges = tuple(e for e in cfg.edges if not (e.kind is EdgeKind.FALLTHROUGH and e.dst in after_gap))
    view = make_context(replace(cfg, edges=edges), ctx.jdk, lay=ctx.layout)
    candidates = [b.id for b in cfg.blocks if not _padding(view, b.id)]
    roots = set(cfg.roots) | {b for b in candidates if not any(e.src != b for e in view.predecessors.get(b, ()))}
    while True:
        reached = _reachable(view, roots)
        rest = [b for b in candidates if b not in reached]
        if not rest:
            return make_context(replace(cfg, edges=edges, roots=tuple(sorted(roots))), ctx.jdk, ctx.paths, ctx.layout)
        roots.add(rest[0])


def _padding(ctx: Context, block: int) -> bool:
    """A block of alignment fill only (`nop`, `xchg %ax,%ax`, `hlt`)."""
    span = ctx.block(block)
    for ins in ctx.cfg.method.instructions[span.start : span.end]:
        base = ctx.table.base_mnemonic(ins.mnemonic)
        fill = ins.operands.replace(" ", "") in ("%ax,%ax", "ax,ax")
        if not (base.startswith("nop") or base == "hlt" or (base == "xchg" and fill)):
            return False
    return True


def _reachable(ctx: Context, roots: set[int]) -> set[int]:
    reached = set(roots)
    stack = list(roots)
    while stack:
        for edge in ctx.successors.get(stack.pop(), ()):
            if isinstance(edge.dst, int) and edge.dst not in reached:
                reached.add(edge.dst)
                stack.append(edge.dst)
    return reached


def block_heat(cfg: Cfg, profile: Profile) -> dict[int, Heat]:
    """Percent per event summed over each block's instructions (each address counted once)."""
    width = len(profile.events)
    seen: set[int] = set()
    sums: dict[int, Heat] = {}
    for block in cfg.blocks:
        total = [0.0] * width
        for ins in cfg.method.instructions[block.start : block.end]:
            values = profile.heat.get(ins.address)
            if values is not None and ins.address not in seen:
                seen.add(ins.address)
                total = [t + v for t, v in zip(total, values, strict=False)]
        sums[block.id] = tuple(total)
    return sums


def heat_of(result: Analysis, blocks: tuple[int, ...] | list[int]) -> Heat:
    """Summed heat per event of `blocks` (zeros when the method has no profile)."""
    profile = result.cfg.method.profile
    width = len(profile.events) if profile is not None else 0
    total = [0.0] * width
    for block in blocks:
        total = [t + v for t, v in zip(total, result.block_heat.get(block, ()), strict=False)]
    return tuple(total)


def loop_blocks(loop: Loop) -> tuple[int, ...]:
    """The loop's blocks; a loop whose only back edge comes from its header is that one block (the loops
    pass currently also lists the blocks that lead into such a loop)."""
    return (loop.header,) if loop.back_edges == (loop.header,) else loop.blocks


def hottest_loop(result: Analysis) -> Loop | None:
    """The loop the hot path goes round: the hottest loop, then repeatedly a smaller loop sharing blocks with
    it that holds at least half of its heat (an inner or strip-mined loop), or None when no loop is sampled."""
    warm = [loop for loop in result.loops if any(v > 0 for v in _loop_heat(result, loop))]
    if not warm:
        return None
    loop = max(warm, key=lambda candidate: (_loop_heat(result, candidate), -candidate.header))
    while True:
        smaller = [
            c
            for c in warm
            if set(loop_blocks(c)) & set(loop_blocks(loop))
            and _size(result, c) < _size(result, loop)
            and _primary(_loop_heat(result, c)) * 2 >= _primary(_loop_heat(result, loop))
        ]
        if not smaller:
            return loop
        loop = max(smaller, key=lambda candidate: (_loop_heat(result, candidate), -candidate.header))


def _loop_heat(result: Analysis, loop: Loop) -> Heat:
    return heat_of(result, loop_blocks(loop))


def _size(result: Analysis, loop: Loop) -> int:
    blocks = result.cfg.blocks
    return sum(blocks[b].end - blocks[b].start for b in loop_blocks(loop))


def _primary(heat: Heat) -> float:
    """The first event's figure, which ranks everything."""
    return heat[0] if heat else 0.0


def hot_paths(ctx: Context, result: Analysis, count: int = DEFAULT_PATHS) -> tuple[HotPath, ...]:
    """Up to `count` distinct paths: first the walk round the hottest loop (from the entry when no loop is
    sampled), then the others by their summed heat, highest first. A longer path through the same loop can sum
    more heat than the loop itself, so the first is not ranked by its sum. Paths over the same blocks (the same
    cycle entered at another block) count once: the first found is kept."""
    loop = hottest_loop(result)
    start = loop.header if loop is not None else _start(ctx, result)
    if start is None or count <= 0:
        return ()
    found = [_walk(ctx, result, [start], set(loop_blocks(loop)) if loop is not None else None)]
    pool = _deviations(ctx, result, found[0]) + _loop_walks(ctx, result)
    kept = {frozenset(found[0])}
    while len(found) < count:
        fresh = [path for path in pool if frozenset(path) not in kept]
        if not fresh:
            break
        best = max(fresh, key=lambda path: (heat_of(result, path), -len(path), [-b for b in path]))
        found.append(best)
        kept.add(frozenset(best))
        pool = fresh + _deviations(ctx, result, best)
    paths = [HotPath(tuple(path), heat_of(result, path)) for path in found]
    paths[0] = replace(paths[0], first="loop" if loop is not None else "entry")
    return (*paths[:1], *sorted(paths[1:], key=lambda path: tuple(-v for v in path.share)))


def _start(ctx: Context, result: Analysis) -> int | None:
    """The entry when it is sampled (or nothing is), else the hottest block."""
    entry = entry_block(ctx, result)
    heated = [b for b, h in result.block_heat.items() if any(v > 0 for v in h)]
    if entry is not None and (entry in heated or not heated):
        return entry
    return max(heated, key=lambda b: (result.block_heat[b], -b), default=entry)


def _successors(ctx: Context, result: Analysis, block: int) -> list[int]:
    """Successor blocks, hottest first; ties go to warm code, then fall-through, then address order."""
    edges = [e for e in ctx.successors.get(block, ()) if isinstance(e.dst, int) and e.kind is not EdgeKind.EXCEPTION]
    ranked = sorted(
        edges,
        key=lambda e: (
            tuple(-v for v in result.block_heat.get(int(e.dst), ())),
            is_cold(result, int(e.dst)),
            _PREFERENCE.get(e.kind, 9),
            e.site,
        ),
    )
    return list(dict.fromkeys(int(e.dst) for e in ranked))


def _walk(ctx: Context, result: Analysis, path: list[int], within: set[int] | None = None) -> list[int]:
    """Extend `path` along the hottest successor (inside `within`, if given) until it would revisit a block
    or has nowhere to go."""
    path = list(path)
    seen = set(path)
    while True:
        options = [b for b in _successors(ctx, result, path[-1]) if within is None or b in within]
        if not options or options[0] in seen:
            return path
        path.append(options[0])
        seen.add(options[0])


def _deviations(ctx: Context, result: Analysis, path: list[int]) -> list[list[int]]:
    """Paths that leave `path` at one of its branches for another sampled block."""
    found: list[list[int]] = []
    for i, block in enumerate(path):
        taken = path[i + 1] if i + 1 < len(path) else None
        for successor in _successors(ctx, result, block):
            sampled = any(v > 0 for v in result.block_heat.get(successor, ()))
            if successor != taken and sampled and successor not in path[: i + 1]:
                found.append(_walk(ctx, result, [*path[: i + 1], successor]))
    return found


def _loop_walks(ctx: Context, result: Analysis) -> list[list[int]]:
    """The hottest walk around each sampled loop."""
    return [
        _walk(ctx, result, [loop.header], set(loop_blocks(loop)))
        for loop in result.loops
        if any(v > 0 for v in _loop_heat(result, loop))
    ]
