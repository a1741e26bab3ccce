"""Runs over a whole log: `--list` of a large input from the header index, `--jsonl` of every method."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from asmcfg.errors import SelectionError
from asmcfg.run.progress import Progress
from asmcfg.sources.lines import STDIN, display_name

if TYPE_CHECKING:
    from asmcfg.run.compilations import Compilation
    from asmcfg.run.log import Log
    from asmcfg.run.options import Options
    from asmcfg.run.pipeline import Selector

T = TypeVar("T")
INDEX_BYTES = 64 << 20
"""Inputs larger than this are listed from the fast header index instead of a full parse."""


def large(path: str) -> bool:
    """True for a file big enough to be listed from the header index."""
    try:
        return path != STDIN and os.path.isfile(path) and os.path.getsize(path) > INDEX_BYTES
    except OSError:
        return False


def run(options: Options, log: Log, progress: Progress) -> int:
    """`--jsonl`, else `--list` from the index; returns the exit status."""
    if options.jsonl is not None:
        return _jsonl(options, log, progress)
    return _index(log, options.selector, progress, options.json)


def listing(path: str, quiet: bool = False) -> int:
    """`asmcfg FILE --list` of a large file, nothing selected: what the launcher runs without loading the CLI."""
    from asmcfg.run.log import Log

    with Progress(path, quiet or sys.stdout.isatty()) as progress:  # on a terminal the rows show the progress
        log = Log(path, progress=progress)
        return _index(log, None, progress)


def _index(log: Log, selector: Selector | None, progress: Progress, json: str | None = None) -> int:
    """`--list` of a large log: headers found by a byte search, nothing disassembled, listed in the order and with
    the line numbers a full read gives them (the table, or with `json` its rows as JSON to that file or `-`)."""
    path = log.path
    rows = log.indexed()
    if progress.shown:
        rows = _counted(rows, progress)
    if selector is not None and selector.any:
        rows = (
            r for r in rows
            if (selector.compile_id is None or r.compile_id == selector.compile_id)
            and (selector.compiler is None or r.compiler is selector.compiler)
            and (selector.pattern is None or selector.name_matches(r.method))
        )
    if json is None:
        _listed(path, _table(rows))
    else:
        from asmcfg.render.files import write_to

        write_to(json, lambda out: _listed(path, _json(rows, out)))
    return 0


def _table(rows: Iterator[Compilation]) -> int:
    from asmcfg.render.listing import write_index

    return write_index(rows, sys.stdout)


def _json(rows: Iterator[Compilation], out: TextIO) -> int:
    from asmcfg.render.listing import index_dict, write_rows

    return write_rows(map(index_dict, rows), out)


def _listed(path: str, count: int) -> None:
    """Nothing listed is an input error (a JSON target is then left as it was)."""
    if count == 0:
        from asmcfg.run.pipeline import no_methods_error

        raise no_methods_error(display_name(path))


def _counted(records: Iterator[T], progress: Progress) -> Iterator[T]:
    for record in records:
        progress.found()
        yield record


def _jsonl(options: Options, log: Log, progress: Progress) -> int:
    """Every selected method as one JSON line each, written as it finishes, in input order."""
    from asmcfg.render import jsonl
    from asmcfg.render.facts import facts_record
    from asmcfg.render.files import write_to
    from asmcfg.run import parallel
    from asmcfg.run.pipeline import no_methods_error

    assert options.jsonl is not None
    serializer: Any = facts_record if options.facts else jsonl.record_line
    if options.findings:
        from asmcfg.run.findings import WithFindings, measured_run

        serializer = WithFindings(serializer, display_name(log.folder or options.input), measured_run(log),
                                  options.class_path)
    log.enrichment  # noqa: B018 - a bad log or profile is an error before the output is opened

    def write(out: TextIO) -> None:
        stats = parallel.RunStats()
        records = log.records(serializer, options.selector, text=True, large=not options.facts, stats=stats)
        parallel.write_lines(records, out)
        progress.close()
        if stats.analysed == 0:
            raise (
                no_methods_error(display_name(options.input))
                if stats.methods == 0
                else SelectionError("no compilation matches the selection (see --list)", display_name(options.input))
            )
        if not options.quiet:
            from asmcfg import describe
            from asmcfg.render.summary import stderr_console  # not before the workers fork: rich takes memory

            stderr_console().print(
                f"{stats.analysed} of {describe.count(stats.methods, 'compilation')} written as JSON Lines"
                + (f"; {stats.failed} failed (see their error records)" if stats.failed else ""),
                highlight=False,
            )

    write_to(options.jsonl, write)
    return 0
