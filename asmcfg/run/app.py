"""What a run of asmcfg does with its options: read, select, analyse, write. The CLI only fills Options."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from asmcfg import describe
from asmcfg.errors import SelectionError
from asmcfg.model import Analysis, Method, Unprinted
from asmcfg.run import recorded, selection, wholelog
from asmcfg.run.log import Log
from asmcfg.run.notes import say_notes
from asmcfg.run.options import Options
from asmcfg.run.pipeline import Picked, Selector
from asmcfg.run.progress import Progress
from asmcfg.terminal import visible

if TYPE_CHECKING:
    from asmcfg.render import html
    from asmcfg.run import drawings


STDOUT = "-"
STDIN = "-"
ONE_PAGE_MOST = 300
"""Compilations `--all --html FILE` puts on its one page at most: more make a page too large to load (713 of a
javac log made 102 MB); `--html DIR` writes a page each."""


def run(options: Options) -> int:
    """Carry out one invocation; returns the exit status (errors are raised as AsmcfgError)."""
    from asmcfg.run.outputs import check_run

    check_run(options)
    log = opened(options)
    from asmcfg.run.classes import class_path_of

    options = replace(options, input=log.path, profile=log.profile,
                      class_path=class_path_of(options.class_path, log.folder, log.pid))
    if options.input == STDIN and sys.stdin is not None and sys.stdin.isatty() and not options.quiet:
        sys.stderr.write("asmcfg: reading HotSpot output from standard input (end it with Ctrl-D, stop with Ctrl-C; "
                         "or give a FILE, see --help)\n")
    # --list to a terminal: its rows show the progress, and a bar would tangle with them
    with Progress(options.input, options.quiet or (options.list and sys.stdout.isatty())) as progress:
        log.watch(progress)
        try:
            return _run(options, log, progress)
        finally:
            say_notes(log, options.quiet)


def opened(options: Options) -> Log:
    """The input the options name, opened as they ask (a record folder resolved, its JVM said on stderr)."""
    log = Log(options.input, log=options.log, profile=options.profile, pid=options.pid,
              input_format=options.input_format, syntax=options.syntax, jdk=options.jdk, paths=options.paths,
              skid=options.skid, strict=options.strict, window=options.window)
    say_notes(log, options.quiet)
    if options.window != (None, None):
        if log.profile is None:  # no samples to keep a stretch of: not a filter to claim
            from asmcfg.errors import InputError

            raise InputError("--from/--to keep the samples of a stretch of a recorded run: this input has no samples "
                             "with their time (a record folder has them, or --profile with `perf script` text)",
                             log.path)
        if not options.quiet:
            sys.stderr.write(window_words(options.window) + "\n")
    return log


def window_words(window: tuple[float | None, float | None]) -> str:
    """What `--from`/`--to` keep, in one sentence."""
    low, high = window
    kept = (f"from {low:g} ms" if high is None else f"before {high:g} ms" if low is None
            else f"from {low:g} to {high:g} ms")
    return f"samples {kept} after the JVM's start only (--from, --to)"


def _run(options: Options, log: Log, progress: Progress) -> int:
    if options.findings and options.jsonl is None:
        from asmcfg.run import findings

        return findings.run(options, log, progress)
    if options.jsonl is not None:
        return wholelog.run(options, log, progress)
    if options.list and not options.strict:  # a large log, or the cache's copy of one, is listed from its index
        listed = log.plain() or options.input
        say_notes(log, options.quiet)
        if wholelog.large(listed):
            return wholelog.run(options, log, progress)
    if options.list:
        listed_rows = _list(log, options.selector, options.json)
        if log.enrichment.perf is not None and not options.quiet:
            recorded.say_hottest(log.enrichment.perf)
        return listed_rows
    if options.all:
        return _run_all(log, options, progress)
    picked = log.choose_by(options.selector, counted=not options.quiet)
    say_notes(log, options.quiet)
    return _write_one(picked, log, options, progress)


def _write_one(picked: Picked, log: Log, options: Options, progress: Progress) -> int:
    """Enrich, analyse and write the chosen compilation (complete: what the input says of it after its code)."""
    progress.close()
    method = picked.method
    done = log.analyse(picked)
    unprinted = log.unprinted
    result = done.analysis
    if done.overlay is not None or not options.quiet:  # what goes to stderr: rich is loaded only for it
        from asmcfg.render import summary

        err = summary.stderr_console()
    if done.overlay is not None:
        prefix = "profile" if done.overlay.matched else "profile NOT applied"
        err.print(visible(f"{prefix}: {done.overlay.message}"), highlight=False, markup=False)
    if not options.quiet:
        selection.say_choice(err, picked, options.selector)
    _write_outputs([result], options, unprinted)
    if not options.quiet:
        from asmcfg.render.heat_summary import write_unprinted

        summary.write_summary(result, err)
        write_unprinted(_others(unprinted, method), err)
        if log.enrichment.perf is not None:
            recorded.say_places(log.enrichment.perf, err)
    return 0


def _others(unprinted: list[Unprinted] | None, method: Method) -> list[Unprinted]:
    mine = method.header.compile_id
    return [u for u in unprinted or () if u.header.compile_id is None or u.header.compile_id != mine]


def _list(log: Log, selector: Selector, json: str | None) -> int:
    """The --list table (with `json`, its rows as JSON there); a pattern no compilation's own name matches lists the
    compilations that inline it."""
    from asmcfg.render import listing
    from asmcfg.render.files import write_to

    found = log.listing(selector)

    def write(out: TextIO) -> None:
        if (listing.write_table if json is None else listing.write_json)(found.rows, out, found.unprinted,
                                                                           found.runs) == 0:
            raise found.nothing()

    write_to(json or STDOUT, write)
    return 0


def _run_all(log: Log, options: Options, progress: Progress) -> int:
    chosen = log.each(options.selector)
    selected = list(_one_page(chosen, options) if options.html is not None else chosen)
    progress.close()
    done = [log.analyse(m, alone=False) for m in selected]
    results = [d.analysis for d in done]
    _write_outputs(results, options)
    if not options.quiet:
        from asmcfg.render import summary

        err = summary.stderr_console()
        if log.enrichment.profile is not None:
            fitted = sum(1 for d in done if d.overlay is not None and d.overlay.matched)
            err.print(f"profile: heat put on {fitted} of {describe.count(len(done), 'compilation')}",
                      highlight=False, markup=False)
        for result in results:
            summary.write_summary(result, err)
    return 0


def _one_page(methods: Iterator[Method], options: Options) -> Iterator[Method]:
    """The methods, stopped with an error before anything is written once there are more than one page holds."""
    from asmcfg.sources.lines import display_name

    for count, method in enumerate(methods, 1):
        if count > ONE_PAGE_MOST:
            raise SelectionError(
                f"--all --html {options.html}: more than {ONE_PAGE_MOST} compilations for one page; write a page "
                "each with --html DIR (a folder; --top N keeps the N hottest or largest), or explore them all "
                "with asmcfg serve", display_name(options.input))
        yield method


def _write_outputs(results: list[Analysis], options: Options, unprinted: list[Unprinted] | None = None) -> None:
    from asmcfg.render.files import write_to
    from asmcfg.run import drawings

    dot_target = options.dot or (STDOUT if not (options.json or options.svg or options.html) else None)
    told = [drawings.Told("--svg"), drawings.Told("--html")]
    if options.svg:
        _write_svg(results, options, told[0])
    if options.html:
        _write_html(results, options, told[1])
    if options.json:
        from asmcfg.render import json

        write_to(options.json, lambda out: json.write_json(results, out, unprinted))
    if dot_target:
        from asmcfg.render import dot

        write_to(dot_target, lambda out: dot.write_many(results, out, options.fold))
    for each in told:
        drawings.finish(each, selected=not options.all)


def _write_svg(results: list[Analysis], options: Options, told: drawings.Told) -> None:
    """The one compilation's SVG (none when nothing could draw it: `told` hears of it)."""
    from asmcfg.render import svgnodes
    from asmcfg.render.drawing import draw
    from asmcfg.render.files import bytes_to
    from asmcfg.run.drawings import renderers

    assert options.svg is not None
    render, others = renderers(options.renderer, options.render_timeout)
    drawing = draw(results[0], render, others, options.fold)
    told(results[0], drawing)
    if drawing.svg is None:
        return
    bytes_to(options.svg, svgnodes.finish(drawing.svg.decode("utf-8"), results[0]).encode("utf-8"))
    if not options.quiet and options.svg != STDOUT:
        header, blocks = results[0].cfg.method.header, describe.count(len(results[0].cfg.blocks), "block")
        _wrote(options.svg, f"{describe.compilation(header)}, {blocks}")


def _write_html(results: list[Analysis], options: Options, told: drawings.Told) -> None:
    assert options.html is not None
    from asmcfg.render import html
    from asmcfg.render.files import write_to

    page = page_options(results, options, told)
    write_to(options.html, lambda out: html.write_html(results, out, page))
    if not options.quiet and options.html != STDOUT:
        one = describe.compilation(results[0].cfg.method.header)
        _wrote(options.html, one if len(results) == 1 else f"{len(results)} compilations")


def page_options(results: list[Analysis], options: Options, told: drawings.Told) -> html.PageOptions:
    """How `--html` draws the page of `results`: the run's renderers, folding and the sources they name."""
    from asmcfg.render import html
    from asmcfg.run.classes import classes_for
    from asmcfg.run.drawings import renderers
    from asmcfg.sources.java import find_sources, folders

    sources = None
    if options.source_path:
        names = {f.method for r in results for ins in r.cfg.method.instructions for f in ins.frames}
        names |= {r.cfg.method.header.name for r in results}
        sources = find_sources(folders(options.source_path), names)
    render, others = renderers(options.renderer, options.render_timeout)
    classes = classes_for(results, options.class_path)
    return html.PageOptions(render=render, fold=options.fold, sources=sources, others=others, told=told,
                            classes=classes)


def _wrote(path: str, what: str) -> None:
    """`wrote FILE: what` on stderr, the file's and the compilation's names made visible."""
    from asmcfg.render.summary import stderr_console

    stderr_console().print(visible(f"wrote {path}: {what}"), highlight=False, markup=False, soft_wrap=True)
