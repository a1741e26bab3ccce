"""`asmcfg serve OLD NEW`: the whole-log diff (`wholediff.compare`, as `asmcfg diff OLD NEW` makes it) as the
index, printed once every pair is compared; a click opens the pair's side-by-side page (`run.diff.write_page`, as
`asmcfg diff OLD NEW --compile-id … --html` writes it), or a method of one log's report, rendered on demand."""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asmcfg.compare.pairs import Key
    from asmcfg.model import Method
    from asmcfg.run.diff import DiffOptions
    from asmcfg.run.wholediff import Whole
    from asmcfg.serve.diffindex import Target
    from asmcfg.serve.pages import Page


@dataclass(frozen=True, slots=True)
class TwoLogs:
    """What `asmcfg serve OLD NEW` was asked."""

    diff: DiffOptions
    """The two inputs, their logs and profiles, and how to read and draw them, as `asmcfg diff` takes them."""
    port: int = 0
    """The port; 0 takes a free one."""
    open_browser: bool = True
    """Open the index in the browser once ready."""


def serve_two(options: TwoLogs) -> int:
    """Compare the two logs, then serve until stopped (the guard's exit codes, as `serve`)."""
    from asmcfg.run.wholediff import compare
    from asmcfg.serve import app, diffindex, links
    from asmcfg.serve.run import listen, run_server

    started = time.perf_counter()
    whole = compare(options.diff)  # a record folder is read as its JVM's log and samples
    index = diffindex.build(whole)
    home = diffindex.index_page(index, whole)

    def render(n: int) -> Page:
        from asmcfg.render.svg import budget

        with budget(options.diff.render_timeout):  # every Graphviz run of the page (both sides) within it
            return render_target(options.diff, whole, index.targets[n])

    server = listen(options.port, app.Site(links.rows_of(index.links), home, None, render))
    said = (f"asmcfg: {len(whole.rows)} pairs compared, {len(whole.only[0])} methods only in the old log, "
            f"{len(whole.only[1])} only in the new log, in {time.perf_counter() - started:.1f} s "
            "(Ctrl-C stops the server)")
    return run_server(server, options.open_browser, None if options.diff.quiet else said, lambda stop: None)


def render_target(options: DiffOptions, whole: Whole, target: Target) -> Page:
    """A row's page: a pair's two compilations read again, analysed and compared as the whole-log diff did, drawn
    side by side; or the one compilation of a method of one log, its report as `--html` writes it."""
    from asmcfg.serve import pages
    from asmcfg.serve.links import OLD, PAIR

    if target.kind == PAIR:
        from asmcfg.run import drawings
        from asmcfg.run.diff import write_page
        from asmcfg.run.wholediff import analyse_pair

        result = analyse_pair(_open(options, whole, 0, target.key), _open(options, whole, 1, target.key), whole.how)
        told = drawings.Told("--html")  # a side Graphviz cannot draw is drawn another way, or listed
        out = io.StringIO()
        write_page(result, out, options, told)
        drawings.finish(told, selected=False)
        return pages.diff_page(out.getvalue())
    from asmcfg.run.enrich import enrich
    from asmcfg.serve.run import page_options

    side = 0 if target.kind == OLD else 1
    done = enrich(_open(options, whole, side, target.key), whole.how[side])
    drawn = page_options(done.analysis, options.source_path, options.renderer, options.render_timeout)
    return pages.compilation_page(done.analysis, drawn)


def _open(options: DiffOptions, whole: Whole, side: int, key: Key) -> Method:
    """The compilation the whole-log diff chose for `key` in that input, read again (through the header index when
    the input is a large plain file)."""
    from asmcfg.serve.opening import Reading, Row, open_compilation

    header = whole.chosen[side][key].method.header
    reading = Reading(whole.logs[side].path, options.input_format, options.syntax)
    return open_compilation(reading, Row(header.compile_id, header.name, whole.ordinals[side][header]))
