"""-XX:+LogCompilation XML with PrintAssembly inside `<tty>`: each compiler thread's text read on its own.

The `<tty>` element holds what the VM printed, XML-escaped, with a `<writer thread='…'/>` line wherever
another thread took the tty. Each thread's text is collected apart and read by the hsdis dialect (the
machcode one for `[MachCode]` hex) once a method is complete; `<nmethod>` records fill in what a header
lacks, and the `<uncommon_trap>` records of the compiler tasks (after `</tty>`) and of traps that fired
are kept in `Reader.log_traps`, their inlining decisions in an `inline.InlineCollector`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from asmcfg.dialects import interleave
from asmcfg.dialects.hsdis import reader as hsdis
from asmcfg.dialects.logcompilation.inline import InlineCollector
from asmcfg.dialects.logcompilation.logxml import (
    NMethodRecord,
    Tag,
    TrapCollector,
    feature_version,
    tags,
    unescape,
)
from asmcfg.dialects.logcompilation.machine import TtyMachine
from asmcfg.dialects.machcode import reader as machcode
from asmcfg.model import DialectName, Feature, Header, LogBranch, LogInline, LogTrap, Method
from asmcfg.sources.lines import Line

if TYPE_CHECKING:
    from asmcfg.dialects.base import ReadOptions

HEADERLESS_LIMIT = 100_000
"""Lines of a thread's text without a method header after which they are read anyway (bounds memory)."""
QUIET_BYTES = 8 << 20
"""Text a thread writes after a method header, or after its last instruction line, beyond which the method is
taken as ended and read (a method whose `[/Disassembly]` never comes, followed by a program's output, would
otherwise be held whole): far more than the debug info HotSpot prints between two instructions."""


def sniff(sample: list[str]) -> float:
    """High for a HotSpot XML log (`<hotspot_log`, `<tty>`, `<writer thread=`)."""
    text = "\n".join(sample)
    if "<hotspot_log" in text:
        return 1.0
    if "<tty>" in text or "<writer thread=" in text or "<print_nmethod" in text:
        return 0.95
    return 0.0


def is_header(text: str) -> bool:
    """True for a line that starts a method in PrintAssembly text."""
    return "Compiled method (" in text or "Decoding compiled method" in text


def is_code(text: str) -> bool:
    """True for an instruction (or constant) line: an address first."""
    return text[:1].isspace() and text.lstrip().startswith("0x")


def is_end(text: str) -> bool:
    """True for the line that ends a method: `[/Disassembly]` (hsdis), `[/MachCode]` (hex, the last thing a JVM
    without hsdis prints of a method: a native wrapper printed by a Java thread has no `</print_nmethod>`)."""
    return "[/" in text and text.strip() in ("[/Disassembly]", "[/MachCode]")


def is_banner(text: str) -> bool:
    """True for the lines HotSpot prints just before a method header."""
    stripped = text.strip()
    return not stripped or "-compiled nmethod" in stripped or stripped.strip("-") in ("", " Assembly ")


@dataclass(slots=True)
class ThreadText:
    """What one thread wrote to the tty and has not been read yet."""

    lines: list[Line] = field(default_factory=list)
    """Pending lines, unescaped."""
    header: bool = False
    """A method header is among the pending lines."""
    code: bool = False
    """An instruction line follows that header."""
    printing: int | None = None
    """Compile id of this thread's open `<print_nmethod>`."""
    quiet: int = 0
    """Characters written since the method header or its last instruction line."""

    def add(self, line: Line, header: bool) -> bool:
        """Append a line (`header`: it starts a method); True when a method just ended and should be read now."""
        text = line.text
        self.lines.append(line)
        if header:
            self.header, self.quiet = True, 0
        elif self.header:
            if is_code(text):
                self.code, self.quiet = True, 0
            else:
                self.quiet += len(text) + 1
        return (is_end(text) or (not self.header and len(self.lines) >= HEADERLESS_LIMIT)
                or self.quiet >= QUIET_BYTES)

    def take(self, keep_banner: bool = False) -> list[Line]:
        """Remove and return the pending lines (keeping a trailing banner for the next method if asked)."""
        lines: list[Line] = self.lines
        kept: list[Line] = []
        if keep_banner:
            while lines and len(kept) < 4 and is_banner(lines[-1].text):
                kept.insert(0, lines.pop())
        self.lines, self.header, self.code, self.quiet = kept, False, False, 0
        return lines


@dataclass(slots=True)
class Context:
    """What the reading of one thread's text needs besides the lines."""

    source: str
    """Input name."""
    options: ReadOptions | None
    """Read options for the hsdis reader."""
    jdk_hint: int | None
    """Feature version from `<release>`."""
    records: dict[int, NMethodRecord]
    """`<nmethod>` records by compile id."""
    traps: dict[int, list[LogTrap]] | None = None
    """The log's `<uncommon_trap>` records by compile id, when they were read ahead (None: not known yet)."""
    inlines: dict[int, list[LogInline]] | None = None
    """The log's inlining decisions by compile id, when they were read ahead (None: not known yet)."""
    branches: dict[int, list[LogBranch]] | None = None
    """The log's `<branch>` records by compile id, when they were read ahead (None: not known yet)."""


def read_text(
    lines: list[tuple[int, list[str]]], ctx: Context, printing: int | None = None, raw_hex: bool | None = None
) -> tuple[list[Method], int]:
    """Methods in one thread's text, as runs of consecutive lines (`hsdis.Runs`), completed from the log's records,
    and the count of lines outside them.

    The text is read by the hsdis dialect, or by the machcode dialect when it holds `[MachCode]` hex (`raw_hex`,
    when the caller knows).
    """
    if raw_hex if raw_hex is not None else any("[MachCode]" in text for _, texts in lines for text in texts):
        raw = machcode.Reader(ctx.source, ctx.options)
        raw.jdk_hint = ctx.jdk_hint
        read = raw.methods(_lines(lines))
    else:
        hsdis_reader = hsdis.Reader(ctx.source, ctx.options)
        hsdis_reader.jdk_hint = ctx.jdk_hint
        raw, read = hsdis_reader, hsdis_reader.texts(lines)  # type: ignore[assignment]
    methods = [complete(m, ctx, printing) for m in read]
    return methods, raw.outside


def _lines(runs: list[tuple[int, list[str]]]) -> Iterator[Line]:
    """The lines of `runs`, one at a time (a generator function: the compiled build makes a generator expression a
    list)."""
    for first, texts in runs:
        for number, text in enumerate(texts, first):
            yield Line(number, text)


def _named(method: Method) -> Method:
    """The method as this dialect's: PrintAssembly text whose layout alone does not date the JDK."""
    return replace(method, dialect=DialectName.LOGCOMPILATION, features=method.features | {Feature.UNDATED_LAYOUT})


def complete(method: Method, ctx: Context, printing: int | None) -> Method:
    """Fill the header and code range from the `<nmethod>` record, name the dialect, check for interleaving."""
    header = method.header
    record = ctx.records.get(header.compile_id if header.compile_id is not None else printing or -1)
    if record is not None and header.compile_id is None:
        if not _inside(method, record):
            return interleave.guard(_named(method))
        header = _from_record(header, record)
    if record is not None and method.code_begin is None and record.code_begin is not None:
        end = record.code_begin + (record.code_size or 0)
        method = replace(method, code_begin=record.code_begin, code_end=end)
    if record is not None and method.main_code_size is None and record.code_size is not None:
        method = replace(method, main_code_size=record.code_size)
    compile_id = header.compile_id
    # code printed without a compile id (a stub, an adapter) has no compiler task in the log: no records to show
    traps = None if ctx.traps is None or compile_id is None else tuple(ctx.traps.get(compile_id, ()))
    inlines = None if ctx.inlines is None or compile_id is None else tuple(ctx.inlines.get(compile_id, ()))
    branches = None if inlines is None or compile_id is None else tuple((ctx.branches or {}).get(compile_id, ()))
    return interleave.guard(replace(_named(method), header=header, log_traps=traps, log_inlines=inlines,
                                    log_branches=branches))


def _inside(method: Method, record: NMethodRecord) -> bool:
    """True when the method's first instruction lies in the nmethod (or either address is unknown)."""
    if not method.instructions or record.address is None or record.size is None:
        return True
    return record.address <= method.instructions[0].address < record.address + record.size


def _from_record(header: Header, record: NMethodRecord) -> Header:
    name = header.name if header.name != "<unknown>" else record.method
    flags = header.flags + ("%" if record.kind == "osr" and "%" not in header.flags else "")
    return replace(
        header, compiler=record.compiler, compile_id=record.compile_id, level=record.level,
        flags=flags, name=name, bytecode_size=header.bytecode_size or record.bytecode_size,
    )


class Reader(TtyMachine[ThreadText, Method]):
    """Reads a LogCompilation log line by line; methods come out as each thread finishes printing one."""

    def __init__(self, source: str, options: ReadOptions | None = None) -> None:
        self.source = source
        self.outside = 0
        self.log_traps: dict[int, list[LogTrap]] = {}
        """`<uncommon_trap>` records per compile id; complete once `methods()` is exhausted."""
        self._ctx = Context(source, options, None, {})
        self._traps = TrapCollector(self.log_traps)
        self._inlines = InlineCollector()
        super().__init__(self._ctx.records)

    @property
    def jdk_hint(self) -> int | None:
        """Feature version named by `<release>`, once read."""
        return self._ctx.jdk_hint

    @jdk_hint.setter
    def jdk_hint(self, value: int | None) -> None:
        self._ctx.jdk_hint = value

    def complete(self, method: Method) -> Method:
        """`method` with the log's `<uncommon_trap>` records and inlining decisions of its compilation (call once
        `methods()` is done: the compiler tasks holding them follow all the code)."""
        compile_id = method.header.compile_id
        if compile_id is None:  # a stub or adapter: the log has no compiler task of it
            return method
        return replace(method, log_traps=tuple(self.log_traps.get(compile_id, ())),
                       log_inlines=tuple(self._inlines.inlines.get(compile_id, ())),
                       log_branches=tuple(self._inlines.branches.get(compile_id, ())))

    def methods(self, lines: Iterable[Line]) -> Iterator[Method]:
        """Yield each method as soon as its thread has printed all of it."""
        for line in lines:
            text = line.text
            if "<" in text:
                yield from self._markup(line)
            elif self._section == "tty":
                yield from self._text(Line(line.number, unescape(text)) if "&" in text else line)
            elif self._release:
                self._ctx.jdk_hint = feature_version(text)
                self._release = False
        yield from self._flush_all()

    def _text(self, line: Line) -> Iterator[Method]:
        thread = self._current
        header = is_header(line.text)
        if header and thread.code:
            yield from self._flush(thread, keep_banner=True)
        if thread.add(line, header):
            yield from self._flush(thread)

    def _markup(self, line: Line) -> Iterator[Method]:
        for tag in tags(line.text):
            yield from self._tag(tag, line.number)

    def _new_thread(self) -> ThreadText:
        return ThreadText()

    def _first_line(self, thread: ThreadText) -> int | None:
        return thread.lines[0].number if thread.lines else None

    def _other(self, tag: Tag, number: int) -> None:
        self._traps.feed(tag, number)
        self._inlines.feed(tag, number)

    def _flush(self, thread: ThreadText, keep_banner: bool = False) -> Iterator[Method]:
        lines = thread.take(keep_banner)
        if not lines:
            return
        methods, outside = read_text(list(hsdis.runs(hsdis.pairs(lines))), self._ctx,
                                     thread.printing)
        self.outside += outside
        yield from methods

