"""The paths a case goes through besides the library's (fuzz/properties.py), each with its properties.

- terminal: the stderr summary, the `--list` row and the one error line the guard prints: no raw C0 or C1
  control character (nor DEL) from the log reaches a terminal.
- jsonl: the whole-log `--jsonl` path (full records, or `--facts` ones) in this process: every line strict
  JSON on one line, a full record the text `json.dumps` of its dict gives, and no `error` record (a method
  whose analysis raised).
- report: the `--html` page built in memory (fuzz/page.py's properties).
- diff: two compilations through `asmcfg diff`: its JSON strict, its DOT printable ASCII with closed strings,
  its page as a diff page, its tables and `--fail-on` lines as terminal text.
- serve: the case's file served in this process as `asmcfg serve` serves it (fuzz/servepath.py): the token
  required, the index page and the first compilations' pages checked, crafted paths refused.

Graphviz is a process start per call: `stub_svg` stands in for it (an SVG shaped like Graphviz's, with each
node's label as XML text) except in the cases fuzz.py gives the real one.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

import page
import properties
import servepath
from properties import Violation, require
from rich.console import Console

from asmcfg.errors import AsmcfgError, RenderError
from asmcfg.model import Analysis, DialectName
from asmcfg.render import dot, html as html_render, summary
from asmcfg.render.facts import facts_record
from asmcfg.render.html import PageOptions, Render
from asmcfg.render.json import jsonl_record
from asmcfg.render.jsonl import COMPACT, record_line
from asmcfg.render.listing import listed, write_listing
from asmcfg.render.svg import find_renderer, render_svg
from asmcfg.run import guard, parallel
from asmcfg.run.pipeline import no_methods_error
from asmcfg.sources import diagnose

PAGE_METHODS = 3
"""Methods of a single case put on its `--html` page."""
GRAPHVIZ_TIMEOUT = 300.0
"""Seconds Graphviz may take on a case's graph (the case's own time limit usually ends it first)."""
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""C0 controls but tab and newline, DEL, and C1 controls: what must not reach a terminal raw."""
_NODE = re.compile(r'^\s+(\w+) \[(?:[^\n]*?\blabel=("(?:[^"\\]|\\.)*"))?', re.M)


class _Terminal(io.StringIO):
    """What a terminal would be sent: text written to a stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@contextlib.contextmanager
def terminal_stderr() -> Iterator[_Terminal]:
    screen, saved = _Terminal(), sys.stderr
    sys.stderr = screen
    try:
        yield screen
    finally:
        sys.stderr = saved


def plain(console: Console) -> Console:
    """The console without its own styles (no escape sequence of rich's), so any left come from the input."""
    console._color_system = None  # rich writes no style codes without a colour system
    return console


def screen_text(console: Console) -> str:
    """What `console` has written to its _Terminal."""
    screen = console.file
    assert isinstance(screen, _Terminal)
    return screen.getvalue()


def check_terminal(text: str, what: str) -> None:
    """No raw control character in text sent to a terminal."""
    found = CONTROL.search(text)
    if found is not None:
        line = text[max(0, found.start() - 30) : found.end() + 30]
        raise Violation(f"terminal: raw U+{ord(found.group()):04X} in the {what}: {line!r}")


def terminal(result: Analysis) -> None:
    """The summary (the console the CLI builds for a terminal) and the `--list` row (as `asmcfg --list` builds
    its console)."""
    with terminal_stderr():
        console = plain(summary.stderr_console())
        summary.write_summary(result, console)
        check_terminal(screen_text(console), "summary")
    listing = plain(Console(file=_Terminal(), width=300, no_color=True, highlight=False, markup=False))
    write_listing([listed(result.cfg.method)], listing)
    check_terminal(screen_text(listing), "--list row")


def error_line(error: AsmcfgError, source: str) -> None:
    """The line the guard prints for an AsmcfgError."""

    def fail() -> int:
        raise error

    with terminal_stderr() as screen:
        guard.guarded(fail, source, debug=False)
    check_terminal(screen.getvalue(), "error line")


def jsonl(path: str, forced: str | None, facts: bool) -> None:
    """The whole-log `--jsonl` path, in this process (one worker)."""
    out = io.StringIO()
    serializer = facts_record if facts else _checked_line
    with contextlib.suppress(AsmcfgError):
        parallel.analyse_to_jsonl(path, out, serializer, workers=1, dialect=DialectName(forced) if forced else None,
                                  large_records=not facts)
    for line in out.getvalue().splitlines():
        record = json.loads(line, parse_constant=_not_json)
        require(isinstance(record, dict), "jsonl: a line that is not an object")
        require("error" not in record, f"jsonl: an error record: {str(record.get('error'))[:160]}")


def _checked_line(result: Analysis) -> str:
    line = record_line(result)
    require("\n" not in line and "\r" not in line, "jsonl: a record of more than one line")
    require(line == COMPACT.encode(jsonl_record(result)), "jsonl: record_line differs from json.dumps of the record")
    return line


def _not_json(name: str) -> None:
    raise Violation(f"JSON holds {name}, which is not JSON")


def stub_svg(dot_text: str) -> bytes:
    """An SVG shaped like Graphviz's for `dot_text`: a `<g class="node">` with a title and the label per node."""
    nodes = []
    for match in _NODE.finditer(dot_text):
        name, label = match.group(1), match.group(2) or '""'
        if name in ("graph", "node", "edge"):
            continue
        text = html.escape(label[1:-1].replace("\\l", "\n").replace("\\n", "\n").replace('\\"', '"'), quote=False)
        nodes.append(f'<g id="{name}" class="node">\n<title>{name}</title>\n<text x="0" y="0">{text}</text>\n</g>')
    head = '<svg width="100pt" height="100pt"\n viewBox="0.00 0.00 100.00 100.00" xmlns="http://www.w3.org/2000/svg">'
    return f'<?xml version="1.0"?>\n{head}\n<g id="graph0" class="graph">\n{"".join(nodes)}\n</g>\n</svg>\n'.encode()


def graphviz(dot_text: str) -> bytes:
    """Graphviz's SVG of `dot_text`: it must read every DOT asmcfg writes."""
    try:
        return render_svg(dot_text, GRAPHVIZ_TIMEOUT)
    except RenderError as exc:
        raise Violation(f"Graphviz rejects the DOT: {exc}") from None


def graphviz_nodes(result: Analysis) -> None:
    """Graphviz (graphviz-pure) reads the method's DOT to the nodes asmcfg wrote."""
    text = write_text(lambda out: dot.write_dot(result, out))
    written = {n for n in re.findall(r"^ +(\w+) \[", text, flags=re.M) if n not in ("graph", "node", "edge")}
    done = subprocess.run([*find_renderer("graphviz-pure"), "-Tcanon"], input=text.encode(), capture_output=True,
                          timeout=GRAPHVIZ_TIMEOUT, check=False)
    require(done.returncode == 0, f"Graphviz (graphviz-pure) cannot read the DOT: {done.stderr[-200:]!r}")
    read = {n for n in re.findall(r"^\t+(\w+)\t+\[", done.stdout.decode(), flags=re.M)
            if n not in ("graph", "node", "edge")}
    require(read == written, "Graphviz (graphviz-pure) reads other nodes than asmcfg wrote")


def report(results: list[Analysis], render: Render = stub_svg) -> None:
    """The `--html` page of `results`, built in memory."""
    out = io.StringIO()
    html_render.write_html(results, out, PageOptions(render=render))
    page.check_report(out.getvalue())


def write_text(write: Callable[[TextIO], None]) -> str:
    """What `write` writes, as text."""
    out = io.StringIO()
    write(out)
    return out.getvalue()


def every_path(path: Path, forced: str | None, facts: bool, real_graphviz: bool = False) -> properties.Outcome:
    """A single case: the library path with its properties, the terminal text, `--jsonl` (`facts`: its
    `--facts` records), the `--html` page and `serve`; `real_graphviz` has Graphviz read the DOT and draw the
    pages."""
    results: list[Analysis] = []

    def also(result: Analysis) -> None:
        terminal(result)
        if real_graphviz:
            graphviz_nodes(result)
        results.append(result)

    outcome = properties.run_case(str(path), forced, also)
    if results:
        report(results[:PAGE_METHODS], graphviz if real_graphviz else stub_svg)
    jsonl(str(path), forced, facts)
    servepath.check(path, forced, graphviz if real_graphviz else stub_svg)
    if outcome.methods == 0:
        raise no_methods_error(str(path))
    diagnose.explain(path.read_bytes().decode("utf-8", "replace").splitlines()[: diagnose.SAMPLE_LINES])
    return outcome
