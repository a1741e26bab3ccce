"""`asmcfg diff --html`: the two compilations' interactive pages side by side in one offline file.

Each side is the page `asmcfg --html` writes for that compilation (same renderer, script and style), held in a
frame of the outer page; the outer page's own small script paints the diff's colours on each side and, when a
block or loop is clicked on one side, selects and centres its counterpart on the other (`diff.links`); above them,
the tables `asmcfg diff` prints on stderr (`diff.report.tables`), folded open on a click. A frame's
page inherits the outer page's Content-Security-Policy, which so names both scripts by hash, and no other."""

from __future__ import annotations

import dataclasses
import html
import io
import re
from importlib import resources
from typing import TextIO

from asmcfg import describe
from asmcfg.compare import report
from asmcfg.compare.links import links
from asmcfg.compare.match import Diff
from asmcfg.render.html import PageOptions, page_script, script_hash, script_json, write_html
from asmcfg.render.quoting import visible


def _asset(name: str) -> str:
    return resources.files("asmcfg.render").joinpath("assets", name).read_text(encoding="utf-8")


def script_hashes() -> str:
    """The Content-Security-Policy sources of the page's scripts: its own and each side's page script."""
    return f"{script_hash(_asset('diff.js'))} {script_hash(page_script())}"


def write_diff_html(result: Diff, out: TextIO, options: PageOptions) -> None:
    """Write the side-by-side page of `result` to `out`: the two sides' heat on the run's scale, one for both."""
    options = dataclasses.replace(options, run_heat=True)
    frames = {}
    for name, side in (("old", result.old), ("new", result.new)):
        page = io.StringIO()
        write_html([side.result], page, options)
        frames[name] = html.escape(page.getvalue(), quote=True)
    titles = {name: visible(describe.compilation(side.result.cfg.method.header) + f" (JDK {side.result.jdk})")
              for name, side in (("old", result.old), ("new", result.new))}
    script = _asset("diff.js")
    legend = " ".join(f'<span class="key" style="border-color:{describe.DIFF_COLOURS[s]};'
                      f'background:{describe.DIFF_FILLS[s]}">{s}</span>' for s in ("added", "removed", "changed"))
    if result.old.result.block_heat or result.new.result.block_heat:
        steps = ", ".join(describe.run_heat_colour(s) for s in describe.RUN_HEAT_STEPS)
        legend += (f' <span class="key" title="{html.escape(describe.RUN_HEAT_LEGEND)}" style="border-color:#999;'
                   f'background:linear-gradient(to right, {steps})">heat: share of the run, red at '
                   f'{describe.RUN_HEAT_TOP:g}%</span>')
    parts = {
        "TITLE": html.escape(f"asmcfg diff: {titles['old']} -> {titles['new']}"),
        "OLD_TITLE": html.escape(titles["old"]), "NEW_TITLE": html.escape(titles["new"]),
        "OLD": frames["old"], "NEW": frames["new"], "LEGEND": legend,
        "LINKS": script_json(links(result)),
        "TABLES": script_json({"tables": report.tables(result), "none": None if result.changes else report.NO_CHANGES}),
        "SCRIPT": script,
        "SCRIPT_HASHES": script_hashes(),
    }
    pieces = re.split(r"\{\{(\w+)\}\}", _asset("diff.html"))
    out.write("".join(parts[piece] if n % 2 else piece for n, piece in enumerate(pieces)))
