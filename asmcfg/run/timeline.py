"""`--timeline`: the run over time of a record folder (its samples and its JVM's log) or of a LogCompilation log
alone (the JIT events), as text on stderr and, with `--json`, as the `timeline` object of a JSON document; with
`--method` or `--compile-id`, that method's story too."""

from __future__ import annotations

import os
import shlex
import sys
from typing import TYPE_CHECKING, Any, TextIO

from asmcfg.errors import InputError, SelectionError
from asmcfg.facts.story import Story, storms, story
from asmcfg.facts.timeline import Timeline, build
from asmcfg.model.timeline import Binned, JitLog, Window
from asmcfg.run.options import Options
from asmcfg.run.pipeline import Selector

if TYPE_CHECKING:
    from asmcfg.run.log import Log

SCHEMA = 1


def run(options: Options) -> int:
    """Read, build and write the timeline the options ask for."""
    from asmcfg.run.log import Log
    from asmcfg.run.notes import say_notes

    log = Log(options.input, pid=options.pid, window=options.window)
    say_notes(log, options.quiet)  # which JVM of a record folder, before anything is read
    jit, binned = read(log)
    timeline = build(jit, binned, options.bucket)
    stories = _stories(timeline, binned, options.selector)
    flagged = storms(timeline, binned)
    if not options.quiet:
        from asmcfg.render.timeline import WIDTH, fitting_width, write_timeline

        pid = f"pid {jit.pid} " if jit.pid is not None else ""
        terminal = _terminal_columns()
        write_timeline(timeline, sys.stderr, f"{pid}{log.source}", stories, flagged, shlex.quote(options.input),
                       WIDTH if terminal is None else fitting_width(terminal))
    if options.json is not None or options.html is not None:
        from asmcfg.render.files import write_to

        document = as_document(timeline, stories, flagged)
    if options.json is not None:
        write_to(options.json, lambda out: _dump(document, out))
    if options.html is not None:
        from asmcfg.render.timeline_html import timeline_page

        page = timeline_page(document, f"{log.source}: the run over time", shlex.quote(options.input))
        write_to(options.html, lambda out: _write(page, out))
    return 0


def read(log: Log, window: Window | None = None) -> tuple[JitLog, Binned | None]:
    """The log's JIT records and, when it is a record folder's with samples and the log gives its start time, the
    samples (those of `window`, else of the log's own)."""
    jit = log.jit_log()
    if not jit.tasks and jit.time_ms is None:
        raise InputError("no compilation and no `<hotspot_log>` record: --timeline reads a -XX:+LogCompilation log "
                         "or a folder `asmcfg record` wrote", log.source)
    if log.samples is None:
        why = f"{log.folder} holds no perf data" if log.folder is not None else "no samples (a record folder has them)"
        return _noted(jit, f"{why}: the JIT events alone"), None
    return jit, log.binned(window)


def _noted(jit: JitLog, note: str) -> JitLog:
    from dataclasses import replace

    return replace(jit, problems=(*jit.problems, note))


def _terminal_columns() -> int | None:
    """The columns of the terminal stderr is (COLUMNS, else the terminal's own, as the summary's console reads
    them); None when stderr is not a terminal: a log or a pipe keeps the rows at their full width."""
    if not sys.stderr.isatty():
        return None
    try:
        found = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        found = 0
    if found > 0:
        return found
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except OSError:
        return None


def _stories(timeline: Timeline, binned: Binned | None, selector: Selector) -> list[Story]:
    """The story of the method `--method` or `--compile-id` names (the most sampled one the pattern matches)."""
    if selector.pattern is None and selector.compile_id is None:
        return []
    chosen = [v for v in timeline.versions if (selector.compile_id is None or v.task.compile_id == selector.compile_id)
              and selector.name_matches(v.task.method)]
    if not chosen:
        raise SelectionError("no compilation in the log matches the selection: see --list", "--timeline")
    methods: dict[str, int] = {}
    for version in chosen:
        methods[version.task.method] = methods.get(version.task.method, 0) + version.samples
    method = max(sorted(methods), key=lambda m: methods[m])
    return [story(timeline, binned, method)]


def as_document(timeline: Timeline, stories: list[Story], flagged: list[Story]) -> dict[str, Any]:
    """`{"schema": 1, "timeline": {…}}`, with the storms and the chosen method's story."""
    document: dict[str, Any] = {"schema": SCHEMA, "timeline": timeline.as_dict()}
    document["timeline"]["storms"] = [s.as_dict() for s in flagged]
    document["timeline"]["story"] = stories[0].as_dict() if stories else None
    return document


def _write(text: str, out: TextIO) -> None:
    out.write(text)


def _dump(document: dict[str, Any], out: TextIO) -> None:
    import json

    json.dump(document, out, indent=1)
    out.write("\n")
