"""What a run of asmcfg does with its options: read, select, analyse, write. The CLI only fills Options."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

from rich.console import Console

from asmcfg import dialects
from asmcfg.errors import InputError, SelectionError, StrictError
from asmcfg.model import Analysis, Method
from asmcfg.pipeline import Selector, Stream, analyse_method, no_methods_error, open_input, pick_one
from asmcfg.render import dot, json, summary
from asmcfg.render.files import atomic_bytes, atomic_text
from asmcfg.render.listing import write_listing
from asmcfg.render.svg import render_svg

STDOUT = "-"


@dataclass(frozen=True, slots=True)
class Options:
    """Everything a run needs to know, already validated by the CLI."""

    input: str = "-"
    """Input path, `-` for stdin."""
    selector: Selector = field(default_factory=Selector)
    """Which compilations to show."""
    all: bool = False
    """Every matching compilation, not just one."""
    list: bool = False
    """Print the compilations table and stop."""
    json: str | None = None
    """Write the JSON document here (`-` for stdout)."""
    svg: str | None = None
    """Render the graph to this SVG file."""
    dot: str | None = None
    """Write DOT here (`-` for stdout); stdout is the default when no other output is asked for."""
    fold: bool = True
    """Fold chains of cold out-of-line blocks."""
    jdk: int | None = None
    """Force the JDK whose trap-reason table is used."""
    syntax: str = "att"
    """x86 syntax for decoded hex."""
    input_format: str | None = None
    """Force a dialect instead of sniffing."""
    renderer: str = "auto"
    """Graphviz to use for SVG."""
    render_timeout: float = 60.0
    """Seconds Graphviz may take."""
    strict: bool = False
    """Fail on the first line inside a method that is not understood."""
    quiet: bool = False
    """No summary on stderr."""


def stderr_console() -> Console:
    """The console for the summary: colour only on a terminal and without NO_COLOR."""
    terminal = sys.stderr.isatty()
    return Console(stderr=True, width=None if terminal else 160, no_color=bool(os.environ.get("NO_COLOR")))


def run(options: Options) -> int:
    """Carry out one invocation; returns the exit status (errors are raised as AsmcfgError)."""
    stream = open_input(options.input, options.input_format, dialects.ReadOptions(options.syntax))
    methods = _checked(stream, options.strict)
    if options.list:
        console = Console(width=200, no_color=True, highlight=False)
        if write_listing((m for m in methods if options.selector.matches(m)), console) == 0:
            raise no_methods_error(stream.source)
        return 0
    if options.all:
        return _run_all(stream, methods, options)
    picked = pick_one(methods, options.selector)
    if picked is None:
        raise _nothing_selected(stream, options.selector)
    result = analyse_method(picked.method, options.jdk)
    err = stderr_console()
    if not options.quiet:
        _say_choice(err, picked.candidates, picked.total, options.selector)
    _write_outputs([result], options)
    if not options.quiet:
        summary.write_summary(result, err)
    return 0


def _checked(stream: Stream, strict: bool) -> Iterator[Method]:
    for method in stream.methods:
        if strict and method.skipped:
            number, text = method.skipped[0]
            raise StrictError(
                f"line not understood: {text[:80]!r} (drop --strict to skip such lines)", stream.source, number
            )
        yield method


def _nothing_selected(stream: Stream, selector: Selector) -> InputError:
    if not selector.any:
        return no_methods_error(stream.source)
    wanted = selector.pattern or (f"compile id {selector.compile_id}" if selector.compile_id is not None else "")
    wanted = wanted or f"{selector.compiler} compilation"
    return SelectionError(f"{wanted!s} not found in the input (see --list)", stream.source)


def _say_choice(err: Console, candidates: int, total: int, selector: Selector) -> None:
    if candidates > 1:
        kind = "matching compilations" if selector.any else "compilations in the input"
        err.print(
            f"chose the last C2 (else the last) of {candidates} {kind}; {total - 1} others: see --list", highlight=False
        )
    elif total > 1:
        err.print(f"{total} compilations in the input: see --list", highlight=False)


def _run_all(stream: Stream, methods: Iterator[Method], options: Options) -> int:
    results = [analyse_method(m, options.jdk) for m in methods if options.selector.matches(m)]
    if not results:
        raise _nothing_selected(stream, options.selector)
    _write_outputs(results, options)
    if not options.quiet:
        err = stderr_console()
        for result in results:
            summary.write_summary(result, err)
    return 0


def _write_outputs(results: list[Analysis], options: Options) -> None:
    dot_target = options.dot or (STDOUT if not (options.json or options.svg) else None)
    if options.svg:
        _write_svg(results, options)
    if options.json:
        _write(options.json, lambda out: json.write_json(results, out))
    if dot_target:
        _write(dot_target, lambda out: dot.write_many(results, out, options.fold))


def _write(target: str, writer: object) -> None:
    assert callable(writer)
    if target == STDOUT:
        writer(sys.stdout)
        sys.stdout.flush()
        return
    with atomic_text(target) as out:
        writer(out)


def _write_svg(results: list[Analysis], options: Options) -> None:
    assert options.svg is not None
    text = io.StringIO()
    dot.write_dot(results[0], text, options.fold)
    atomic_bytes(options.svg, render_svg(text.getvalue(), options.render_timeout, options.renderer))


def dot_text(result: Analysis, fold: bool = True) -> str:
    """DOT for one result as a string."""
    out = io.StringIO()
    dot.write_dot(result, out, fold)
    return out.getvalue()
