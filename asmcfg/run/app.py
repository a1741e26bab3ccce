"""What a run of asmcfg does with its options: read, select, analyse, write. The CLI only fills Options."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from asmcfg import dialects
from asmcfg.errors import AsmcfgError, SelectionError, StrictError
from asmcfg.model import Analysis, Method
from asmcfg.run import selection, wholelog
from asmcfg.run.options import Options
from asmcfg.run.pipeline import Selector, Stream, analyse_method, no_methods_error, open_input, pick_one, pick_profiled
from asmcfg.run.progress import Progress

if TYPE_CHECKING:
    from rich.console import Console

    from asmcfg.dialects.perfasm.profile import MethodProfile

STDOUT = "-"
_MAX_NAMES = 10_000


def run(options: Options) -> int:
    """Carry out one invocation; returns the exit status (errors are raised as AsmcfgError)."""
    # --list to a terminal: its rows show the progress, and a bar would tangle with them
    with Progress(options.input, options.quiet or (options.list and sys.stdout.isatty())) as progress:
        return _run(options, progress)


def _run(options: Options, progress: Progress) -> int:
    if options.jsonl is not None or (options.list and wholelog.large(options.input)):
        return wholelog.run(options, progress)
    profiles = _read_profiles(options.profile) if options.profile else None
    read = dialects.ReadOptions(options.syntax)
    meter = progress.read if progress.shown else None
    stream = open_input(options.input, options.input_format, read, annotated=profiles is not None, meter=meter)
    methods = _Checked(stream, options.strict, progress)
    if options.list:
        from rich.console import Console

        from asmcfg.render.listing import write_listing

        console = Console(width=200, no_color=True, highlight=False, markup=False)
        if write_listing((m for m in methods if options.selector.matches(m)), console) == 0:
            raise _nothing_selected(stream.source, methods, options.selector)
        return 0
    if options.all:
        return _run_all(stream, methods, options, progress)
    if profiles is not None and not options.selector.any:
        picked = pick_profiled(methods, profiles)
    else:
        picked = pick_one(methods, options.selector)
    if picked is None:
        raise _nothing_selected(stream.source, methods, options.selector)
    progress.close()
    from asmcfg.render import summary

    err = summary.stderr_console()
    method = stream.complete(picked.method)
    if profiles is not None:
        method = _overlaid(method, profiles, err)
    result = analyse_method(method, options.jdk, options.paths)
    if not options.quiet and profiles is not None and not options.selector.any:
        err.print(
            f"chose the compilation the profile's samples land on, of {picked.total} in the input (see --list)",
            highlight=False,
        )
    elif not options.quiet:
        _say_choice(err, picked.candidates, picked.total, options.selector)
    _write_outputs([result], options)
    if not options.quiet:
        summary.write_summary(result, err)
    return 0


class _Checked(Iterator[Method]):
    """The stream's methods as they pass: stopped at the first skipped line under --strict, counted and named."""

    def __init__(self, stream: Stream, strict: bool, progress: Progress) -> None:
        self._methods = stream.methods
        self._source = stream.source
        self._strict = strict
        self._progress = progress
        self.count = 0
        """Methods read so far."""
        self.names: set[str] = set()
        """Their names (at most _MAX_NAMES), for did-you-mean hints."""

    def __next__(self) -> Method:
        method = next(self._methods)
        if self._strict and method.skipped:
            number, text = method.skipped[0]
            raise StrictError(
                f"line not understood: {text[:80]!r} (drop --strict to skip such lines)", self._source, number
            )
        self.count += 1
        self._progress.found()
        if len(self.names) < _MAX_NAMES:
            self.names.add(method.header.name)
        return method


def _nothing_selected(source: str, seen: _Checked, selector: Selector) -> AsmcfgError:
    """No method at all (say what the input looks like), or none that matches (say how many there are)."""
    if not selector.any or seen.count == 0:
        return no_methods_error(source)
    what = selection.wanted(selector.pattern, selector.compile_id, selector.compiler)
    return SelectionError(selection.not_found(what, seen.count, seen.names, selector.pattern), source)


def _say_choice(err: Console, candidates: int, total: int, selector: Selector) -> None:
    if candidates > 1:
        kind = "matching compilations" if selector.any else "compilations in the input"
        err.print(
            f"chose the last C2 (else the last) of {candidates} {kind}; {total - 1} others: see --list", highlight=False
        )
    elif total > 1:
        err.print(f"{total} compilations in the input: see --list", highlight=False)


def _read_profiles(path: str) -> list[MethodProfile]:
    from asmcfg.dialects.perfasm.profile import read_profiles

    return read_profiles(path)


def _overlaid(method: Method, profiles: list[MethodProfile], err: Console) -> Method:
    """The method with the profile's heat, saying on stderr how well the addresses matched."""
    from asmcfg.dialects.perfasm.profile import overlay

    overlaid, found = overlay(method, profiles)
    prefix = "profile" if found.matched else "profile NOT applied"
    err.print(f"{prefix}: {found.message}", highlight=False, markup=False)
    return overlaid


def _run_all(stream: Stream, methods: _Checked, options: Options, progress: Progress) -> int:
    selected = [m for m in methods if options.selector.matches(m)]
    progress.close()
    results = [analyse_method(stream.complete(m), options.jdk, options.paths) for m in selected]
    if not results:
        raise _nothing_selected(stream.source, methods, options.selector)
    _write_outputs(results, options)
    if not options.quiet:
        from asmcfg.render import summary

        err = summary.stderr_console()
        for result in results:
            summary.write_summary(result, err)
    return 0


def _write_outputs(results: list[Analysis], options: Options) -> None:
    from asmcfg.render import dot
    from asmcfg.render.files import write_to

    dot_target = options.dot or (STDOUT if not (options.json or options.svg) else None)
    if options.svg:
        _write_svg(results, options)
    if options.json:
        from asmcfg.render import json

        write_to(options.json, lambda out: json.write_json(results, out))
    if dot_target:
        write_to(dot_target, lambda out: dot.write_many(results, out, options.fold))


def _write_svg(results: list[Analysis], options: Options) -> None:
    from asmcfg.render import dot
    from asmcfg.render.files import atomic_bytes
    from asmcfg.render.svg import render_svg

    assert options.svg is not None
    text = io.StringIO()
    dot.write_dot(results[0], text, options.fold)
    atomic_bytes(options.svg, render_svg(text.getvalue(), options.render_timeout, options.renderer))
