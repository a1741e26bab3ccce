"""Write an analysed method as Graphviz DOT: one node per block, edges styled by kind, a legend."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TextIO

from asmcfg import describe
from asmcfg.facts import branch_profile, meaning
from asmcfg.model import Analysis, Block, Edge, EdgeKind, Instruction
from asmcfg.render.fold import Fold, folds
from asmcfg.render.layout import write_anchors, write_loop_clusters
from asmcfg.render.quoting import attrs, clipped, quote

_MAX_OPERANDS = 48
LARGE_GRAPH = 150
"""Above this many nodes, layout limits keep Graphviz fast."""
HUGE_GRAPH = 400
"""Above this many nodes, edges are drawn straight: spline routing dominates the layout time."""


def instruction_text(ins: Instruction) -> str:
    """`0x…140  movl  %eax, -0x14000(%rsp)  ; {poll}` with the one annotation that matters most."""
    operands = ins.operands if len(ins.operands) <= _MAX_OPERANDS else ins.operands[: _MAX_OPERANDS - 3] + "..."
    text = f"{ins.address:x}  {ins.mnemonic:<7} {operands}".rstrip()
    note = annotation(ins)
    return f"{text}  ; {note}" if note else text


def annotation(ins: Instruction) -> str:
    """The key comment of an instruction: callee, poll, or bytecode@bci (line)."""
    callee = ins.runtime_call()
    if callee:
        return callee
    if ins.patching_stub is not None:
        return describe.patching_site(ins.patching_stub)
    if ins.poll or ins.poll_return:
        return "{poll}" if ins.poll else "{poll_return}"
    for reloc in ins.relocs:
        if "call" in reloc:
            return reloc
    if ins.implicit_target is not None:
        return "implicit null check"
    if ins.bytecode and ins.frames:
        frame = ins.frames[0]
        line = f" line {frame.line}" if frame.line is not None else ""
        return f"{ins.bytecode}@{frame.bci}{line}"
    return ""


def block_label(result: Analysis, block: Block) -> str:
    """Title line with tags, the instructions, and the trap decoded in the block."""
    method = result.cfg.method
    tags = describe.ordered_tags(result.block_tags(block.id))
    title = f"B{block.id}  {method.instructions[block.start].address:x}"
    heat = result.block_heat.get(block.id)
    if heat:
        title += "  " + " / ".join(f"{v:.2f}%" for v in heat)
    if tags:
        title += "  [" + ", ".join(tags) + "]"
    lines = [title]
    measured = method.profile.heat if method.profile is not None else None
    for ins in method.instructions[block.start : block.end]:
        text = instruction_text(ins)
        if measured is not None:
            share = measured.get(ins.address)
            text = (f"{share[0]:5.2f}% " if share and share[0] > 0 else " " * 7) + text
        lines.append(text)
    trap = result.traps.get(block.id)
    if trap is not None:
        lines.append(describe.trap_summary(trap))
    evidence = result.trap_log.get(block.id)
    if evidence is not None:
        lines.append(describe.trap_log_line(evidence))
    lines.extend(meaning.block_lines(result, block.id))
    branch = branch_profile.labels(result)[0].get(block.id)
    if branch is not None:
        lines.append(branch)
    return "\n".join(lines) + "\n"


def write_dot(
    result: Analysis, out: TextIO, fold: bool = True, name: str = "cfg", legend: bool = True, clusters: bool = True,
    run_heat: bool = False,
) -> None:
    """Write the graph of `result` to `out` (`legend`: draw the legend as a cluster, the HTML page has its own;
    `clusters`: draw each loop as a cluster, left out when Graphviz cannot lay them out; `run_heat`: heat fills on
    the scale of the run's samples, `describe.run_heat_colour`, rather than up to this method's hottest block)."""
    groups = folds(result) if fold else []
    folded = {b: f"fold{g.blocks[0]}" for g in groups for b in g.blocks}
    nodes = len(result.cfg.blocks) - len(folded) + len(groups)
    out.write(f"digraph {quote(clipped(name))} {{\n")
    out.write(f"  graph {attrs(_graph_attrs(result, nodes))};\n")
    out.write(f'  node [shape=box style="rounded,filled" fontname={quote(describe.FONT)} fontsize=10];\n')
    out.write(f"  edge [fontname={quote(describe.FONT)} fontsize=9];\n")
    notes = _fold_notes(result, folded)
    bold, hottest = set(bold_path(result)), None if run_heat else hottest_share(result)
    for block in result.cfg.blocks:
        if block.id not in folded:
            props = _block_attrs(result, block, notes.get(block.id, []), bold, hottest)
            out.write(f"  b{block.id} {attrs(props)};\n")
    for group in groups:
        out.write(f"  {folded[group.blocks[0]]} {attrs(_fold_attrs(group))};\n")
    _write_exits(result, out)
    _write_edges(result, out, folded)
    if clusters:
        write_loop_clusters(result, out, set(folded))
    write_anchors(result, out, folded)
    if legend:
        _write_legend(out, result, bool(groups))
    out.write("}\n")


def _graph_attrs(result: Analysis, nodes: int) -> dict[str, str]:
    props = {"label": describe.compilation(result.cfg.method.header), "labelloc": "t", "fontname": describe.FONT}
    if nodes > LARGE_GRAPH:
        props.update({"nslimit": "0.2", "nslimit1": "0.2", "mclimit": "0.1", "searchsize": "20"})
        props["splines"] = "false" if nodes > HUGE_GRAPH else "polyline"
    return props


def _fold_notes(result: Analysis, folded: dict[int, str]) -> dict[int, list[str]]:
    """Edges into folded chains become a line on their source block: drawing them would dominate the layout."""
    notes: dict[int, list[str]] = {}
    for edge in result.cfg.edges:
        if isinstance(edge.dst, int) and edge.dst in folded and edge.src not in folded:
            check = result.checks.get(edge)
            what = check.replace("_", " ") if check else edge.kind.value
            note = f"-> B{edge.dst} ({what}, folded in {folded[edge.dst].replace('fold', 'F')})"
            notes.setdefault(edge.src, []).append(note)
    return notes


def hottest_share(result: Analysis) -> float:
    """The first event's share in the hottest block (0 without a profile): the top of the heat scale."""
    return max((h[0] for h in result.block_heat.values() if h), default=0.0)


def _block_attrs(result: Analysis, block: Block, notes: list[str], bold: set[int],
                 hottest: float | None) -> dict[str, str]:
    tags = result.block_tags(block.id)
    heat = result.block_heat.get(block.id)
    fill = describe.fill_for(tags)
    if heat is not None and result.block_heat:
        fill = describe.run_heat_colour(heat[0]) if hottest is None else describe.heat_colour(heat[0], hottest)
    label = block_label(result, block) + "".join(note + "\n" for note in notes)
    props = {"label": label, "fillcolor": fill, "id": f"b{block.id}"}
    evidence = result.trap_log.get(block.id)
    if evidence is not None and evidence.disagrees:
        props["penwidth"] = "2.5"
        props["color"] = describe.DIFFERS_COLOUR
    if block.id in bold:
        props["penwidth"] = "2.5"
        props["color"] = describe.HOT_COLOUR
    return props


def _fold_attrs(group: Fold) -> dict[str, str]:
    first, last = group.blocks[0], group.blocks[-1]
    label = f"F{first}: {group.label}\n(B{first}..B{last}; --no-fold shows them)\n"
    return {"label": label, "fillcolor": describe.FOLD_COLOUR, "style": "rounded,filled,dashed", "id": f"fold{first}"}


def _exit_names(result: Analysis) -> list[str]:
    names = {e.dst for e in result.cfg.edges if isinstance(e.dst, str)}
    return sorted(str(n) for n in names)


def _exit_id(name: str, names: list[str]) -> str:
    return f"exit{names.index(name)}"


def _write_exits(result: Analysis, out: TextIO) -> None:
    names = _exit_names(result)
    for name in names:
        props = {
            "label": name,
            "shape": "cds",
            "style": "filled",
            "fillcolor": "#f7f7f7",
            "color": describe.EXIT_COLOUR,
        }
        out.write(f"  {_exit_id(name, names)} {attrs(props)};\n")


def _write_edges(result: Analysis, out: TextIO, folded: dict[int, str]) -> None:
    names = _exit_names(result)
    hot = list(itertools.pairwise(bold_path(result)))
    seen: set[tuple[str, str, str]] = set()
    for edge in result.cfg.edges:
        src = folded.get(edge.src, f"b{edge.src}")
        dst = _exit_id(edge.dst, names) if isinstance(edge.dst, str) else folded.get(edge.dst, f"b{edge.dst}")
        key = (src, dst, edge.kind.value)
        if (
            (dst.startswith("fold") and not src.startswith("fold"))
            or (src == dst and src.startswith("fold"))
            or key in seen
        ):
            continue
        seen.add(key)
        out.write(f"  {src} -> {dst} {attrs(_edge_attrs(result, edge, (edge.src, edge.dst) in hot))};\n")


def _edge_attrs(result: Analysis, edge: Edge, hot: bool) -> dict[str, str]:
    props = dict(describe.EDGE_STYLES[edge.kind])
    check = result.checks.get(edge)
    if check:
        props["color"] = describe.CHECK_COLOUR
        props["label"] = check.replace("_", " ")
    elif (profiled := branch_profile.labels(result)[1].get((edge.src, edge.dst))) is not None:
        props["label"] = profiled
    if hot:
        props["penwidth"] = "3"
        props["color"] = describe.HOT_COLOUR
    if isinstance(edge.dst, int) and result.block_heat:
        width = 1 + 4 * sum(result.block_heat.get(edge.dst, (0.0,))[:1]) / 100
        props["penwidth"] = f"{max(float(props.get('penwidth', '1')), width):.2f}"
    return props


def bold_path(result: Analysis) -> tuple[int, ...]:
    """The path drawn bold: the hottest measured path, else the static hot path."""
    return result.hot_paths[0].blocks if result.hot_paths else result.hot_path


def _write_heat_scale(out: TextIO, result: Analysis) -> None:
    """Five swatches from cold to the hottest block's share, on the fill scale blocks use."""
    profile = result.cfg.method.profile
    hottest = hottest_share(result)
    if profile is None or not result.block_heat:
        return
    previous = None
    for step in range(5):
        share = hottest * step / 4
        label = f"{profile.events[0]} {share:.2f}%" + (" (hottest block)" if step == 4 else "")
        name = f"legend_heat_{step}"
        out.write(f"    {name} {attrs({'label': label, 'fillcolor': describe.heat_colour(share, hottest)})};\n")
        if previous:
            out.write(f"    {previous} -> {name} [style=invis];\n")
        previous = name


def _write_legend(out: TextIO, result: Analysis, folded: bool) -> None:
    out.write('  subgraph cluster_legend {\n    label="legend"; fontname="Courier"; style=dashed; color="#bbbbbb";\n')
    previous = None
    if bold_path(result):
        hot = {"label": describe.HOT_PATH_LABEL, "fillcolor": "#ffffff", "color": describe.HOT_COLOUR}
        hot["penwidth"] = "2.5"
        out.write(f"    legend_hot_path {attrs(hot)};\n")
        previous = "legend_hot_path"
    if folded:
        fold = {"label": describe.FOLD_LABEL, "fillcolor": describe.FOLD_COLOUR, "style": "rounded,filled,dashed"}
        out.write(f"    legend_fold {attrs(fold)};\n")
        out.write(f"    {previous} -> legend_fold [style=invis];\n" if previous else "")
        previous = "legend_fold"
    for tag in describe.TAG_ORDER:
        props = {"label": describe.TAG_LABELS[tag], "fillcolor": describe.TAG_COLOURS[tag]}
        out.write(f"    legend_{tag} {attrs(props)};\n")
        if previous:
            out.write(f"    {previous} -> legend_{tag} [style=invis];\n")
        previous = f"legend_{tag}"
    for kind in EdgeKind:
        props = {"label": describe.EDGE_LABELS[kind], "shape": "plaintext", "style": ""}
        out.write(f"    legend_edge_{kind.value} {attrs(props)};\n")
    for a, b in itertools.pairwise(EdgeKind):
        style = attrs(describe.EDGE_STYLES[a])
        out.write(f"    legend_edge_{a.value} -> legend_edge_{b.value} {style};\n")
    _write_heat_scale(out, result)
    out.write("  }\n")


def write_many(results: Iterable[Analysis], out: TextIO, fold: bool = True) -> None:
    """One DOT graph per method, one after the other (as `dot` accepts)."""
    for n, result in enumerate(results):
        write_dot(result, out, fold, name=f"cfg{n}")
