"""Open one compilation of a large plain file through the header index, reading only its own bytes.

`--compile-id`, `--method` and the default choice find their candidates with the index `--list` uses
(`dialects.index`), choose among them by `pipeline.pick_one`'s rule (the hottest when the input carries heat, else
the last C2, else the last), and read the chosen compilation's bytes with its dialect's piece reader
(`dialects.seek`), so the method is the one a read of the whole input gives. Whatever this path cannot answer
exactly (a compressed input or stdin, perfasm output, `--strict`, a pattern that only an inlined method matches,
several candidates in an input with measured heat, a cut it cannot make) is left to the whole-input path.
"""

from __future__ import annotations

import mmap
import os
from typing import TYPE_CHECKING

from asmcfg import describe, dialects
from asmcfg.dialects.base import Dialect, IndexRecord, ReadOptions
from asmcfg.errors import InputError, SelectionError
from asmcfg.model import Compiler, DialectName, Method
from asmcfg.run import selection
from asmcfg.run.pipeline import Picked, Selector
from asmcfg.sources.lines import STDIN, Meter, display_name
from asmcfg.sources.split import mapped

if TYPE_CHECKING:
    from asmcfg.run.options import Options

OPEN_BYTES = 8 << 20
"""Plain files at least this large are opened through the index; smaller ones are read whole (it costs little)."""
_HEAD = 4 << 20
"""Bytes at the start of the input whose first lines pick its dialect (as `pipeline.open_input` does)."""
_PIECES = (DialectName.HSDIS, DialectName.MACHCODE, DialectName.LOGCOMPILATION)
"""The dialects whose compilations can be read from their own bytes."""
_MAX_NAMES = 100
"""Names kept for the choice's message (`pipeline._MAX_NAMES`)."""
_HEADER = b"Compiled method ("
_HEAT = (b"% ", b"%\t")
"""How every sampled line's last percentage column ends (`perfasm.saved`)."""


def open_one(options: Options, read: ReadOptions, meter: Meter | None = None) -> Picked | None:
    """The compilation the options select, read from its own bytes and complete; None when the input is to be read
    whole. A selected compilation whose code the log does not hold, or none at all, raises at once."""
    if options.list or options.all or options.strict or not _large(options.input):
        return None
    with mapped(options.input) as view:
        if view is None:
            return None
        dialect = _dialect(view, options.input_format)
        if dialect is None:
            return None
        return _Opening(view, dialect, options, read).open(meter)


def _large(path: str) -> bool:
    try:
        return path != STDIN and os.path.isfile(path) and os.path.getsize(path) >= OPEN_BYTES
    except OSError:
        return False


def _dialect(view: mmap.mmap, forced: DialectName | None) -> Dialect | None:
    """The dialect the input's first lines name (as `dialects.open_reader` sniffs), when it can be read in pieces."""
    head = view[:_HEAD].decode("utf-8", "replace").split("\n")[: dialects.SAMPLE_LINES]
    name = dialects.choose([text.rstrip("\r") for text in head], forced).name
    return dialects.BY_NAME[name] if name in _PIECES else None


class _Opening:
    """One input mapped, its dialect known: the candidates, the choice, the read."""

    def __init__(self, view: mmap.mmap, dialect: Dialect, options: Options, read: ReadOptions) -> None:
        self.view, self.dialect, self.read = view, dialect, read
        self.path, self.source, self.selector = options.input, display_name(options.input), options.selector

    def open(self, meter: Meter | None) -> Picked | None:
        records = self._direct() if self._logged() and self.selector.compile_id is not None else None
        total = None
        if records is None:
            from asmcfg.dialects.index import index_file

            records = list(index_file(self.path, meter, self.dialect.name))
            total = sum(1 for r in records if r.printed)
        if not records:
            return None
        own = [r for r in records if r.printed and _matches(self.selector, r)]
        if not own:
            return self._nothing(records, total)
        if len(own) > 1 and self._heat():
            return None
        chosen = next((r for r in reversed(own) if r.compiler is Compiler.C2), own[-1])
        method = self._method(records, chosen)
        if method is None:
            return None
        names: set[str] = set()
        for record in own:
            if len(names) < _MAX_NAMES:
                names.add(record.method)
        rule = "hottest" if method.profile is not None else "last_c2" if chosen.compiler is Compiler.C2 else "last"
        return Picked(method, len(own), self._count() if total is None else total, rule, tuple(sorted(names)))

    def _logged(self) -> bool:
        return self.dialect.by_record

    def _direct(self) -> list[IndexRecord] | None:
        """The index record of the selected compile id in a LogCompilation log, found by a search for its
        `<nmethod>` record and an index of the bytes after it; None when there is no such record."""
        from asmcfg.dialects.index import BUFFER, windows
        from asmcfg.dialects.logcompilation.index import STALE, records
        from asmcfg.dialects.scan import Serial
        from asmcfg.dialects.seek import nmethod_offset

        wanted = self.selector.compile_id
        assert wanted is not None
        start = nmethod_offset(self.view, wanted)
        if start is None:
            return None
        end = min(len(self.view), start + STALE + BUFFER)
        found = [r for r in records(Serial(windows(self.view, start, end))) if r.compile_id == wanted]
        return found[:1] or None

    def _count(self) -> int:
        """The compilations a LogCompilation log prints (its `Compiled method (` headers), for the choice's message."""
        from asmcfg.dialects.seek import count

        return count(self.view, _HEADER)

    def _nothing(self, records: list[IndexRecord], total: int | None) -> Picked | None:
        """No printed compilation matches: one the log holds no code of is said at once, as is a compile id or a
        compiler that is not there; a pattern is left to the whole-input path (it may name an inlined method)."""
        selector = self.selector
        if selector.pattern is not None or not selector.any:
            return None
        missing = [r for r in records if not r.printed and _matches(selector, r)]
        if missing:
            last = missing[-1]
            raise InputError(describe.not_in_log(last.compile_id, last.compiler, last.method), self.source)
        what = selection.wanted(selector.pattern, selector.compile_id, selector.compiler)
        count = self._count() if total is None else total
        names = {r.method for r in records if r.printed}
        raise SelectionError(selection.not_found(what, count, names, selector.pattern), self.source)

    def _heat(self) -> bool:
        """True when a line of the input starts with percentage columns (a JMH saveLog): heat decides the choice."""
        from asmcfg.dialects.perfasm.saved import sampled
        from asmcfg.dialects.seek import COUNT_BYTES, chunks

        view = self.view
        for base, data in chunks(view, overlap=len(_HEAT[0]) - 1):
            for needle in _HEAT:
                at = data.find(needle)
                while 0 <= at < COUNT_BYTES:
                    start = view.rfind(b"\n", 0, base + at) + 1
                    end = view.find(b"\n", base + at)
                    if sampled(view[start : end if end >= 0 else len(view)].decode("utf-8", "replace")):
                        return True
                    at = data.find(needle, at + 1)
        return False

    def _method(self, records: list[IndexRecord], chosen: IndexRecord) -> Method | None:
        """The chosen compilation read from its bytes, None when it cannot be (or does not read as the index says)."""
        from asmcfg.dialects import seek

        if self._logged():
            from asmcfg.dialects.logcompilation.tasks import index_log

            method = seek.read_log(self.view, chosen, self.dialect, index_log(self.path), self.source, self.read)
        else:
            offsets = [r.offset for r in records]
            at = next(i for i, r in enumerate(records) if r is chosen)
            method = seek.read_text(self.view, offsets, at, self.dialect, self.source, self.read)
        if method is None or method.header.compile_id != chosen.compile_id:
            return None
        return method


def _matches(selector: Selector, record: IndexRecord) -> bool:
    """True when the compilation `record` names satisfies every criterion (`Selector.matches_header`)."""
    return ((selector.compile_id is None or record.compile_id == selector.compile_id)
            and (selector.compiler is None or record.compiler is selector.compiler)
            and selector.name_matches(record.method))
