"""Finish Graphviz's SVG: name each block's node for scripts (`data-block="B10"`), give it a tooltip with its
source lines and tags, and size the drawing in CSS pixels (1 unit = 1 px at zoom 1)."""

from __future__ import annotations

import html
import re

from asmcfg import describe
from asmcfg.facts import report
from asmcfg.model import Analysis, JavaSources
from asmcfg.render.quoting import visible
from asmcfg.sources.java import java_file

_NODE = re.compile(r'<g id="(b|fold)(\d+)" class="node">(\s*)<title>[^<]*</title>')
_SIZE = re.compile(r'<svg width="[^"]*" height="[^"]*"\s+viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"')
_MAX_TOOLTIP_LINES = 12


def tooltip(result: Analysis, block_id: int, sources: JavaSources | None = None) -> str:
    """`B10 0x… (8 instructions) [tags]` and the source lines the block's code comes from."""
    block = result.cfg.blocks[block_id]
    method = result.cfg.method
    size = describe.count(block.end - block.start, "instruction")
    lines = [f"B{block_id}  0x{method.instructions[block.start].address:x}  ({size})"]
    tags = describe.ordered_tags(result.block_tags(block_id))
    if tags:
        lines[0] += "  [" + ", ".join(describe.TAG_LABELS.get(t, t) for t in tags) + "]"
    trap = result.traps.get(block_id)
    if trap is not None:
        lines.append(describe.trap_summary(trap))
    for name, line in report.block_lines(result, block)[:_MAX_TOOLTIP_LINES]:
        text = _source_text(sources, name, line)
        lines.append(f"{name} line {line}" + (f":  {text}" if text else ""))
    source = report.block_source(result, block)
    if source is not None and source.get("via") == "check":
        lines.append(f"{source['method']} line {source['line']} ({describe.VIA_CHECK})")
    return "\n".join(lines)


def _source_text(sources: JavaSources | None, method: str, line: int) -> str:
    if sources is None:
        return ""
    file = java_file(method)
    text = sources.files.get(file) if file is not None else None
    return text[line - 1].strip() if text and 0 < line <= len(text) else ""


def finish(svg: str, result: Analysis, sources: JavaSources | None = None, pixels: bool = False) -> str:
    """The SVG with `data-block`/`data-fold` on the nodes and block tooltips; `pixels`: width and height in CSS
    pixels, one per layout unit, for a page that zooms it itself."""

    def node(match: re.Match[str]) -> str:
        kind, number, space = match.group(1), int(match.group(2)), match.group(3)
        if kind == "fold":
            return f'<g id="fold{number}" class="node fold" data-fold="F{number}">{space}<title>F{number}</title>'
        title = html.escape(visible(tooltip(result, number, sources)), quote=False)
        return f'<g id="b{number}" class="node" data-block="B{number}">{space}<title>{title}</title>'

    svg = _NODE.sub(node, svg)
    if not pixels:
        return svg
    return _SIZE.sub(
        lambda m: f'<svg width="{float(m.group(3)):g}" height="{float(m.group(4)):g}" '
        f'viewBox="{m.group(1)} {m.group(2)} {m.group(3)} {m.group(4)}"',
        svg,
        count=1,
    )
