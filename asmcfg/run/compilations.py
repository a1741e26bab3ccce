"""The compilations an input holds, as rows (`Log.compilations`): what the header index finds where it can, else
what a read of the whole input gives, with each compilation's measured share of its run where it is known."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from asmcfg import dialects
from asmcfg.model import Compiler, DialectName
from asmcfg.sources.lines import STDIN, read_lines

if TYPE_CHECKING:  # `Method` loads the record classes, which the index listing of a large log does without
    from asmcfg.dialects.base import IndexRecord
    from asmcfg.model import Method
    from asmcfg.run.enrich import Enrichment
    from asmcfg.sources.lines import Meter

@dataclass(frozen=True, slots=True)
class Compilation:
    """One compilation of an input, as listed: what it is, without its code."""

    compile_id: int | None
    """Its compile id, None where the input prints none."""
    compiler: Compiler
    """`c1`, `c2`, `jvmci`, `native` or `unknown`."""
    level: int | None
    """Tier level (0-4), None without tiered compilation."""
    osr_bci: int | None
    """Bytecode index of an OSR compilation's entry, None for a normal one."""
    flags: str
    """Attribute characters as HotSpot prints them: `%` OSR, `s` synchronized, `!` handlers, `b` blocking, `n`
    native."""
    method: str
    """`pkg.Class::method`."""
    bytecode_size: int | None
    """Size of the method's bytecode in bytes."""
    code_size: int | None
    """Bytes of the compilation's `main code` section (HotSpot's insts section), None where the input does not say
    it or the reader does not keep it."""
    share: float | None
    """Its share of its run's samples (first event), in percent; None where no heat was measured."""
    printed: bool
    """False when the input names the compilation (a LogCompilation `<nmethod>`) but holds none of its code."""
    ordinal: int
    """How many earlier rows share its compile id and method (a log of several runs repeats compile ids)."""
    line: int | None = None
    """The line of its `Compiled method` header (or of its `<nmethod>` record when the log holds none of its code);
    None where the header index read a compressed input as a stream."""


def rows(path: str, forced: DialectName | None, how: Enrichment, choose_plain: Callable[[str], str | None],
         read: dialects.ReadOptions, meter: Meter | None = None) -> Iterator[Compilation]:
    """Every compilation of the input at `path`, in input order, one at a time: from the header index when its
    dialect has one (`choose_plain` gives a large compressed input's plain copy, else None), else from a read of
    the whole input."""
    name = forced or _sniffed(path)
    found = None if name is None else dialects.BY_NAME[name].listing(choose_plain(path) or path, meter)
    if found is not None:
        return _or_read(_indexed(found, how), path, forced, read, how)
    return _numbered(_read(path, forced, read, how, meter))


def index_rows(path: str, forced: DialectName | None, meter: Meter | None,
               how: Enrichment | None = None) -> Iterator[Compilation]:
    """The compilations the header index finds in the plain file at `path`, in the order of their header lines,
    whatever the dialect (`forced`, else the one the first lines name), with a recording's shares where `how` has
    one."""
    from asmcfg.dialects.numbering import numbered_index

    return _indexed(numbered_index(path, meter, forced), how)


def _or_read(found: Iterator[Compilation], path: str, forced: DialectName | None, read: dialects.ReadOptions,
             how: Enrichment) -> Iterator[Compilation]:
    """The index's rows, or a read's where the index finds no header (a dump whose headers it does not know)."""
    empty = True
    for row in found:
        empty = False
        yield row
    if empty:
        yield from _numbered(_read(path, forced, read, how, None))


def _sniffed(path: str) -> DialectName | None:
    """The dialect the input's first lines name; None for standard input, which is read once, whole."""
    if path == STDIN:
        return None
    head = dialects.sample_of(line.text for line in read_lines(path))
    return dialects.choose(head).name if head else None


def _indexed(records: Iterator[tuple[IndexRecord, int | None]], how: Enrichment | None) -> Iterator[Compilation]:
    """The index's records, in the order of their header lines (as a read gives them), with their numbers and
    ordinals (`_numbered`, written out: this runs once per compilation of a whole log)."""
    shares = _recorded_shares(how) if how is not None else {}
    seen: dict[tuple[int | None, str], int] = {}
    for r, line in records:
        compile_id, method = r.compile_id, r.method
        key = (compile_id, method)
        ordinal = seen.get(key, 0)
        seen[key] = ordinal + 1
        yield Compilation(compile_id, r.compiler, r.level, r.osr_bci, r.flags, method, r.bytecode_size, r.code_size,
                          shares.get(compile_id) if compile_id is not None else None, r.printed, ordinal, line)


def _recorded_shares(how: Enrichment) -> dict[int, float]:
    """Each sampled compile id's share of its JVM's samples, of a recording."""
    return {} if how.perf is None else how.perf.shares()


def _read(path: str, forced: DialectName | None, read: dialects.ReadOptions, how: Enrichment,
          meter: Meter | None) -> Iterator[Compilation]:
    """The rows of a read of the whole input, with a recording's shares."""
    from asmcfg.run.enrich import measured
    from asmcfg.run.pipeline import open_input

    stream = open_input(path, forced, read, meter=meter)
    for method in measured(stream.methods, how):
        h = method.header
        share = method.profile.run_share[0] if method.profile is not None and method.profile.run_share else None
        yield Compilation(h.compile_id, h.compiler, h.level, h.osr_bci, h.flags, h.name, h.bytecode_size,
                          method.main_code_size, share, True, 0, h.line)


def _numbered(found: Iterator[Compilation]) -> Iterator[Compilation]:
    """Each row with its ordinal among the rows of its compile id and method."""
    from dataclasses import replace

    seen: Counter[tuple[int | None, str]] = Counter()
    for row in found:
        key = (row.compile_id, row.method)
        yield replace(row, ordinal=seen[key]) if seen[key] else row
        seen[key] += 1


def read_compilation(path: str, forced: DialectName | None, options: dialects.ReadOptions, compile_id: int | None,
                     method: str, ordinal: int = 0, printed: bool = True) -> Method:
    """The compilation of a row (its compile id, method and ordinal) as read from the input, with what the input
    says of it after its code: from its own bytes through the index where the input is a large plain file and the
    compile id is not repeated, else from a read of the input. Not enriched."""
    from asmcfg.errors import InputError

    if not printed:
        raise InputError(f"compile id {compile_id} ({method}): the log holds none of its code", path)
    indexed = None if compile_id is None or ordinal else _opened(path, forced, options, compile_id, method)
    if indexed is not None:
        return indexed
    from asmcfg.run.pipeline import open_input

    stream = open_input(path, forced, options)
    seen = 0
    for each in stream.methods:
        header = each.header
        if header.compile_id == compile_id and header.name == method:
            if seen == ordinal:  # what the input says of it after its code is read by its dialect
                return dialects.BY_NAME[stream.dialect].completed(stream.reader, each, stream.methods)
            seen += 1
    raise InputError(f"compile id {compile_id} ({method}) is not in the input", path)


def _opened(path: str, forced: DialectName | None, options: dialects.ReadOptions, compile_id: int,
            method: str) -> Method | None:
    """The compilation read from its own bytes, found by the header index (`run.opening`, as `--compile-id` opens
    it); None when it must be read whole (a small or compressed input)."""
    from asmcfg.run.opening import open_one
    from asmcfg.run.pipeline import Selector

    picked = open_one(path, Selector(None, compile_id, None), options, forced=forced)
    if picked is None or picked.candidates != 1 or picked.method.header.name != method:
        return None
    return picked.method
