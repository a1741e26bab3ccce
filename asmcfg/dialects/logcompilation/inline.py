"""Inlining decisions of a -XX:+LogCompilation log, and reading a whole log's records for a text dump (`--log`).

In each compiler `<task>`, the parse tree says what C2 (and C1) did at every call site: `<parse method=…>`
opens the method being parsed (nested for inlined methods), `<bc bci=…>` names the bytecode being parsed,
`<call method=…>` the method called there, and `<inline_success reason=…>` or `<inline_fail reason=…>` the
decision; C2 writes `<intrinsic id=…>` instead when it replaced the call by an intrinsic (C1 says
`<inline_success reason='intrinsic'>`). Each decision keeps its inlining chain, the open `<parse>` scopes with
their current bci innermost first: a method inlined at several call sites (or a recursive one, inlined into
itself) has one decision per chain at the same method and bci. The records are kept per compile id, beside the
`<uncommon_trap>` records `logxml.TrapCollector` keeps, and follow the same path from the log to the method.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from asmcfg.dialects.logcompilation.branches import branch_record
from asmcfg.dialects.logcompilation.logxml import (
    TRAP_TAGS,
    Tag,
    TrapCollector,
    feature_version,
    method_name,
    tags,
    to_int,
)
from asmcfg.errors import InputError
from asmcfg.model import LogBranch, LogInline, LogTrap, Method
from asmcfg.model.make import compiled
from asmcfg.sources.split import CHUNK, chunks, open_binary

_TAG = re.compile(
    rb"<(?:/?task|klass|method|/?parse|/?uncommon_trap|jvms|bc|call|inline_success|inline_fail|intrinsic|/?late_inline|branch)"
    rb"[ \t/>][^\n]*"
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


INLINE_TAGS = frozenset({"task", "klass", "method", "parse", "bc", "call", "inline_success", "inline_fail", "intrinsic",
                         "late_inline", "jvms", "branch"})
"""The names of the tags `InlineCollector.feed` reads; it passes over any other."""
Chain = tuple[tuple[str, int | None], ...]
"""An inlining chain as (method, bci), innermost first."""
MOST_DEPTH = 256
"""Open `<parse>` scopes, at most, under which a call or branch, each with its whole chain, is kept (HotSpot: 15)."""


@dataclass(slots=True)
class InlineCollector:
    """Follows `<task>`, `<parse>`, `<bc>`, `<call>` and the inline decisions, and keeps them per compile id.

    C2 parses a method it inlines late (`<late_inline>`, whose `<jvms>` name the call site's chain) after the
    compiled method's parse is done: that `<parse>` opens on the chain of the call site."""

    inlines: dict[int, list[LogInline]] = field(default_factory=dict)
    """Decisions per compile id, in log order."""
    tasks: dict[int, str] = field(default_factory=dict)
    """`pkg.Class::name` of each compile id's task."""
    branches: dict[int, list[LogBranch]] = field(default_factory=dict)
    """`<branch>` records per compile id, in log order."""
    _task: int | None = None
    _names: dict[str, str] = field(default_factory=dict)
    _stack: list[_Scope] = field(default_factory=list)
    _call: tuple[Chain, str, dict[str, str]] | None = None
    """The open `<call>`: its inlining chain, the method called and the `<call>`'s attributes."""
    _bytes: dict[str, int] = field(default_factory=dict)
    """The bytecode size of each `<method>` id of the task."""
    _late: list[_Scope] | None = None
    """The call site of the open `<late_inline>` (its `<jvms>`, innermost first), or of the last one closed until
    its `<parse>` opens; None when there is none."""
    _base: int = 0
    """How many scopes at the bottom of `_stack` are a late-inlined method's call site (not `<parse>` scopes)."""
    _refused: int | None = None
    """Where in its task's decisions the open `<call>`'s `<inline_fail>` is, which an `<intrinsic>` after it
    replaces (C2 refuses to inline `Object::clone`, a native method, then replaces the call by its intrinsic)."""

    def feed(self, tag: Tag, line: int) -> None:
        """Take one tag of the log."""
        name = tag.name
        if name == "task":
            self._enter_task(tag)
        elif self._task is None:
            return
        elif name in ("klass", "method") and not tag.closing and "id" in tag.attrs:
            self._names[tag.attrs["id"]] = self._named(tag.attrs)
            size = to_int(tag.attrs.get("bytes")) if name == "method" else None
            if size is not None:
                self._bytes[tag.attrs["id"]] = size
        elif name == "parse":
            self._on_parse(tag)
        elif name == "bc" and self._stack:
            self._stack[-1].bci = to_int(tag.attrs.get("bci"))
            self._call, self._refused = None, None
        elif name == "call" and len(self._stack) > MOST_DEPTH:
            self._call, self._refused = None, None
        elif name == "call" and self._stack:
            callee = self._names.get(tag.attrs.get("method", ""), "")
            self._call, self._refused = (self._chain(), callee, tag.attrs), None
        elif name in ("inline_success", "inline_fail", "intrinsic") and self._call is not None:
            inlined = name != "inline_fail"
            self._decide(inlined, _intrinsic_reason(tag.attrs) if name == "intrinsic" else tag.attrs.get("reason", ""),
                         line, name == "intrinsic")
        elif name in ("late_inline", "jvms"):
            self._on_late(tag)
        elif name == "branch" and 0 < len(self._stack) <= MOST_DEPTH:
            self._on_branch(tag.attrs, line)

    def idle(self) -> bool:
        """Outside any task: what comes next is read as from a fresh start."""
        return self._task is None

    def _enter_task(self, tag: Tag) -> None:
        self._names.clear()
        self._bytes.clear()
        self._stack.clear()
        self._call, self._late, self._base, self._refused = None, None, 0, None
        self._task = None if tag.closing else to_int(tag.attrs.get("compile_id"))
        if self._task is not None:
            self.tasks[self._task] = method_name(tag.attrs.get("method", ""))

    def _chain(self) -> Chain:
        return tuple((sys.intern(s.method.replace("/", ".")), s.bci) for s in reversed(self._stack))

    def _on_parse(self, tag: Tag) -> None:
        if tag.closing:
            if len(self._stack) > self._base:
                self._stack.pop()
            if len(self._stack) <= self._base:
                self._stack.clear()
                self._base = 0
            self._call = None
        elif not tag.empty:
            if not self._stack and self._late is not None:
                self._stack.extend(reversed(self._late))
                self._base = len(self._late)
            self._late = None
            self._stack.append(_Scope(self._names.get(tag.attrs.get("method", ""), "")))

    def _on_branch(self, attrs: dict[str, str], line: int) -> None:
        assert self._task is not None
        self.branches.setdefault(self._task, []).append(branch_record(self._task, self._chain(), attrs, line))

    def _on_late(self, tag: Tag) -> None:
        """`<late_inline>` opens a call site's chain, each `<jvms>` in it adds a scope outwards."""
        if tag.name == "late_inline":
            if not tag.closing:
                self._late = []
        elif self._late is not None and not tag.closing:
            self._late.append(_Scope(self._names.get(tag.attrs.get("method", ""), ""),
                                     to_int(tag.attrs.get("bci"))))

    def _named(self, attrs: dict[str, str]) -> str:
        holder = self._names.get(attrs.get("holder", ""), "")
        return f"{holder}::{attrs.get('name', '')}" if holder else attrs.get("name", "")

    def _decide(self, inlined: bool, reason: str, line: int, intrinsic: bool = False) -> None:
        assert self._task is not None and self._call is not None
        chain, callee, attrs = self._call
        caller, bci = chain[0]
        record = LogInline(self._task, caller, bci, sys.intern(callee.replace("/", ".")), inlined, sys.intern(reason),
                           line, chain, to_int(attrs.get("count")), self._bytes.get(attrs.get("method", "")),
                           self._receivers(attrs))
        decided = self.inlines.setdefault(self._task, [])
        if intrinsic and self._refused is not None:
            decided[self._refused] = record  # the intrinsic replaced the call: one decision
            self._refused = None
            return
        self._refused = None if inlined else len(decided)
        decided.append(record)


    def _receivers(self, attrs: dict[str, str]) -> tuple[tuple[str, int], ...]:
        """The receiver types a `<call>` names (`receiver`, `receiver2`, …) with their counts."""
        found = []
        for key in ("receiver", "receiver2", "receiver3", "receiver4"):
            klass, count = attrs.get(key), to_int(attrs.get(f"{key}_count"))
            if klass is None or count is None:
                break
            found.append((sys.intern(self._names.get(klass, klass).replace("/", ".")), count))
        return tuple(found)


def _intrinsic_reason(attrs: dict[str, str]) -> str:
    """`intrinsic _dsqrt` for C2's `<intrinsic id='_dsqrt'>`, `intrinsic _hashCode, virtual` with `virtual='1'`."""
    virtual = ", virtual" if attrs.get("virtual") == "1" else ""
    return f"intrinsic {attrs.get('id', '')}".rstrip() + virtual


@dataclass(frozen=True, slots=True)
class LogRecords:
    """What a whole LogCompilation log says of its compilations, per compile id."""

    traps: dict[int, list[LogTrap]]
    """`<uncommon_trap>` records (the compiler's and the fired ones)."""
    inlines: dict[int, list[LogInline]]
    """Inlining decisions."""
    tasks: dict[int, str]
    """The method of each compile id's task, to check a text dump's compilation is the same one."""
    jdk: int | None = None
    """The feature version of the JDK the log's `<release>` names (25 for `25.0.3+9-LTS`), None when it names none."""
    branches: dict[int, list[LogBranch]] = field(default_factory=dict)
    """`<branch>` records: the branch profile C2 read."""

    def attach(self, method: Method, strict: bool = False) -> Method:
        """`method` with the log's records of its compile id, and the JDK the log names when the dump names none;
        as it was when the log's task of that id is another method (a log of another run), or, with `strict`, an
        error."""
        compile_id = method.header.compile_id
        task = self.tasks.get(compile_id) if compile_id is not None else None
        if task is None or task.replace("/", ".") != method.header.name.replace("/", "."):
            if strict:
                found = f"is {task} in the --log log, not {method.header.name}" if task else "is not in the --log log"
                raise InputError(f"compile id {compile_id} {found} (give the log of the same run)", method.source,
                                 method.header.line)
            return method
        assert compile_id is not None
        return replace(method, log_traps=tuple(self.traps.get(compile_id, ())),
                       log_inlines=tuple(self.inlines.get(compile_id, ())),
                       log_branches=tuple(self.branches.get(compile_id, ())),
                       jdk_hint=self.jdk if method.jdk_hint is None else method.jdk_hint)


_RELEASE_TEXT = re.compile(rb"<release>[ \t]*\n?([^<\n]*)")
"""The `<release>` element of the log's `<vm_version>` and the line after it."""


def read_log(path: str) -> LogRecords:
    """The trap and inlining records of the LogCompilation log at `path`, in one pass over its bytes."""
    traps, inlines = TrapCollector(), InlineCollector()
    number, rest = 0, b""
    jdk: int | None = None
    with open_binary(path) as stream:
        for n, block in enumerate(chunks(stream, CHUNK, path)):
            data = rest + block
            if n == 0:
                jdk = _release(data)
            cut = data.rfind(b"\n") + 1
            number = collect((traps, inlines), data[:cut], number)
            rest = data[cut:]
        collect((traps, inlines), rest, number)
    return LogRecords(traps.traps, inlines.inlines, inlines.tasks, jdk, inlines.branches)


def _release(head: bytes) -> int | None:
    """The JDK feature version the `<release>` in the head of a log names (before its first `<task>`)."""
    task = head.find(b"<task")
    match = _RELEASE_TEXT.search(head, 0, len(head) if task < 0 else task)
    return feature_version(match.group(1).decode("ascii", "replace")) if match else None


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
