"""Immediate dominators of a small graph given as adjacency lists (Cooper, Harvey and Kennedy's iteration).

The loops pass needs only this; plain lists of ints cost a fraction of building a networkx graph per method.
Immediate dominators are unique, so the result is the one `networkx.immediate_dominators` gives (the tests
compare the two on the corpus).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def postorder(successors: Mapping[int, Sequence[int]], start: int) -> list[int]:
    """The nodes reachable from `start`, each after every node a depth-first search reaches from it."""
    order: list[int] = []
    seen = {start}
    stack = [(start, iter(successors.get(start, ())))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if child not in seen:
                seen.add(child)
                stack.append((child, iter(successors.get(child, ()))))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def immediate_dominators(
    successors: Mapping[int, Sequence[int]], predecessors: Mapping[int, Sequence[int]], start: int,
    order: list[int] | None = None,
) -> dict[int, int]:
    """The immediate dominator of every node reachable from `start`; `start` maps to itself. `order` is
    `postorder(successors, start)` when the caller has it already."""
    order = list(postorder(successors, start) if order is None else order)
    rank = {node: index for index, node in enumerate(order)}
    idom = {start: start}
    order.pop()
    order.reverse()
    changed = True
    while changed:
        changed = False
        for node in order:
            new: int | None = None
            for pred in predecessors.get(node, ()):
                if pred in idom:
                    new = pred if new is None else _intersect(idom, rank, pred, new)
            if new is not None and idom.get(node) != new:
                idom[node] = new
                changed = True
    return idom


def _intersect(idom: dict[int, int], rank: dict[int, int], a: int, b: int) -> int:
    while a != b:
        while rank[a] < rank[b]:
            a = idom[a]
        while rank[a] > rank[b]:
            b = idom[b]
    return a
