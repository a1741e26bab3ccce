"""Inlining decisions of a -XX:+LogCompilation log, and reading a whole log's records for a text dump (`--log`).

In each compiler `<task>`, the parse tree says what C2 (and C1) did at every call site: `<parse method=…>`
opens the method being parsed (nested for inlined methods), `<bc bci=…>` names the bytecode being parsed,
`<call method=…>` the method called there, and `<inline_success reason=…>` or `<inline_fail reason=…>` the
decision. The records are kept per compile id, beside the `<uncommon_trap>` records `logxml.TrapCollector`
keeps, and follow the same path from the log to the method.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from asmcfg.dialects.logcompilation.logxml import TRAP_TAGS, Tag, TrapCollector, method_name, tags, to_int
from asmcfg.model import LogInline, LogTrap
from asmcfg.model.make import compiled
from asmcfg.sources.split import CHUNK, chunks, open_binary

_TAG = re.compile(
    rb"<(?:/?task|klass|method|/?parse|/?uncommon_trap|jvms|bc|call|inline_success|inline_fail)[ \t/>][^\n]*"
)
"""A tag either collector follows, and the rest of its line."""
Feed = Callable[[Tag, int], None]
"""A collector's `feed`: one tag and its line number."""
Collect = Callable[[bytes | bytearray, int, int, int, Callable[[str], list[Tag]], dict[str, tuple[Feed, ...]]], int]
"""`_tags.collect(data, number, start, stop, tags, feeds)`: `collect`'s loop in C."""
COLLECT: Collect | None = compiled("asmcfg.dialects.logcompilation._tags", "collect")
"""The loop `collect` uses, or None: then it runs in Python."""
_tags = functools.lru_cache(maxsize=4096)(tags)
"""`tags` of a line of markup, cached: a compiler log repeats many lines to the letter (`<bc code='182' bci='5'/>`,
`</parse>`, `<inline_success reason='inline (hot)'/>`), and the collectors only read the tags."""


@dataclass(slots=True)
class _Scope:
    method: str
    bci: int | None = None


INLINE_TAGS = frozenset({"task", "klass", "method", "parse", "bc", "call", "inline_success", "inline_fail"})
"""The names of the tags `InlineCollector.feed` reads; it passes over any other."""


@dataclass(slots=True)
class InlineCollector:
    """Follows `<task>`, `<parse>`, `<bc>`, `<call>` and the inline decisions, and keeps them per compile id."""

    inlines: dict[int, list[LogInline]] = field(default_factory=dict)
    """Decisions per compile id, in log order."""
    tasks: dict[int, str] = field(default_factory=dict)
    """`pkg.Class::name` of each compile id's task."""
    _task: int | None = None
    _names: dict[str, str] = field(default_factory=dict)
    _stack: list[_Scope] = field(default_factory=list)
    _call: tuple[str, int | None, str] | None = None

    def feed(self, tag: Tag, line: int) -> None:
        """Take one tag of the log."""
        name = tag.name
        if name == "task":
            self._enter_task(tag)
        elif self._task is None:
            return
        elif name in ("klass", "method") and not tag.closing and "id" in tag.attrs:
            self._names[tag.attrs["id"]] = self._named(tag.attrs)
        elif name == "parse":
            self._on_parse(tag)
        elif name == "bc" and self._stack:
            self._stack[-1].bci = to_int(tag.attrs.get("bci"))
            self._call = None
        elif name == "call" and self._stack:
            scope = self._stack[-1]
            self._call = (scope.method, scope.bci, self._names.get(tag.attrs.get("method", ""), ""))
        elif name in ("inline_success", "inline_fail") and self._call is not None:
            self._decide(name == "inline_success", tag.attrs.get("reason", ""), line)

    def idle(self) -> bool:
        """Outside any task: what comes next is read as from a fresh start."""
        return self._task is None

    def _enter_task(self, tag: Tag) -> None:
        self._names.clear()
        self._stack.clear()
        self._call = None
        self._task = None if tag.closing else to_int(tag.attrs.get("compile_id"))
        if self._task is not None:
            self.tasks[self._task] = method_name(tag.attrs.get("method", ""))

    def _on_parse(self, tag: Tag) -> None:
        if tag.closing:
            if self._stack:
                self._stack.pop()
            self._call = None
        elif not tag.empty:
            self._stack.append(_Scope(self._names.get(tag.attrs.get("method", ""), "")))

    def _named(self, attrs: dict[str, str]) -> str:
        holder = self._names.get(attrs.get("holder", ""), "")
        return f"{holder}::{attrs.get('name', '')}" if holder else attrs.get("name", "")

    def _decide(self, inlined: bool, reason: str, line: int) -> None:
        assert self._task is not None and self._call is not None
        caller, bci, callee = self._call
        record = LogInline(self._task, sys.intern(caller.replace("/", ".")), bci, sys.intern(callee.replace("/", ".")),
                           inlined, sys.intern(reason), line)
        self.inlines.setdefault(self._task, []).append(record)


@dataclass(frozen=True, slots=True)
class LogRecords:
    """What a whole LogCompilation log says of its compilations, per compile id."""

    traps: dict[int, list[LogTrap]]
    """`<uncommon_trap>` records (the compiler's and the fired ones)."""
    inlines: dict[int, list[LogInline]]
    """Inlining decisions."""
    tasks: dict[int, str]
    """The method of each compile id's task, to check a text dump's compilation is the same one."""


def read_log(path: str) -> LogRecords:
    """The trap and inlining records of the LogCompilation log at `path`, in one pass over its bytes."""
    traps, inlines = TrapCollector(), InlineCollector()
    number, rest = 0, b""
    with open_binary(path) as stream:
        for block in chunks(stream, CHUNK, path):
            data = rest + block
            cut = data.rfind(b"\n") + 1
            number = collect((traps, inlines), data[:cut], number)
            rest = data[cut:]
        collect((traps, inlines), rest, number)
    return LogRecords(traps.traps, inlines.inlines, inlines.tasks)


def collect(
    collectors: tuple[TrapCollector, InlineCollector], data: bytes | bytearray, number: int, start: int = 0,
    stop: int | None = None,
) -> int:
    """Feed the tags of `data[start:stop]` (whole lines after line `number`) that the collectors follow; the last
    line's number."""
    stop = len(data) if stop is None else stop
    if start < 0 or stop < 0:
        raise ValueError("start and stop are offsets into data, not counted from its end")
    feeds = _feeds(collectors)
    fast = COLLECT
    if fast is not None:
        return fast(data, number, start, stop, _tags, feeds)
    done, line = start, number + 1
    for match in _TAG.finditer(data, start, stop):
        line += data.count(b"\n", done, match.start())
        done = match.start()
        for tag in _tags(match.group().decode("utf-8", "replace")):
            for feed in feeds.get(tag.name, ()):
                feed(tag, line)
    return number + data.count(b"\n", start, stop)


def _feeds(collectors: tuple[TrapCollector, InlineCollector]) -> dict[str, tuple[Feed, ...]]:
    """The collectors' `feed` for each tag name it reads."""
    traps, inlines = collectors
    feeds: dict[str, tuple[Feed, ...]] = {}
    for names, feed in ((TRAP_TAGS, traps.feed), (INLINE_TAGS, inlines.feed)):
        for name in names:
            feeds[name] = (*feeds.get(name, ()), feed)
    return feeds
