"""The times a LogCompilation log stamps: each compilation's queue, start, end and install, each `make_not_entrant`,
each trap that fired and each deoptimization, read in one pass over its one-line records.

The `<tty>` part holds `<task_queued>`, `<nmethod>`, `<make_not_entrant>` and the fired `<uncommon_trap thread=…>`
and `<deoptimized>` elements (their `<jvms>` scopes on the lines after); each compiler thread's
`<compilation_log>` holds its `<task stamp=…>` … `<task_done stamp=…>`. A `stamp` is seconds from the log's time
zero, with millisecond resolution.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from asmcfg.dialects.logcompilation.logxml import line_attrs, method_name, nmethod_record, to_int
from asmcfg.model import Compiler
from asmcfg.model.timeline import EventKind, JitEvent, JitLog, JitTask, Refusal
from asmcfg.sources.lines import display_name, open_binary, raw_lines

_MAX_LINE = 1 << 16
"""Every record read here is one short line; longer lines are not read as records."""
_HEADS = (b"<task_queued ", b"<task ", b"<task_done ", b"<failure ", b"<nmethod ", b"<make_not_entrant ",
          b"<make_not_compilable ", b"<uncommon_trap thread=", b"<deoptimized ", b"<jvms ", b"</uncommon_trap",
          b"</deoptimized", b"<hotspot_log ", b"<destroy_vm ", b"<tty_done ", b"<hotspot_log_done ",
          b"<compilation_log ", b"</compilation_log")
_ENDS = ("destroy_vm", "tty_done", "hotspot_log_done")
_SCOPE = re.compile(rb"; - (?:\(reexecute\) )?([^\s@]{1,1000})@(\d{1,9}) \(line (\d{1,9})\)")
_MOST_LINES = 1_000_000
"""Distinct (method, bci) scopes whose lines are kept at most."""


def stamp_ms(text: str | None) -> int | None:
    """A `stamp` (`12.345`, seconds) in milliseconds; None when it is not one."""
    if text is None or not text.isascii():
        return None
    seconds, _, fraction = text.partition(".")
    if not seconds.isdigit() or len(seconds) > 9 or len(fraction) > 9 or not (fraction.isdigit() or not fraction):
        return None
    return int(seconds) * 1000 + int(fraction.ljust(3, "0")[:3] or "0")


@dataclass(slots=True)
class _Task:
    """What the log said so far of one compile id."""

    compile_id: int
    line: int
    method: str = ""
    compiler: Compiler = Compiler.UNKNOWN
    level: int | None = None
    kind: str = ""
    osr_bci: int | None = None
    queued: int | None = None
    started: int | None = None
    done: int | None = None
    installed: int | None = None
    size: int | None = None
    bytecode_size: int | None = None
    failure: str = ""
    address: int | None = None
    installed_line: int = 0

    def frozen(self) -> JitTask:
        return JitTask(self.compile_id, self.method, self.compiler, self.level, self.kind, self.osr_bci,
                       self.queued, self.started, self.done, self.installed, self.size, self.bytecode_size,
                       self.failure, self.line, self.address, self.installed_line)


@dataclass(slots=True)
class _Reading:
    """The state of one pass over a log."""

    name: str
    tasks: dict[int, _Task] = field(default_factory=dict)
    events: list[JitEvent] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    pid: int | None = None
    time_ms: int | None = None
    end: int | None = None
    latest: int | None = None
    backwards: int = 0
    first_backwards: int = 0
    section: str = ""
    current: _Task | None = None
    lines: dict[tuple[str, int], int] = field(default_factory=dict)
    """The Java line of each (method, bci) the printed code names."""
    scoped: JitEvent | None = None
    """A fired trap or deoptimization whose innermost `<jvms>` scope is still to come."""

    def task(self, compile_id: int, line: int) -> _Task:
        found = self.tasks.get(compile_id)
        if found is None:
            found = self.tasks[compile_id] = _Task(compile_id, line)
        return found

    def stamped(self, attrs: dict[str, str], number: int, in_tty: bool = True) -> int | None:
        when = stamp_ms(attrs.get("stamp"))
        if when is None or not in_tty:
            return when
        if self.latest is not None and when < self.latest:
            self.backwards += 1
            self.first_backwards = self.first_backwards or number
        self.latest = when if self.latest is None else max(self.latest, when)
        return when


def read_jit_log(path: str) -> JitLog:
    """The compilations and events of the LogCompilation log `path` (one pass over its lines)."""
    reading = _Reading(display_name(path))
    with open_binary(path) as stream:
        for number, raw in enumerate(raw_lines(stream, reading.name), 1):
            if len(raw) >= _MAX_LINE:
                continue
            if raw.startswith(_HEADS):
                _record(reading, raw, number)
            elif b"(line " in raw:
                _source_line(reading, raw)
    return _finished(reading)


def _source_line(reading: _Reading, raw: bytes) -> None:
    """A printed scope's Java line (`; - (reexecute) pkg.Cls::m@15 (line 8)`), kept by method and bci."""
    found = _SCOPE.search(raw)
    if found is not None and len(reading.lines) < _MOST_LINES:
        key = (found.group(1).decode("utf-8", "replace"), int(found.group(2)))
        reading.lines.setdefault(key, int(found.group(3)))


def _record(reading: _Reading, raw: bytes, number: int) -> None:
    name = raw[1 : raw.find(b" ") if b" " in raw else len(raw)].rstrip(b">\r\n").decode("ascii", "replace")
    if name.startswith("/"):
        _closing(reading, name[1:])
        return
    attrs = line_attrs(raw)
    handler = _HANDLERS.get(name)
    if handler is not None:
        handler(reading, attrs, number)
    elif name in _ENDS:
        when = stamp_ms(attrs.get("stamp"))
        if when is not None:
            reading.end = when if reading.end is None else max(reading.end, when)


def _closing(reading: _Reading, name: str) -> None:
    if name == "compilation_log":
        reading.section, reading.current = "", None
    elif name in ("uncommon_trap", "deoptimized"):
        reading.scoped = None


def _hotspot_log(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    if reading.pid is None:
        reading.pid, reading.time_ms = to_int(attrs.get("process")), to_int(attrs.get("time_ms"))


def _compilation_log(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    reading.section = attrs.get("thread", "?")


def _describe(task: _Task, attrs: dict[str, str]) -> None:
    task.method = task.method or method_name(attrs.get("method", ""))
    task.kind = task.kind or attrs.get("compile_kind", "")
    task.level = task.level if task.level is not None else to_int(attrs.get("level"))
    task.osr_bci = task.osr_bci if task.osr_bci is not None else to_int(attrs.get("osr_bci"))
    task.bytecode_size = task.bytecode_size if task.bytecode_size is not None else to_int(attrs.get("bytes"))


def _task_queued(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    compile_id = to_int(attrs.get("compile_id"))
    if compile_id is not None:
        task = reading.task(compile_id, number)
        _describe(task, attrs)
        task.queued = reading.stamped(attrs, number)


def _task(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    compile_id = to_int(attrs.get("compile_id"))
    if compile_id is None or not reading.section:
        return
    task = reading.current = reading.task(compile_id, number)
    _describe(task, attrs)
    task.started = reading.stamped(attrs, number, in_tty=False)


def _task_done(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    if reading.current is not None:
        reading.current.done = reading.stamped(attrs, number, in_tty=False)
        if attrs.get("success") == "0" and not reading.current.failure:
            reading.current.failure = "failed"
        reading.current = None


def _failure(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    if reading.current is not None and (reading.current.failure in ("", "failed")):
        reading.current.failure = attrs.get("reason", "failed")


def _nmethod(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    record = nmethod_record(attrs, number)
    if record is None:
        return
    task = reading.task(record.compile_id, number)
    _describe(task, attrs)
    task.compiler, task.level, task.kind = record.compiler, record.level, record.kind
    task.installed, task.size = reading.stamped(attrs, number), record.size
    task.address, task.installed_line = record.address, number


def _make_not_entrant(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    _event(reading, attrs, number, EventKind.MAKE_NOT_ENTRANT)


def _make_not_compilable(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    method = method_name(attrs.get("method", ""))
    if method:
        reading.refusals.append(Refusal(
            reading.stamped(attrs, number), method, to_int(attrs.get("level")), attrs.get("osr", "0") not in ("", "0"),
            attrs.get("reason", ""), to_int(attrs.get("count")), to_int(attrs.get("backedge_count")), number))


def _uncommon_trap(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    reading.scoped = _event(reading, attrs, number, EventKind.UNCOMMON_TRAP)


def _deoptimized(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    if "thread" in attrs:
        reading.scoped = _event(reading, attrs, number, EventKind.DEOPTIMIZED)


def _event(reading: _Reading, attrs: dict[str, str], number: int, kind: EventKind) -> JitEvent | None:
    when = reading.stamped(attrs, number)
    compile_id = to_int(attrs.get("compile_id"))
    if when is None and reading.latest is None:
        return None
    known = reading.tasks.get(compile_id) if compile_id is not None else None
    event = JitEvent(when if when is not None else reading.latest or 0, kind, compile_id,
                     known.method if known is not None else "", attrs.get("reason", ""), attrs.get("action", ""),
                     None, number)
    reading.events.append(event)
    return event


def _jvms(reading: _Reading, attrs: dict[str, str], number: int) -> None:
    """The innermost scope of a fired trap or deoptimization: its first `<jvms>`."""
    event = reading.scoped
    if event is None or not reading.events or reading.events[-1] is not event:
        return
    reading.events[-1] = replace(event, method=method_name(attrs.get("method", "")), bci=to_int(attrs.get("bci")))
    reading.scoped = None


_HANDLERS = {
    "hotspot_log": _hotspot_log, "compilation_log": _compilation_log, "task_queued": _task_queued, "task": _task,
    "task_done": _task_done, "failure": _failure, "nmethod": _nmethod, "make_not_entrant": _make_not_entrant,
    "make_not_compilable": _make_not_compilable,
    "uncommon_trap": _uncommon_trap, "deoptimized": _deoptimized, "jvms": _jvms,
}


def _finished(reading: _Reading) -> JitLog:
    problems = []
    if reading.time_ms is None:
        problems.append(f"{reading.name}: no `<hotspot_log time_ms=…>`: the JVM's start time is unknown, so no "
                        "sample can be put on the log's clock")
    if reading.backwards:
        problems.append(f"{reading.name}:{reading.first_backwards}: {reading.backwards:,} stamps go back in time; "
                        "their events are kept where the log puts them")
    ends = [reading.end, reading.latest, *[t.done for t in reading.tasks.values() if t.done is not None]]
    end = max((e for e in ends if e is not None), default=None)
    tasks = tuple(t.frozen() for _, t in sorted(reading.tasks.items()))
    events = tuple(replace(e, source_line=reading.lines.get((e.method, e.bci))) if e.bci is not None else e
                   for e in reading.events)
    return JitLog(reading.name, reading.pid, reading.time_ms, end, tasks, events, tuple(problems),
                  tuple(reading.refusals))
