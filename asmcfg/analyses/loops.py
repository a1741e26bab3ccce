"""Natural loops from dominators: back edges, bodies, nesting depth, and which loops poll."""

from __future__ import annotations

from dataclasses import replace

from asmcfg.analyses.context import Context, add_tags
from asmcfg.analyses.dominators import immediate_dominators, postorder
from asmcfg.model import Analysis, Loop, Tag

_ROOT = -1

Adjacency = dict[int, list[int]]
"""Successors (or predecessors) of each node, without repeats, in the order the edges were first seen."""


def block_graph(ctx: Context, roots: tuple[int, ...] | None = None) -> tuple[Adjacency, Adjacency]:
    """(successors, predecessors) of the blocks, with a virtual root feeding every entry (or those of `roots`)."""
    succ: Adjacency = {b.id: [] for b in ctx.cfg.blocks}
    pred: Adjacency = {b.id: [] for b in ctx.cfg.blocks}
    succ[_ROOT] = list(dict.fromkeys(ctx.cfg.roots if roots is None else roots))
    pred[_ROOT] = []
    for root in succ[_ROOT]:
        pred[root].append(_ROOT)
    for src, edges in ctx.successors.items():
        out = succ[src]
        for edge in edges:
            dst = edge.dst
            if isinstance(dst, int) and dst not in out:  # each (src, dst) once: `successors` groups edges by src
                out.append(dst)
                pred[dst].append(src)
    return succ, pred


def run(ctx: Context, result: Analysis) -> Analysis:
    """Find loops and tag their headers.

    An OSR entry jumps into the middle of a loop nest: seen from it, the loops around the one it enters have a
    second way in and are no natural loops. So the loops are found from the method's other entries, then from
    all of them (a C2 OSR compilation's code is reached from its OSR entry alone), and merged by header."""
    osr = {b for b, tags in result.tags.items() if Tag.OSR_ENTRY in tags}
    bodies: dict[int, set[int]] = {}
    latches: dict[int, set[int]] = {}
    if osr:
        _find(ctx, tuple(r for r in ctx.cfg.roots if r not in osr), bodies, latches)
    _find(ctx, None, bodies, latches)
    loops = _nest(ctx, bodies, latches)
    return add_tags(replace(result, loops=loops), {loop.header: {Tag.LOOP_HEADER} for loop in loops})


def _find(
    ctx: Context, roots: tuple[int, ...] | None, bodies: dict[int, set[int]], latches: dict[int, set[int]]
) -> None:
    """Add the natural loops seen from `roots` (every entry when None) to `bodies` and `latches`."""
    succ, pred = block_graph(ctx, roots)
    order = postorder(succ, _ROOT)
    dominators = immediate_dominators(succ, pred, _ROOT, order)
    # a node that dominates another finishes after it in a depth-first search: only such edges can close loops
    finish = {node: index for index, node in enumerate(order)}
    for src, targets in succ.items():
        if src == _ROOT or src not in dominators:
            continue
        for dst in targets:
            if finish.get(dst, -1) >= finish[src] and _dominates(dominators, dst, src):
                bodies.setdefault(dst, {dst}).update(_body(pred, dst, src))
                latches.setdefault(dst, set()).add(src)


def _dominates(dominators: dict[int, int], a: int, b: int) -> bool:
    node = b
    while True:
        if node == a:
            return True
        parent = dominators.get(node)
        if parent is None or parent == node:
            return False
        node = parent


def _body(pred: Adjacency, header: int, latch: int) -> set[int]:
    body = {header, latch}
    stack = [latch] if latch != header else []
    while stack:
        node = stack.pop()
        for before in pred[node]:
            if before not in body and before != _ROOT:
                body.add(before)
                stack.append(before)
    return body


def _nest(ctx: Context, bodies: dict[int, set[int]], latches: dict[int, set[int]]) -> tuple[Loop, ...]:
    instructions = ctx.cfg.method.instructions
    loops = []
    for header, body in bodies.items():
        depth = sum(1 for other, b in bodies.items() if other != header and body < b) + 1
        has_poll = any(
            ins.poll for block in body for ins in instructions[ctx.block(block).start : ctx.block(block).end]
        )
        loops.append(Loop(header, tuple(sorted(body)), depth, tuple(sorted(latches[header])), has_poll))
    return tuple(sorted(loops, key=lambda loop: (loop.depth, loop.header)))
