"""The interactive report: one self-contained HTML page with each compilation's Graphviz SVG, the JSON model
beside it, and the page's own script and style inlined (nothing is loaded from anywhere). Its Content-Security-Policy
lets exactly that script run, by its hash: a script that reached the page any other way would not."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any, TextIO

from asmcfg import describe
from asmcfg.facts import bytecode, lineheat, report
from asmcfg.facts.findings import findings
from asmcfg.model import Analysis, Drawn, EdgeKind, JavaSources
from asmcfg.model.bytecode import ClassFiles
from asmcfg.render import dot, svgnodes
from asmcfg.render.drawing import Drawing, draw
from asmcfg.render.fold import folds
from asmcfg.render.json import SCHEMA, method_dict
from asmcfg.render.quoting import visible
from asmcfg.render.svg import Renderer
from asmcfg.sources.java import java_file
from asmcfg.sources.lines import display_name

Render = Callable[[str], bytes]
"""DOT text in, SVG bytes out (Graphviz with the run's renderer and timeout)."""

Told = Callable[[Analysis, Drawing], None]
"""Told how each compilation was drawn, as the page is written."""


@dataclass(frozen=True, slots=True)
class PageOptions:
    """How the page draws its compilations."""

    render: Render
    """The Graphviz call."""
    fold: bool = True
    """Fold chains of cold out-of-line blocks (the page expands them on click)."""
    sources: JavaSources | None = None
    """Java files to show beside the graph (`--source-path`)."""
    others: tuple[Renderer, ...] = ()
    """Renderers tried, in order, on a compilation `render` cannot draw even without its loop clusters."""
    told: Told | None = None
    """Told how each compilation was drawn (the run's summary names those not drawn as asked)."""
    unmeasured: str | None = None
    """Why a compilation of a measured run holds no heat (`0 samples in this compilation …`): the page says it
    rather than that no profile was given."""
    classes: ClassFiles | None = None
    """The class files of the compilations' methods (`--classpath`, a record folder's): the bytecode pane."""
    run_heat: bool = False
    """Heat fills on the scale of the run's samples, the same for every method (the diff page's two sides), rather
    than up to each method's hottest block."""


def _asset(name: str) -> str:
    return resources.files("asmcfg.render").joinpath("assets", name).read_text(encoding="utf-8")


def script_hash(script: str) -> str:
    """The Content-Security-Policy source `'sha256-…'` that lets the inline script whose text is `script` run."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def page_script() -> str:
    """The report page's script, as written between its `<script>` tags."""
    return _asset("page.js")


def view_drawing(result: Analysis, options: PageOptions) -> Drawing:
    """The compilation drawn for the page (loops clustered when Graphviz can, no legend: the page has its own),
    or why it could not be; `options.told` hears of it."""
    drawing = draw(result, options.render, options.others, options.fold, legend=False, run_heat=options.run_heat)
    if options.told is not None:
        options.told(result, drawing)
    return drawing


def view_svg(result: Analysis, options: PageOptions, drawing: Drawing | None = None) -> str:
    """The compilation's graph as SVG markup for the page; empty when no renderer could draw it."""
    drawing = drawing or view_drawing(result, options)
    if drawing.svg is None:
        return ""
    svg = drawing.svg.decode("utf-8")
    return svgnodes.finish(svg[svg.index("<svg") :], result, options.sources, pixels=True)


def view_model(result: Analysis, options: PageOptions, drawing: Drawing | None = None) -> dict[str, Any]:
    """The JSON model of one compilation (the `--json` method object) and what the page adds to it (`drawing`:
    how its graph was drawn, when not as asked)."""
    doc = method_dict(result)
    groups = folds(result) if options.fold else []
    names = {f.method for ins in result.cfg.method.instructions for f in ins.frames}
    names.add(result.cfg.method.header.name)
    doc["page"] = {
        "title": describe.compilation(result.cfg.method.header),
        "folds": [
            {"node": f"fold{g.blocks[0]}", "name": f"F{g.blocks[0]}", "blocks": list(g.blocks), "label": g.label}
            for g in groups
        ],
        "checks": report.check_paths(result),
        "focus_loop": report.focus_loop(result),
        "focus_blocks": report.focus_blocks(result),
        "bold_path": list(dot.bold_path(result)),
        "files": {name: file for name in sorted(names) if "::" in name and (file := java_file(name)) is not None},
        "heat_scale": _heat_scale(result, options.run_heat),
        "unmeasured": options.unmeasured,
        "heat_label": describe.RUN_HEAT_LEGEND if options.run_heat else describe.HEAT_LEGEND,
        "drawing": _drawing(drawing),
        "findings": [f.as_dict() for f in findings(result, display_name(result.cfg.method.source))],
    }
    if result.cfg.method.profile is not None:
        doc["page"]["line_heat"] = lineheat.by_file(result, doc["page"]["files"])
    if options.classes is not None:
        _add_bytecode(doc["page"], result, options.classes)
    return doc


def _add_bytecode(page: dict[str, Any], result: Analysis, classes: ClassFiles) -> None:
    """The bytecode pane's model, and each finding's bytecode (`iaload@17`) where its class file is at hand."""
    matched = bytecode.match(result, classes)
    page["bytecode"] = bytecode.page_dict(matched)
    for finding in page["findings"]:
        finding["bytecode"] = bytecode.cite(matched, finding["scope"] or "", finding["bci"])


def _drawing(drawing: Drawing | None) -> dict[str, Any]:
    """How the graph was drawn; `note` says why not as asked, and, when it was not drawn, what shows instead."""
    how = drawing.how if drawing is not None else Drawn.AS_ASKED
    note = drawing.note if drawing is not None else None
    if how is Drawn.NOT_DRAWN and note is not None:
        note = f"{note.rstrip('.')}. {describe.NOT_DRAWN_LISTING}"
    return {"how": how, "note": note}


def _heat_scale(result: Analysis, run_heat: bool) -> list[dict[str, Any]]:
    hottest = dot.hottest_share(result)
    if not result.block_heat:
        return []
    if run_heat:
        return [{"share": share, "colour": describe.run_heat_colour(share)} for share in describe.RUN_HEAT_STEPS]
    return [{"share": round(hottest * s / 4, 2), "colour": describe.heat_colour(hottest * s / 4, hottest)}
            for s in range(5)]


def _vocabulary() -> dict[str, Any]:
    """Labels and colours from describe, for the legend and the panel."""
    return {
        "tags": [{"tag": t, "label": describe.TAG_LABELS[t], "colour": describe.TAG_COLOURS[t]}
                 for t in describe.TAG_ORDER],
        "edges": [{"kind": k.value, "label": describe.EDGE_LABELS[k], **describe.EDGE_STYLES[k]} for k in EdgeKind],
        "check_colour": describe.CHECK_COLOUR, "check_label": describe.CHECK_LABEL,
        "hot_colour": describe.HOT_COLOUR, "hot_label": describe.HOT_PATH_LABEL,
        "fold_colour": describe.FOLD_COLOUR, "fold_label": describe.FOLD_LABEL,
        "loop_colour": describe.LOOP_COLOUR, "loop_fills": list(describe.LOOP_FILLS),
        "heat_label": describe.HEAT_LEGEND, "via_check": describe.VIA_CHECK,
        "no_debug_info": describe.NO_DEBUG_INFO,
        "flags": describe.FLAG_LABELS,
    }


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no `<` can close it."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")


def write_html(results: list[Analysis], out: TextIO, options: PageOptions) -> None:
    """Write the page for `results` (an index table first when there are several)."""
    drawings = [view_drawing(r, options) for r in results]
    svgs = [view_svg(r, options, d) for r, d in zip(results, drawings, strict=True)]
    script = page_script()
    model = {
        "schema": SCHEMA,
        "methods": [view_model(r, options, d) for r, d in zip(results, drawings, strict=True)],
        "vocabulary": _vocabulary(),
        "sources": dict(options.sources.files) if options.sources else None,
        "sources_missing": list(options.sources.missing) if options.sources else [],
    }
    title = describe.compilation(results[0].cfg.method.header) if len(results) == 1 else f"{len(results)} compilations"
    parts = {
        "TITLE": html.escape(visible(f"asmcfg: {title}")),
        "STYLE": _asset("page.css"),
        "MODEL": script_json(model),
        "SVGS": "\n".join(f'<template id="svg{n}">{svg}</template>' for n, svg in enumerate(svgs)),
        "SCRIPT": script,
        "SCRIPT_HASH": script_hash(script),
    }
    pieces = re.split(r"\{\{(\w+)\}\}", _asset("page.html"))
    out.write("".join(parts[piece] if n % 2 else piece for n, piece in enumerate(pieces)))
