"""DOT that shapes the layout: loops as nested clusters, and invisible edges that keep cold fragments near
the code that reaches them instead of in a row across the top of the drawing."""

from __future__ import annotations

from typing import TextIO

from asmcfg import describe
from asmcfg.model import Analysis, Loop


def loop_tree(result: Analysis, skip: set[int]) -> dict[int | None, list[Loop]]:
    """Loops by the header of the smallest loop that strictly holds them (None: top level).

    A loop whose blocks overlap another's without nesting is left out: Graphviz clusters must nest."""
    loops = [loop for loop in result.loops if set(loop.blocks) - skip]
    kept: list[Loop] = []
    for loop in sorted(loops, key=lambda lp: -len(lp.blocks)):
        body = set(loop.blocks)
        if all(body <= set(k.blocks) or not body & set(k.blocks) for k in kept):
            kept.append(loop)
    tree: dict[int | None, list[Loop]] = {}
    for loop in kept:
        holders = [k for k in kept if k is not loop and set(loop.blocks) < set(k.blocks)]
        parent = min(holders, key=lambda k: len(k.blocks)).header if holders else None
        tree.setdefault(parent, []).append(loop)
    return tree


def write_loop_clusters(result: Analysis, out: TextIO, skip: set[int]) -> None:
    """Each loop as a cluster holding its blocks and the clusters of the loops inside it."""
    tree = loop_tree(result, skip)
    for loop in tree.get(None, []):
        _write_cluster(result, out, tree, loop, skip, 1)


def _write_cluster(
    result: Analysis, out: TextIO, tree: dict[int | None, list[Loop]], loop: Loop, skip: set[int], level: int
) -> None:
    pad = "  " * level
    label = describe.loop_label(loop.header, loop.depth)
    out.write(f'{pad}subgraph cluster_loop{loop.header} {{\n')
    fill = describe.loop_fill(loop.depth)
    out.write(
        f'{pad}  graph [id="loop{loop.header}" label="{label}" labeljust="l" fontname="{describe.FONT}" '
        f'style="rounded,filled" color="{describe.LOOP_COLOUR}" fillcolor="{fill}"];\n'
    )
    inner = tree.get(loop.header, [])
    nested = {b for child in inner for b in child.blocks}
    for child in inner:
        _write_cluster(result, out, tree, child, skip, level + 1)
    own = [b for b in loop.blocks if b not in nested and b not in skip]
    if own:
        out.write(f"{pad}  {' '.join(f'b{b}' for b in own)};\n")
    out.write(f"{pad}}}\n")


def write_anchors(result: Analysis, out: TextIO, folded: dict[int, str]) -> None:
    """Invisible edges that rank each folded chain under the first block that reaches it, and each block
    nothing reaches (padding after a trap call, `hlt`) under the block before it in address order."""
    anchored: set[str] = set()
    reached: set[int] = set(result.cfg.roots)
    for edge in result.cfg.edges:
        if not isinstance(edge.dst, int):
            continue
        reached.add(edge.dst)
        target = folded.get(edge.dst)
        if target and edge.src not in folded and target not in anchored:
            anchored.add(target)
            out.write(f"  b{edge.src} -> {target} [style=\"invis\"];\n")
    for target in sorted(set(folded.values()) - anchored):
        first = int(target[len("fold"):])
        if first > 0:
            out.write(f"  {folded.get(first - 1, f'b{first - 1}')} -> {target} [style=\"invis\"];\n")
    for block in result.cfg.blocks[1:]:
        if block.id in reached or block.id in folded:
            continue
        before = block.id - 1
        out.write(f"  {folded.get(before, f'b{before}')} -> b{block.id} [style=\"invis\"];\n")
