"""`--timeline`: the run over time of a record folder (its samples and its JVM's log) or of a LogCompilation log
alone (the JIT events), as text on stderr and, with `--json`, as the `timeline` object of a JSON document; with
`--method` or `--compile-id`, that method's story too."""

from __future__ import annotations

import shlex
import sys
from typing import Any, TextIO

from asmcfg.errors import InputError, SelectionError
from asmcfg.facts.story import Story, storms, story
from asmcfg.facts.timeline import Timeline, build
from asmcfg.model.timeline import Binned, JitLog
from asmcfg.run import recorded
from asmcfg.run.options import Options
from asmcfg.run.pipeline import Selector
from asmcfg.sources.lines import display_name

SCHEMA = 1


def run(options: Options) -> int:
    """Read, build and write the timeline the options ask for."""
    found = recorded.chosen(options.input, options.pid, options.quiet)
    log = found.log if found is not None else options.input
    script = found.perf_script if found is not None else None
    jit, binned = read(log, script, options.window, options.input if found is not None else None)
    timeline = build(jit, binned, options.bucket)
    stories = _stories(timeline, binned, options.selector)
    flagged = storms(timeline, binned)
    if not options.quiet:
        from asmcfg.render.timeline import write_timeline

        pid = f"pid {jit.pid} " if jit.pid is not None else ""
        write_timeline(timeline, sys.stderr, f"{pid}{display_name(log)}", stories, flagged, shlex.quote(options.input))
    if options.json is not None or options.html is not None:
        from asmcfg.render.files import write_to

        document = as_document(timeline, stories, flagged)
    if options.json is not None:
        write_to(options.json, lambda out: _dump(document, out))
    if options.html is not None:
        from asmcfg.render.timeline_html import timeline_page

        page = timeline_page(document, f"{display_name(log)}: the run over time", shlex.quote(options.input))
        write_to(options.html, lambda out: _write(page, out))
    return 0


def read(log: str, script: str | None, window: tuple[float | None, float | None],
         folder: str | None) -> tuple[JitLog, Binned | None]:
    """The log's JIT records and, when `script` names the run's samples and the log its start time, the samples."""
    from asmcfg.dialects.heatfiles import read_binned, read_jit_log

    jit = read_jit_log(log)
    if not jit.tasks and jit.time_ms is None:
        raise InputError("no compilation and no `<hotspot_log>` record: --timeline reads a -XX:+LogCompilation log "
                         "or a folder `asmcfg record` wrote", display_name(log))
    if script is None:
        why = f"{folder} holds no perf data" if folder is not None else "no samples (a record folder has them)"
        return _noted(jit, f"{why}: the JIT events alone"), None
    if jit.time_ms is None:
        return jit, None
    return jit, read_binned(script, log, jit, window)


def _noted(jit: JitLog, note: str) -> JitLog:
    from dataclasses import replace

    return replace(jit, problems=(*jit.problems, note))


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
