"""Both graphs of a diff side by side as DOT: old on the left, new on the right, matched loops aligned and linked,
added items green, removed red, changed amber."""

from __future__ import annotations

from typing import TextIO

from asmcfg import describe
from asmcfg.compare.items import Side
from asmcfg.compare.match import Diff, LoopPair
from asmcfg.model import Analysis, Loop
from asmcfg.render.dot import HUGE_GRAPH, LARGE_GRAPH, block_label
from asmcfg.render.fold import folds
from asmcfg.render.quoting import attrs, quote


def write_diff_dot(result: Diff, out: TextIO, fold: bool = True) -> None:
    """Write the side-by-side graph of `result` to `out`."""
    nodes = len(result.old.result.cfg.blocks) + len(result.new.result.cfg.blocks)
    graph = {"label": "asmcfg diff: old (left) -> new (right)", "labelloc": "t", "fontname": describe.FONT,
             "newrank": "true"}
    if nodes > LARGE_GRAPH:
        graph.update({"nslimit": "0.2", "nslimit1": "0.2", "mclimit": "0.1", "searchsize": "20"})
        graph["splines"] = "false" if nodes > HUGE_GRAPH else "polyline"
    out.write("digraph \"diff\" {\n")
    out.write(f"  graph {attrs(graph)};\n")
    out.write(f'  node [shape=box style="rounded,filled" fontname={quote(describe.FONT)} fontsize=10];\n')
    out.write(f"  edge [fontname={quote(describe.FONT)} fontsize=9];\n")
    status = loop_status(result.loops)
    for prefix, side, label in (("o", result.old, "old"), ("n", result.new, "new")):
        _write_side(out, prefix, side, label, status[prefix], block_marks(result, prefix), fold)
    for pair in result.loops:
        if pair.old is not None and pair.new is not None:
            colour = describe.DIFF_COLOURS[pair.status]
            out.write(f"  {{rank=same; o_b{pair.old.header}; n_b{pair.new.header};}}\n")
            link = {"style": "dashed", "color": colour, "constraint": "false", "dir": "none",
                    "label": f"{pair.status} ({pair.how})"}
            out.write(f"  o_b{pair.old.header} -> n_b{pair.new.header} {attrs(link)};\n")
    _write_legend(out)
    out.write("}\n")


def loop_status(loops: tuple[LoopPair, ...]) -> dict[str, dict[int, str]]:
    """Per side, the status of each loop by header."""
    status: dict[str, dict[int, str]] = {"o": {}, "n": {}}
    for pair in loops:
        if pair.old is not None:
            status["o"][pair.old.header] = pair.status
        if pair.new is not None:
            status["n"][pair.new.header] = pair.status
    return status


def block_marks(result: Diff, prefix: str) -> dict[int, str]:
    """Blocks holding a removed item (old side) or an added one (new side); moved items are changed."""
    marks: dict[int, str] = {}
    for change in result.changes:
        item = change.old if prefix == "o" else change.new
        block = getattr(item, "block", None)
        if block is None:
            continue
        if change.change in ("added", "removed", "left_loop", "entered_loop", "inlined", "not_inlined"):
            mark = "removed" if prefix == "o" else "added"
            if change.old is not None and change.new is not None:
                mark = "changed"
        else:
            mark = "changed"
        marks[block] = mark
    return marks


def _write_side(
    out: TextIO, prefix: str, side: Side, label: str, status: dict[int, str], marks: dict[int, str], fold: bool
) -> None:
    result = side.result
    groups = folds(result) if fold else []
    folded = {b: f"{prefix}_fold{g.blocks[0]}" for g in groups for b in g.blocks}
    title = f"{label}: {describe.compilation(result.cfg.method.header)}  (JDK {result.jdk})"
    out.write(f"  subgraph cluster_{prefix} {{\n    graph {attrs({'label': title, 'color': '#bbbbbb'})};\n")
    placed = _write_loops(out, prefix, result, status, marks, folded)
    for block in result.cfg.blocks:
        if block.id not in placed and block.id not in folded:
            out.write(f"    {_node(prefix, result, block.id, marks)}\n")
    for group in groups:
        text = f"F{group.blocks[0]}: {group.label}\n"
        props = {"label": text, "fillcolor": describe.FOLD_COLOUR, "style": "rounded,filled,dashed"}
        mark = next((marks[b] for b in group.blocks if b in marks), None)
        if mark is not None:
            props.update({"fillcolor": describe.DIFF_FILLS[mark], "color": describe.DIFF_COLOURS[mark],
                          "penwidth": "2.5"})
        out.write(f"    {folded[group.blocks[0]]} {attrs(props)};\n")
    out.write("  }\n")
    _write_edges(out, prefix, result, folded)


def _node(prefix: str, result: Analysis, block_id: int, marks: dict[int, str]) -> str:
    block = result.cfg.blocks[block_id]
    fill = describe.fill_for(result.block_tags(block_id))
    props = {"label": block_label(result, block), "fillcolor": fill, "id": f"{prefix}_b{block_id}"}
    mark = marks.get(block_id)
    if mark is not None:
        props.update({"fillcolor": describe.DIFF_FILLS[mark], "color": describe.DIFF_COLOURS[mark], "penwidth": "2.5"})
    return f"{prefix}_b{block_id} {attrs(props)};"


def _write_loops(
    out: TextIO, prefix: str, result: Analysis, status: dict[int, str], marks: dict[int, str], folded: dict[int, str]
) -> set[int]:
    """Each loop as a cluster (nested as the loops are), framed in its status colour; returns the blocks placed."""
    placed: set[int] = set()
    top = [loop for loop in result.loops if loop.depth == 1]
    for loop in top:
        _write_loop(out, prefix, result, loop, status, marks, folded, placed, "    ")
    return placed


def _write_loop(
    out: TextIO, prefix: str, result: Analysis, loop: Loop, status: dict[int, str], marks: dict[int, str],
    folded: dict[int, str], placed: set[int], indent: str,
) -> None:
    state = status.get(loop.header, "same")
    frame = {"label": f"loop B{loop.header}: {state}", "color": describe.DIFF_COLOURS[state], "penwidth": "2",
             "style": "rounded"}
    out.write(f"{indent}subgraph cluster_{prefix}_loop{loop.header} {{\n{indent}  graph {attrs(frame)};\n")
    members = set(loop.blocks)
    for inner in result.loops:
        if inner.depth == loop.depth + 1 and set(inner.blocks) < members:
            _write_loop(out, prefix, result, inner, status, marks, folded, placed, indent + "  ")
    for block_id in loop.blocks:
        if block_id not in placed and block_id not in folded:
            out.write(f"{indent}  {_node(prefix, result, block_id, marks)}\n")
            placed.add(block_id)
    out.write(f"{indent}}}\n")


def _write_edges(out: TextIO, prefix: str, result: Analysis, folded: dict[int, str]) -> None:
    exits: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()
    for edge in result.cfg.edges:
        src = folded.get(edge.src, f"{prefix}_b{edge.src}")
        if isinstance(edge.dst, str):
            if edge.dst not in exits:
                exits[edge.dst] = f"{prefix}_exit{len(exits)}"
                props = {"label": edge.dst, "shape": "cds", "style": "filled", "fillcolor": "#f7f7f7"}
                out.write(f"  {exits[edge.dst]} {attrs(props)};\n")
            dst = exits[edge.dst]
        else:
            dst = folded.get(edge.dst, f"{prefix}_b{edge.dst}")
        if (src, dst) in seen or (src == dst and src in folded.values()):
            continue
        seen.add((src, dst))
        props = dict(describe.EDGE_STYLES[edge.kind])
        check = result.checks.get(edge)
        if check:
            props.update({"color": describe.CHECK_COLOUR, "label": check.replace("_", " ")})
        out.write(f"  {src} -> {dst} {attrs(props)};\n")


def _write_legend(out: TextIO) -> None:
    out.write('  subgraph cluster_legend {\n    graph [label="legend" style=dashed color="#bbbbbb"];\n')
    previous = None
    for state in ("added", "removed", "changed"):
        props = {"label": f"{state} (blocks holding such an item; loop frames)",
                 "fillcolor": describe.DIFF_FILLS[state], "color": describe.DIFF_COLOURS[state], "penwidth": "2.5"}
        out.write(f"    legend_{state} {attrs(props)};\n")
        if previous:
            out.write(f"    {previous} -> legend_{state} [style=invis];\n")
        previous = f"legend_{state}"
    out.write("  }\n")
