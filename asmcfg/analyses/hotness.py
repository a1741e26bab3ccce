"""The static hot path: from the entry into the innermost loop along the likely successors.

It goes through warm blocks only: no trap, stub, handler or check-failure block (`is_cold`), no slow-path call of
an allocation, lock, unlock or GC barrier (`<kind>_slow`), and no block whose every way on leads into those (the
lock-stack fix-up C1's monitor exit makes on the way to its slow call)."""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import replace

from asmcfg.analyses.context import Context
from asmcfg.model import Analysis, EdgeKind, Loop, Tag

COLD_TAGS = frozenset({
    Tag.UNCOMMON_TRAP, Tag.STUB, Tag.EXCEPTION_HANDLER, Tag.DEOPT_HANDLER, Tag.RANGE_CHECK, Tag.NULL_CHECK,
    Tag.IC_MISS, Tag.PADDING,
})
SLOW_TAGS = frozenset({Tag.ALLOCATION_SLOW, Tag.LOCK_SLOW, Tag.UNLOCK_SLOW, Tag.GC_BARRIER_SLOW})
"""Blocks that call a runtime slow path: the fast path around them is the likely way."""
_OFF_TAGS = COLD_TAGS | SLOW_TAGS
_PREFERENCE = {
    EdgeKind.FALLTHROUGH: 0,
    EdgeKind.JUMP: 1,
    EdgeKind.TAKEN: 2,
    EdgeKind.INDIRECT: 3,
    EdgeKind.EXCEPTION: 9,
}


def is_cold(result: Analysis, block: int) -> bool:
    """True for trap, stub, handler and check-failure blocks."""
    return bool(result.block_tags(block) & COLD_TAGS)


def run(ctx: Context, result: Analysis) -> Analysis:
    """Compute the static hot path."""
    start = entry_block(ctx, result)
    if start is None:
        return result
    cold = _off_path(ctx, result)
    loop = _target_loop(ctx, result)
    if loop is None:
        return replace(result, hot_path=tuple(_walk(ctx, cold, start, set())))
    lead = _route(ctx, cold, start, loop.header)
    body = _walk(ctx, cold, loop.header, set(lead[:-1]), within=set(loop.blocks))
    return replace(result, hot_path=tuple(lead[:-1] + body))


def _off_path(ctx: Context, result: Analysis) -> frozenset[int]:
    """Blocks the hot path never enters: cold ones, slow-path calls, and those that only lead into either (a block
    with a way on, every one of them into a block off the path, other than by an exception): looked for among the
    blocks leading into those off the path, each time one more is."""
    ids = {b.id for b in ctx.cfg.blocks}
    off = {b for b, tags in result.tags.items() if b in ids and tags & _OFF_TAGS}
    todo = list(off)
    while todo:
        for edge in ctx.predecessors.get(todo.pop(), ()):
            source = edge.src
            if source in off:
                continue
            targets = [e.dst for e in ctx.successors.get(source, ()) if e.kind is not EdgeKind.EXCEPTION]
            if targets and all(isinstance(t, int) and t in off for t in targets):
                off.add(source)
                todo.append(source)
    return frozenset(off)


def entry_block(ctx: Context, result: Analysis) -> int | None:
    """The block the method is entered at: the OSR entry of an OSR compilation (its only way in), else the
    verified entry, else the entry, else the first root."""
    for tag in (Tag.OSR_ENTRY, Tag.VERIFIED_ENTRY, Tag.ENTRY):
        for block in ctx.cfg.roots:
            if tag in result.block_tags(block):
                return block
    return ctx.cfg.roots[0] if ctx.cfg.roots else None


def _target_loop(ctx: Context, result: Analysis) -> Loop | None:
    warm = [loop for loop in result.loops if not is_cold(result, loop.header)]
    if not warm:
        return None
    # a partial, not a closure: the compiled build keeps a closure's variables in an object that the closure
    # refers to and that refers to it, which only the garbage collector frees (with the whole context)
    return max(warm, key=functools.partial(_rank, ctx))


def _rank(ctx: Context, loop: Loop) -> tuple[int, int, int]:
    """Deepest first, then the one with the most instructions, then the first."""
    return loop.depth, sum(ctx.block(b).end - ctx.block(b).start for b in loop.blocks), -loop.header


def _successors(ctx: Context, cold: frozenset[int], block: int, within: set[int] | None) -> list[int]:
    edges = sorted(ctx.successors.get(block, ()), key=lambda e: (_PREFERENCE[e.kind], e.site))
    found = []
    for edge in edges:
        warm = isinstance(edge.dst, int) and edge.dst not in cold and edge.kind is not EdgeKind.EXCEPTION
        if warm and isinstance(edge.dst, int) and (within is None or edge.dst in within):
            found.append(edge.dst)
    return found


def _route(ctx: Context, cold: frozenset[int], start: int, goal: int) -> list[int]:
    """Shortest warm route from `start` to `goal`, preferring fall-through at each step."""
    parent: dict[int, int | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            break
        for nxt in _successors(ctx, cold, node, None):
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    if goal not in parent:
        return [goal]
    route: list[int] = []
    step: int | None = goal
    while step is not None:
        route.append(step)
        step = parent[step]
    return route[::-1]


def _walk(ctx: Context, cold: frozenset[int], start: int, seen: set[int], within: set[int] | None = None) -> list[int]:
    """Follow the most likely warm successor until the loop closes or the method leaves."""
    path = [start]
    visited = seen | {start}
    current = start
    while True:
        options = [n for n in _successors(ctx, cold, current, within) if n not in visited]
        if not options:
            return path
        current = options[0]
        path.append(current)
        visited.add(current)
