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
import re
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
COMPRESSED_BYTES = 1 << 20
"""Compressed files at least this large are decompressed once into the cache and opened from there."""
_COMPRESSED = (b"\x1f\x8b", b"\xfd7zXZ", b"BZh")
"""How a gzip, xz and bzip2 file starts (`sources.lines` decompresses by content as well)."""
_HEAD = 4 << 20
"""Bytes at the start of the input whose first lines pick its dialect (as `pipeline.open_input` does)."""
_PIECES = (DialectName.HSDIS, DialectName.MACHCODE, DialectName.LOGCOMPILATION)
"""The dialects whose compilations can be read from their own bytes."""
_MAX_NAMES = 100
"""Names kept for the choice's message (`pipeline._MAX_NAMES`)."""
_HEADER = b"Compiled method ("
_HEAT = re.compile(rb"%[ \t]")
"""How every sampled line's last percentage column ends (`perfasm.saved`); a pattern, not two `find`s: it looks for
the `%` alone, which is several times faster than a search for a two-byte string."""
_SAMPLED = "sampled"
"""What the cache calls its answer to "does the file hold a sampled line"."""


def open_one(options: Options, read: ReadOptions, meter: Meter | None = None) -> Picked | None:
    """The compilation the options select, read from its own bytes and complete; None when the input is to be read
    whole. A selected compilation whose code the log does not hold, or none at all, raises at once."""
    if options.list or options.all or options.strict:
        return None
    path = _plain(options)
    if path is None:
        return None
    with mapped(path) as view:
        if view is None:
            return None
        dialect = _dialect(view, options.input_format)
        if dialect is None:
            return None
        return _Opening(view, dialect, options, read, path).open(meter)


def _plain(options: Options) -> str | None:
    """The plain file to open the input's compilation from: the input when it is a large plain file, the copy the
    cache keeps of a large compressed one (made now, and said, the first time); None to read the input whole."""
    path = options.input
    try:
        if path == STDIN or not os.path.isfile(path):
            return None
        size = os.path.getsize(path)
        with open(path, "rb") as file:
            compressed = file.read(6).startswith(_COMPRESSED)
    except OSError:
        return None
    if not compressed:
        return path if size >= OPEN_BYTES else None
    if size < COMPRESSED_BYTES:
        return None
    from asmcfg.sources import cache

    made = cache.plain_copy(path)
    if made is None:
        return None
    copy, fresh = made
    if fresh and not options.quiet:
        from asmcfg.render.summary import stderr_console
        from asmcfg.terminal import visible

        stderr_console().print(visible(f"decompressed {display_name(path)} once into {copy}: later runs open its "
                                       "compilations from there"), highlight=False, markup=False, soft_wrap=True)
    return copy


def _dialect(view: mmap.mmap, forced: DialectName | None) -> Dialect | None:
    """The dialect the input's first lines name (as `dialects.open_reader` sniffs), when it can be read in pieces."""
    head = view[:_HEAD].split(b"\n", dialects.SAMPLE_LINES)[: dialects.SAMPLE_LINES]  # no UTF-8 sequence holds \n
    name = dialects.choose([line.decode("utf-8", "replace").rstrip("\r") for line in head], forced).name
    return dialects.BY_NAME[name] if name in _PIECES else None


class _Opening:
    """One input mapped, its dialect known: the candidates, the choice, the read."""

    def __init__(self, view: mmap.mmap, dialect: Dialect, options: Options, read: ReadOptions, path: str) -> None:
        self.view, self.dialect, self.read = view, dialect, read
        self.path, self.source, self.selector = path, display_name(options.input), options.selector
        self.quiet = options.quiet
        self._named: tuple[int, list[tuple[int, int]]] | None = None
        """The compile id last searched for, and the lines that name it."""

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
        if total is None and not self.quiet:
            total = self._count()
        return Picked(method, len(own), total, rule, tuple(sorted(names)))

    def _logged(self) -> bool:
        return self.dialect.by_record

    def _direct(self) -> list[IndexRecord] | None:
        """The index record of the selected compile id in a LogCompilation log, found by a search for its
        `<nmethod>` record and an index of the bytes after it; None when there is no such record."""
        from asmcfg.dialects.index import BUFFER, windows
        from asmcfg.dialects.logcompilation.index import STALE, records
        from asmcfg.dialects.scan import Serial

        wanted = self.selector.compile_id
        assert wanted is not None
        start = self._nmethod(wanted)
        if start is None:
            return None
        end = min(len(self.view), start + STALE + BUFFER)
        found = [r for r in records(Serial(windows(self.view, start, end))) if r.compile_id == wanted]
        return found[:1] or None

    def _lines(self, compile_id: int) -> list[tuple[int, int]]:
        """(start, number) of the lines of the log that name `compile_id` (`one.needle`), found once."""
        from asmcfg.dialects.logcompilation.one import needle
        from asmcfg.dialects.passes import lines_with

        if self._named is None or self._named[0] != compile_id:
            self._named = (compile_id, lines_with(self.view, needle(compile_id)))
        return self._named[1]

    def _nmethod(self, compile_id: int) -> int | None:
        """Where the line of the first `<nmethod>` record of `compile_id` starts (blanks only before it on its line),
        None when there is none."""
        from asmcfg.dialects.logcompilation.one import needle

        tag = b"<nmethod " + needle(compile_id)
        for start, _ in self._lines(compile_id):
            end = self.view.find(b"\n", start)
            at = self.view.find(tag, start, len(self.view) if end < 0 else end)
            if at >= 0:
                return start if not self.view[start:at].strip() else None
        return None

    def _count(self) -> int:
        """The compilations a LogCompilation log prints (its `Compiled method (` headers), for the choice's message."""
        from asmcfg.dialects.passes import count

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
        """True when a line of the input starts with percentage columns (a JMH saveLog): heat decides the choice.
        The look is made once per file (the cache keeps its answer), in the pass that counts a text file's lines (a
        LogCompilation log's are counted by the search for the chosen compile id)."""
        from asmcfg.dialects.passes import survey
        from asmcfg.sources import cache

        kept = cache.load(_SAMPLED, self.path)
        if isinstance(kept, bool):
            return kept
        found = survey(self.view, self.path, _sampled_in, counting=not self._logged())
        cache.store(_SAMPLED, self.path, found)
        return found

    def _method(self, records: list[IndexRecord], chosen: IndexRecord) -> Method | None:
        """The chosen compilation read from its bytes, None when it cannot be (or does not read as the index says)."""
        from asmcfg.dialects import seek

        if self._logged():
            method = self._read_log(chosen)
        else:
            offsets = [r.offset for r in records]
            at = next(i for i, r in enumerate(records) if r is chosen)
            method = seek.read_text(self.view, offsets, at, self.dialect, self.source, self.read, self.path)
        if method is None or method.header.compile_id != chosen.compile_id:
            return None
        return method

    def _read_log(self, chosen: IndexRecord) -> Method | None:
        """The chosen compilation of a LogCompilation log, with the records of its compile id found by a search for
        it (the whole log's index when the log is not laid out as HotSpot writes it)."""
        from asmcfg.dialects import seek
        from asmcfg.dialects.logcompilation.one import index_one
        from asmcfg.dialects.logcompilation.tasks import index_log

        lines = [] if chosen.compile_id is None else self._lines(chosen.compile_id)
        log = None if chosen.compile_id is None else index_one(self.view, self.path, chosen.compile_id, lines)
        numbers = dict(lines)
        if log is None:
            log, numbers = index_log(self.path), {}
        return seek.read_log(self.view, chosen, self.dialect, log, self.source, self.read, numbers.get(chosen.offset),
                             self.path)


def _sampled_in(view: mmap.mmap, base: int, data: bytes, limit: int) -> bool:
    """True when a line that holds a `%` and a blank among the first `limit` bytes of `data` (bytes of `view` from
    `base`) is a sampled line (`perfasm.saved.sampled`)."""
    from asmcfg.dialects.perfasm.saved import sampled

    line_end = -1
    for found in _HEAT.finditer(data, 0, min(len(data), limit + 1)):
        at = base + found.start()
        if at >= base + limit:
            break
        if at < line_end:  # on the line looked at last
            continue
        start = view.rfind(b"\n", 0, at) + 1
        line_end = view.find(b"\n", at)
        line_end = len(view) if line_end < 0 else line_end
        if sampled(view[start:line_end].decode("utf-8", "replace")):
            return True
    return False


def _matches(selector: Selector, record: IndexRecord) -> bool:
    """True when the compilation `record` names satisfies every criterion (`Selector.matches_header`)."""
    return ((selector.compile_id is None or record.compile_id == selector.compile_id)
            and (selector.compiler is None or record.compiler is selector.compiler)
            and selector.name_matches(record.method))
