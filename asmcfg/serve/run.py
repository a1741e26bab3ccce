"""`asmcfg serve FILE`: index the input, print the URL once the index page is ready, analyse in the background,
serve until Ctrl-C or SIGTERM."""

from __future__ import annotations

import functools
import sys
import threading
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from asmcfg.model import Syntax
from asmcfg.run.notes import say_notes
from asmcfg.serve.opening import Reading
from asmcfg.serve.timeline import RANGES, offered

if TYPE_CHECKING:
    from collections.abc import Callable

    from asmcfg.model import Analysis
    from asmcfg.model.timeline import Window
    from asmcfg.render.html import PageOptions
    from asmcfg.run.enrich import Enrichment
    from asmcfg.run.log import Log
    from asmcfg.serve import app, pages
    from asmcfg.serve.rows import Index
    from asmcfg.serve.whatif import WhatIfs

STOP_WAIT = 5.0
"""Seconds the background analysis is given to end its workers once the server stops."""
WAKE = 0.25
"""Seconds between the main thread's looks for a signal's handler to run (its wait for a lock is not cut short
by a signal another thread received)."""


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """What `asmcfg serve` was asked."""

    reading: Reading
    """The input and how to read it."""
    log: str | None = None
    """`--log`: a LogCompilation log of the same run."""
    profile: str | None = None
    """`--profile`: a perfasm profile of the same run."""
    jdk: int | None = None
    """`--jdk`: the JDK whose trap tables to use."""
    source_path: tuple[str, ...] = ()
    """`--source-path` folders of .java files."""
    port: int = 0
    """The port; 0 takes a free one."""
    open_browser: bool = True
    """Open the index in the browser once ready."""
    quiet: bool = False
    """Nothing on stderr but errors."""
    renderer: str = "auto"
    """Graphviz: system dot or graphviz-pure."""
    render_timeout: float = 60
    """Seconds before Graphviz is given up on."""
    class_path: tuple[str, ...] = ()
    """`--classpath` (else a record folder's own class path): the class files of the bytecode pane."""


def serve(options: ServeOptions) -> int:
    """Run the server until stopped (Ctrl-C raises KeyboardInterrupt, SIGTERM `Stopped`: the guard's exit codes)."""
    from asmcfg.processes import start
    from asmcfg.serve import app, board, links, pages, rows
    from asmcfg.sources.lines import display_name

    started = time.perf_counter()
    start.preload(board.PRELOAD)  # the background analysis starts from the forkserver: the server runs threads
    log = _opened(options)
    from asmcfg.run.classes import class_path_of

    given = options
    options = replace(options, reading=replace(options.reading, path=log.path), profile=log.profile,
                      class_path=class_path_of(options.class_path, log.folder, log.pid))
    how = _enrichment(log) if options.log or options.profile else None  # a bad one: an error, no URL
    index = rows.build(log)
    say_notes(log, options.quiet)
    if not index.entries:
        from asmcfg.run.pipeline import no_methods_error

        raise no_methods_error(display_name(options.reading.path))
    addresses = index.links()
    timeline = offered(log, given.reading, index, addresses, (given.log, given.profile), given.jdk)
    more = {"timeline": app.TIMELINE} if timeline is not None else None
    home = pages.index_page(index, display_name(options.reading.path), addresses, more=more)
    found = board.Board(index)

    loaded = threading.Event()
    failed: list[BaseException] = []

    def render(n: int) -> pages.Page:
        loaded.wait()
        if failed:
            raise failed[0]
        assert how is not None
        from asmcfg.render.svg import budget

        with budget(options.render_timeout):  # every Graphviz run of the page within it
            return _render(options, index, how, n)

    def render_in(n: int, window: Window) -> pages.Page:
        loaded.wait()
        if failed:
            raise failed[0]
        assert timeline is not None
        from asmcfg.render.svg import budget
        from asmcfg.serve.timeline import words

        ranged = timeline.enrichment(window)
        with budget(options.render_timeout):
            return pages.with_range(_render(options, index, ranged, n), words(window), addresses[n])

    @functools.lru_cache(maxsize=RANGES)
    def home_in(window: Window) -> pages.Page:
        from asmcfg.serve.timeline import query_of, words

        query = query_of(window)
        return pages.index_page(index, display_name(options.reading.path), [a + query for a in addresses],
                                more={**(more or {}), "range": {"said": words(window), "query": query}})

    whatifs = _whatifs(log, index)
    sampled = timeline is not None and timeline.sampled
    server = listen(options.port, app.Site(links.rows_of(addresses), home, found, render, whatifs, timeline,
                                           home_in if sampled else None, render_in if sampled else None))

    stopper = board.Stopper()

    def prepare_and_fill(stop: threading.Event) -> None:
        """The background thread's body: the enrichment and the imports the pages and the analysis use, then the
        analysis. Not in the main thread: Ctrl-C lands there, and one landing in an import would leave the
        interpreter to end by SIGINT rather than with the guard's status 130."""
        nonlocal how
        start.warm()  # the analysis's forkserver imports what it runs meanwhile
        try:
            ready = how or _enrichment(log)
            _preload()
            how = ready
        except Exception as exc:  # each page asked for shows it, as the error it is; so does the progress
            failed.append(exc)
            found.stop(f"{type(exc).__name__}: {exc}")
            return
        finally:
            loaded.set()
        if not stop.is_set():  # the server stopped while this thread prepared: no analysis to start
            board.fill(found, options.reading, ready, stop, stopper)

    def background(stop: threading.Event) -> threading.Thread:
        filler = threading.Thread(target=prepare_and_fill, args=(stop,), daemon=True, name="asmcfg-facts")
        filler.start()
        return filler

    said = (f"asmcfg: {len(index.entries)} compilations indexed in {time.perf_counter() - started:.1f} s; analysing "
            "them in the background (Ctrl-C stops the server)")
    try:
        return run_server(server, options.open_browser, None if options.quiet else said, background)
    finally:
        stopper.stop()  # the analysis's process, should its thread not have ended it within STOP_WAIT
        if whatifs is not None:
            whatifs.stop()


def _whatifs(log: Log, index: Index) -> WhatIfs | None:
    """A record folder's what-ifs (on the pages of the compilations it keeps replay data of), else None."""
    if log.folder is None or log.pid is None:
        return None
    from asmcfg.serve.whatif import WhatIfs

    return WhatIfs(log.folder, log.pid, [entry.row.compile_id for entry in index.entries])


def listen(port: int, site: app.Site) -> app.Server:
    """The server of `site` on 127.0.0.1, listening; an input error when the port cannot be had."""
    from asmcfg.serve import app
    from asmcfg.serve.signin import HOST

    try:
        return app.Server(port, site)
    except OSError as exc:  # the port is taken, or not ours to take
        from asmcfg.errors import AsmcfgError

        raise AsmcfgError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc} (choose another "
                          "--port, or leave it out for a free one)") from None


def run_server(server: app.Server, open_browser: bool, said: str | None,
               background: Callable[[threading.Event], threading.Thread | None]) -> int:
    """Serve until Ctrl-C or SIGTERM: on stdout a URL to open once and the sign-in file's (`signin`), `said` on
    stderr, the browser given the file, then `background` started (its thread, told to stop by the event, is given
    STOP_WAIT seconds to end once the server has stopped)."""
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True,
                               name="asmcfg-http")
    stop = threading.Event()
    worker: threading.Thread | None = None
    try:
        serving.start()
        signin = server.signin.write_file()
        sys.stdout.write(f"{server.url}\n{signin}\n")
        sys.stdout.flush()
        if said is not None:
            sys.stderr.write(f"{said}; open the first URL above once, or the second in any browser here\n")
        worker = background(stop)
        if open_browser:  # the file, whose name is no secret: a browser's command line is readable by anyone
            threading.Thread(target=_open, args=(signin,), daemon=True).start()
        # The main thread waits here for Ctrl-C or SIGTERM, waking every WAKE seconds: the kernel may hand the signal
        # to another thread, and Python runs its handler in the main thread only once that thread wakes.
        while not stop.wait(WAKE):
            pass
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        server.signin.remove_file()
        if worker is not None:
            worker.join(STOP_WAIT)
    return 0


def _opened(options: ServeOptions) -> Log:
    """The input opened: a record folder as its busiest JVM's log, with the recording's samples as the profile."""
    from asmcfg.run.log import Log

    reading = options.reading
    log = Log(reading.path, log=options.log, profile=options.profile, input_format=reading.dialect,
              syntax=reading.syntax or Syntax.ATT, jdk=options.jdk)
    say_notes(log, options.quiet)  # which JVM of a record folder, before anything is read
    return log


def _enrichment(log: Log) -> Enrichment:
    """The log's enrichment for every compilation of the input (a compile id the log gives another method leaves
    that compilation without its records)."""
    return log.enrichment_for_each


def _render(options: ServeOptions, index: Index, how: Enrichment, n: int) -> pages.Page:
    """Row `n`'s report page: read, enriched, analysed and drawn as `--html` draws it."""
    from asmcfg.run import enrich
    from asmcfg.serve import pages
    from asmcfg.serve.opening import open_compilation

    done = enrich.enrich(open_compilation(options.reading, index.entries[n].row), how)
    page = _page_options(options, done.analysis)
    if done.overlay is not None and done.analysis.cfg.method.profile is None:  # the run measured, not this one
        page = replace(page, unmeasured=done.overlay.message)
    return pages.compilation_page(done.analysis, page)


def _page_options(options: ServeOptions, result: Analysis) -> PageOptions:
    return page_options(result, options.source_path, options.renderer, options.render_timeout, options.class_path)


def page_options(result: Analysis, source_path: tuple[str, ...], renderer: str, timeout: float,
                 class_path: tuple[str, ...] = ()) -> PageOptions:
    """How a compilation's report page is drawn: Graphviz as `--renderer` asks, its sources beside it."""
    from asmcfg.render import html
    from asmcfg.render.svg import render_svg
    from asmcfg.sources.java import find_sources, folders

    sources = None
    if source_path:
        method = result.cfg.method
        names = {f.method for ins in method.instructions for f in ins.frames} | {method.header.name}
        sources = find_sources(folders(source_path), names)

    def render(dot_text: str) -> bytes:
        return render_svg(dot_text, timeout, renderer)

    from asmcfg.run.classes import classes_for

    return html.PageOptions(render=render, fold=True, sources=sources, classes=classes_for([result], class_path))


def _preload() -> None:
    """Import what the pages use, in the background, before the first is asked for."""
    import asmcfg.analyses
    import asmcfg.cfg.build
    import asmcfg.isa
    import asmcfg.render.dot
    import asmcfg.render.facts
    import asmcfg.render.html
    import asmcfg.render.svg
    import asmcfg.run.opening
    import asmcfg.run.options
    import asmcfg.run.parallel
    import asmcfg.run.pipeline
    import asmcfg.serve.opening  # noqa: F401


def _open(url: str) -> None:
    import webbrowser

    webbrowser.open(url)
