"""The `asmcfg diff` path of a diff case: two mutated compilations read, matched, gated and written out.

As `asmcfg diff OLD NEW --fail-on … --json - --dot - --html -` does, in memory: the JSON strict, the DOT
printable ASCII with every string closed, the side-by-side page as a diff page (fuzz/page.py), the tables and
each `--fail-on` line as terminal text.
"""

from __future__ import annotations

import json
import re

import page
import paths
from properties import Violation, require

from asmcfg.compare import dot as diff_dot, gate, items, report
from asmcfg.compare.html import write_diff_html
from asmcfg.compare.match import diff
from asmcfg.model import DialectName
from asmcfg.render.html import PageOptions, Render
from asmcfg.render.summary import stderr_console
from asmcfg.run.diff import DiffOptions, read_sides, say_failures

FAIL_ON = gate.parse(("new-trap,check-in-loop,lost-vector,not-inlined,grew:0",))
"""Every condition, so that each kind of `--fail-on` line is written."""
_DOT_LINE = re.compile(r'^(?:[^"]|"(?:[^"\\]|\\.)*")*$')
"""A DOT line whose strings are all closed."""


def check(old: str, new: str, forced: str | None, render: Render = paths.stub_svg) -> None:
    """Diff the compilations of the files `old` and `new` and check every output."""
    options = DiffOptions(old=old, new=new, input_format=DialectName(forced) if forced else None, fail_on=FAIL_ON)
    old_side, new_side = read_sides(options)
    result = diff(items.side(old_side), items.side(new_side))
    failures = gate.check(result, FAIL_ON)
    try:
        text = json.dumps(report.document(result, failures), indent=1, allow_nan=False)
    except ValueError as exc:
        raise Violation(f"diff JSON: {exc}") from None
    json.loads(text)
    dot_text = paths.write_text(lambda out: diff_dot.write_diff_dot(result, out, True))
    for line in dot_text.splitlines():
        require(all(" " <= c <= "~" for c in line), f"diff DOT line with raw control or non-ASCII: {line[:80]!r}")
        require(_DOT_LINE.match(line) is not None, f"diff DOT line with an unclosed string: {line[:120]!r}")
    if render is not paths.stub_svg:
        render(dot_text)
    page.check_diff_report(paths.write_text(lambda out: write_diff_html(result, out, PageOptions(render=render))))
    with paths.terminal_stderr():
        console = paths.plain(stderr_console())
        report.write_tables(result, console)
        say_failures(failures, console)
        paths.check_terminal(paths.screen_text(console), "diff tables and --fail-on lines")
