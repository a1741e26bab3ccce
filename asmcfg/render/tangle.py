"""Whether Graphviz can draw a graph in time, judged before it runs. `dot` lays a graph out in layers, each edge
crossing the layers between its ends through one point per layer, and its time grows faster than the number of
those points: a compilation with branches all over its code (a crafted log: random jumps among 6,000 instructions)
took it 2-9 minutes and up to 3 GB, where the largest real compilations measured cross at most 21,000 layers in all
and draw in seconds. Such a graph is listed as blocks at once instead of drawn."""

from __future__ import annotations

import re
from collections import defaultdict

LAYERS = 40_000
"""Most layers a graph's edges may cross in all to be drawn (the largest real compilations: about 21,000)."""
_EDGE = re.compile(r"  (\w+) -> (\w+) ")
"""An edge statement of the DOT `render.dot` writes (one statement a line; labels never hold a newline)."""


def too_tangled(dot: str) -> str | None:
    """Why Graphviz is not run on `dot`, or None when it may be."""
    edges = [(found[1], found[2]) for line in dot.splitlines() if (found := _EDGE.match(line))]
    crossed = layers_crossed(edges)
    if crossed <= LAYERS:
        return None
    return (f"too tangled for Graphviz to draw in time ({len(edges):,} edges crossing {crossed:,} layers "
            f"in all; at most {LAYERS:,})")


def layers_crossed(edges: list[tuple[str, str]]) -> int:
    """The layers the edges cross in all when each node is put one layer below its deepest predecessor, the edges
    that close a cycle (found depth first, from the first node) turned round: linear in the graph's size."""
    following: defaultdict[str, list[str]] = defaultdict(list)
    for src, dst in edges:
        following[src].append(dst)
    order: list[str] = []
    state: dict[str, int] = {}
    back: set[tuple[str, str]] = set()
    for root in dict.fromkeys(node for edge in edges for node in edge):
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(following[root]))]
        while stack:
            node, rest = stack[-1]
            for nxt in rest:
                if state.get(nxt) == 1:
                    back.add((node, nxt))
                elif nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(following[nxt])))
                    break
            else:
                state[node] = 2
                order.append(node)
                stack.pop()
    layer: dict[str, int] = {}
    for node in reversed(order):
        here = layer.setdefault(node, 0)
        for nxt in following[node]:
            if (node, nxt) not in back and layer.get(nxt, 0) < here + 1:
                layer[nxt] = here + 1
    return sum(abs(layer[dst] - layer[src]) for src, dst in edges)
