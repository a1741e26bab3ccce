"""Natural loops from dominators: back edges, bodies, nesting depth, and which loops poll."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from asmcfg.analyses.context import Context, add_tags
from asmcfg.model import Analysis, Loop, Tag

if TYPE_CHECKING:
    import networkx as nx

_ROOT = -1


def block_graph(ctx: Context) -> nx.DiGraph:
    """Blocks as nodes, edges between blocks, and a virtual root feeding every entry."""
    import networkx as nx  # loaded on first use: listing and error paths never need it

    graph = nx.DiGraph()
    graph.add_nodes_from(b.id for b in ctx.cfg.blocks)
    graph.add_node(_ROOT)
    for root in ctx.cfg.roots:
        graph.add_edge(_ROOT, root)
    for edges in ctx.successors.values():
        for edge in edges:
            if isinstance(edge.dst, int):
                graph.add_edge(edge.src, edge.dst)
    return graph


def run(ctx: Context, result: Analysis) -> Analysis:
    """Find loops and tag their headers."""
    graph = block_graph(ctx)
    import networkx as nx

    dominators = nx.immediate_dominators(graph, _ROOT)
    bodies: dict[int, set[int]] = {}
    latches: dict[int, set[int]] = {}
    for src, dst in graph.edges:
        if src != _ROOT and src in dominators and _dominates(dominators, dst, src):
            bodies.setdefault(dst, {dst}).update(_body(graph, dst, src))
            latches.setdefault(dst, set()).add(src)
    loops = _nest(ctx, bodies, latches)
    return add_tags(replace(result, loops=loops), {loop.header: {Tag.LOOP_HEADER} for loop in loops})


def _dominates(dominators: dict[int, int], a: int, b: int) -> bool:
    node = b
    while True:
        if node == a:
            return True
        parent = dominators.get(node)
        if parent is None or parent == node:
            return False
        node = parent


def _body(graph: nx.DiGraph, header: int, latch: int) -> set[int]:
    body = {header, latch}
    stack = [latch] if latch != header else []
    while stack:
        node = stack.pop()
        for pred in graph.predecessors(node):
            if pred not in body and pred != _ROOT:
                body.add(pred)
                stack.append(pred)
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
