"""A what-if's outputs: the lines and tables on stderr, the JSON document, the side-by-side page; each says
whether the baseline matches the recording."""

from __future__ import annotations

import html
import io
from typing import TextIO

from asmcfg.compare import report
from asmcfg.render import indented
from asmcfg.render.files import write_to
from asmcfg.render.summary import stderr_console
from asmcfg.terminal import visible
from asmcfg.whatif import fidelity
from asmcfg.whatif.mode import Outcome, document


def lines(outcome: Outcome, options: tuple[str, ...]) -> list[str]:
    """What the what-if says before its tables: what was replayed, with what, and how faithfully."""
    source = outcome.source
    seconds = ", ".join(f"{done.replay.label.split(' ')[0]} {done.seconds:.2f} s" for done in outcome.runs)
    said = [f"whatif: {source.what}, replayed on JDK {source.release or '(release unknown)'} ({seconds}): "
            f"baseline → {' '.join(options) or '(no option)'}",
            fidelity.sentence(outcome.fidelity), outcome.inlining.sentence()]
    if outcome.fresh_inlining:
        said.append("inlining decided afresh by C2's heuristics in the what-if (an option changes an inlining "
                    "limit, which the recorded inlining list would override)")
    return said


def write_stderr(outcome: Outcome, options: tuple[str, ...], quiet: bool) -> None:
    """The lines, then `asmcfg diff`'s tables of baseline → what-if (the fidelity line even with -q)."""
    err = stderr_console()
    said = lines(outcome, options)
    for line in said if not quiet else said[1:2]:
        err.print(visible(line), highlight=False, markup=False, soft_wrap=True)
    if not quiet:
        report.write_tables(outcome.result, err)


def write_json(target: str, outcome: Outcome, options: tuple[str, ...]) -> None:
    """The diff's JSON with its `whatif` object."""
    text = indented.dumps(document(outcome, options)) + "\n"
    write_to(target, lambda out: _write(out, text))


def write_html(target: str, outcome: Outcome, options: tuple[str, ...]) -> None:
    """`asmcfg diff`'s side-by-side page, the sides named baseline and what-if, the what-if's lines above."""
    text = page_text(outcome, options)
    write_to(target, lambda out: _write(out, text))


def page_text(outcome: Outcome, options: tuple[str, ...]) -> str:
    """The side-by-side page as text (RenderError when Graphviz could draw a side in no way)."""
    from asmcfg.compare.html import write_diff_html
    from asmcfg.render.html import PageOptions
    from asmcfg.run import drawings

    told = drawings.Told("--html")
    render, others = drawings.renderers("auto", 60.0)
    page = io.StringIO()
    write_diff_html(outcome.result, page, PageOptions(render=render, fold=True, others=others, told=told))
    text = page.getvalue()
    said = "".join(f'<p class="whatif" style="margin:4px 8px">{html.escape(visible(line))}</p>'
                   for line in lines(outcome, options))
    text = text.replace('<div class="sides"><span>old: ', said + '<div class="sides"><span>baseline: ', 1)
    text = text.replace("</span><span>new: ", "</span><span>what-if: ", 1)
    drawings.finish(told, selected=True)
    return text


def _write(out: TextIO, text: str) -> None:
    out.write(text)
