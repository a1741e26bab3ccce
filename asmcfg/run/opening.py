"""Open one compilation of a large plain file through the header index, reading only its own bytes.

`--compile-id`, `--method` and the default choice find their candidates with the index `--list` uses
(`dialects.index`), choose among them by `pipeline.pick_one`'s rule (the hottest when the input carries heat, else
the last C2, else the last), and read the chosen compilation's bytes with its dialect's piece reader
(`dialects.seek`), so the method is the one a read of the whole input gives. In a LogCompilation log, the default
choice indexes only the log's tail when its last printed C2 compilation lies there (the index of a text file finds
its headers alone, costing little more than the count of them the tail would need). Whatever this path cannot answer
exactly (a compressed input or stdin, perfasm output, `--strict`, a pattern that only an inlined method matches,
several candidates in an input with measured heat, a cut it cannot make) is left to the whole-input path.
"""

from __future__ import annotations

import mmap
from itertools import islice
from typing import TYPE_CHECKING, Any

from asmcfg import describe, dialects
from asmcfg.dialects.base import Dialect, IndexRecord, ReadOptions
from asmcfg.errors import InputError, SelectionError
from asmcfg.model import ChoiceRule, Compiler, DialectName, Method
from asmcfg.run import selection
from asmcfg.run.indexing import SURVEY, index_whole
from asmcfg.run.pipeline import Picked, Selector
from asmcfg.run.plain import plain_copy
from asmcfg.sources.lines import Meter, display_name
from asmcfg.sources.split import mapped

if TYPE_CHECKING:
    from collections.abc import Callable

_HEAD = 4 << 20
"""Bytes at the start of the input whose first lines pick its dialect (as `pipeline.open_input` does)."""
_MAX_NAMES = 100
"""Names kept for the choice's message (`pipeline._MAX_NAMES`)."""
_HEADER = b"Compiled method ("
_TAILS = (2 << 20, 64 << 20)
"""Bytes at the end of a LogCompilation log in which the default choice looks for the last printed C2 compilation,
in turn; the whole log is indexed when it is not in the log's second half."""


def open_one(
    path: str, selector: Selector, read: ReadOptions, *, forced: DialectName | None = None, meter: Meter | None = None,
    counted: bool = True, say: Callable[[str], None] | None = None,
) -> Picked | None:
    """The compilation `selector` selects in the input at `path`, read from its own bytes and complete; None when the
    input is to be read whole. A selected compilation whose code the log does not hold, or none at all, raises at once.
    `counted` asks for the count of the input's compilations the choice's message gives; `say` hears what the user
    should be told (a large compressed input decompressed into the cache)."""
    plain = plain_copy(path, say)
    if plain is None:
        return None
    with mapped(plain) as view:
        if view is None:
            return None
        dialect = _dialect(view, forced)
        if dialect is None:
            return None
        return _Opening(view, dialect, selector, read, plain, display_name(path), counted).open(meter)


def _dialect(view: mmap.mmap, forced: DialectName | None) -> Dialect | None:
    """The dialect the input's first lines name (as `dialects.open_reader` sniffs), when it can be read in pieces."""
    from asmcfg.dialects.passes import first_lines

    head = first_lines(view, dialects.SAMPLE_LINES, _HEAD)  # no UTF-8 sequence holds \n
    name = dialects.choose([line.decode("utf-8", "replace").rstrip("\r") for line in head], forced).name
    dialect = dialects.BY_NAME[name]
    return dialect if dialect.seekable else None


class _Opening:
    """One input mapped, its dialect known: the candidates, the choice, the read."""

    def __init__(self, view: mmap.mmap, dialect: Dialect, selector: Selector, read: ReadOptions, path: str,
                 source: str, counted: bool) -> None:
        self.view, self.dialect, self.read = view, dialect, read
        self.path, self.source, self.selector = path, source, selector
        self.counted = counted
        self._named: tuple[int, list[tuple[int, int]]] | None = None
        """The compile id last searched for, and the lines that name it."""
        self._answer: dict[str, Any] | None = None
        """The survey's answers (`_surveyed`), once known."""

    def open(self, meter: Meter | None) -> Picked | None:
        tail = None if self.selector.any or not self._logged() else self._tail()
        picked = None if tail is None else self._last_c2(tail)
        return picked if picked is not None or self._heat_decides() else self._indexed(meter)

    def _heat_decides(self) -> bool:
        """True when the survey found a sampled line and more than one compilation: the hottest is chosen."""
        return self._answer is not None and self._answer["sampled"] and (self._answer["printed"] or 0) > 1

    def _indexed(self, meter: Meter | None) -> Picked | None:
        records = self._direct() if self._logged() and self.selector.compile_id is not None else None
        total = None
        if records is None:
            records = index_whole(self.view, self.path, self.dialect, meter, self.selector.compile_id is None)
            total = sum(1 for r in records if r.printed)
        if not records:
            return None
        own = [r for r in records if r.printed and _matches(self.selector, r)]
        if not own:
            return self._nothing(records, total)
        if len(own) > 1 and self._surveyed()[0]:
            return None
        chosen = next((r for r in reversed(own) if r.compiler is Compiler.C2), own[-1])
        method = self._method(records, chosen)
        if method is None:
            return None
        names = islice(dict.fromkeys(record.method for record in own), _MAX_NAMES)  # the first, as a read keeps
        rule = (ChoiceRule.HOTTEST if method.profile is not None
                else ChoiceRule.LAST_C2 if chosen.compiler is Compiler.C2 else ChoiceRule.LAST)
        if total is None and self.counted:
            total = self._surveyed()[1]  # the compilations it prints, for the choice's message
        return Picked(method, len(own), total, rule, tuple(sorted(names)))

    def _logged(self) -> bool:
        return self.dialect.by_record

    def _tail(self) -> IndexRecord | None:
        """The last printed C2 compilation of a LogCompilation log, found in the index of a tail of the log from a
        line start on; None when the log's second half holds none."""
        from asmcfg.dialects.index import index_view

        size = len(self.view)
        for tail in _TAILS:
            floor = self.view.rfind(b"\n", 0, max(size - tail, 0)) + 1
            if floor < size // 2:
                return None
            records = list(index_view(self.view, floor, self.dialect.name))
            chosen = next((r for r in reversed(records) if r.printed and r.compiler is Compiler.C2), None)
            if chosen is not None and chosen.compile_id is not None:
                return chosen
        return None

    def _last_c2(self, chosen: IndexRecord) -> Picked | None:
        """The default choice when a log's tail holds its last printed C2 compilation: it, unless heat decides the
        choice (then None: the input is read whole) or it cannot be read from its bytes (None: the whole index is
        made)."""
        printed = self._surveyed(chosen.compile_id)[1]
        if self._heat_decides():
            return None
        method = self._method([chosen], chosen)
        return None if method is None else Picked(method, max(printed, 1), max(printed, 1), ChoiceRule.LAST_C2)

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
            self._named = (compile_id, lines_with(self.view, needle(compile_id), self.path))
        return self._named[1]

    def _nmethod(self, compile_id: int) -> int | None:
        """Where the line of the first `<nmethod>` record of `compile_id` starts (blanks only before it on its line),
        None when there is none."""
        from asmcfg.dialects.logcompilation.one import needle
        from asmcfg.dialects.passes import line_end

        tag = b"<nmethod " + needle(compile_id)
        for start, _ in self._lines(compile_id):
            at = self.view.find(tag, start, line_end(self.view, start))
            if at >= 0:
                return start if not self.view[start:at].strip() else None
        return None

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
        count = self._surveyed()[1] if total is None else total
        names = {r.method for r in records if r.printed}
        raise SelectionError(selection.not_found(what, count, names, selector.pattern), self.source)

    def _surveyed(self, compile_id: int | None = None) -> tuple[bool, int]:
        """Whether a line of the input is sampled (a JMH saveLog's percentage columns: heat decides the choice), and
        how many `Compiled method (` headers a LogCompilation log prints (a text file's index counts its own), from
        one pass that also counts the lines and finds those naming `compile_id`; kept in the cache with the counts,
        so a next run makes no pass but the search for a compile id."""
        from asmcfg.dialects import passes
        from asmcfg.dialects.perfasm.saved import sampled_in
        from asmcfg.sources import cache

        answer = self._answer or cache.load(SURVEY, self.path)
        known = (isinstance(answer, dict) and type(answer.get("sampled")) is bool
                 and (type(answer.get("printed")) is int or not self._logged()))
        if known and (compile_id is None or (answer["sampled"] and answer["printed"] > 1)):  # heat: read whole
            self._answer = answer
            return answer["sampled"], answer["printed"] or 0
        counting = not known and self._logged()
        looks: list[passes.Look] = ([] if known else [sampled_in]) + ([passes.occurrences(_HEADER)] if counting else [])
        if compile_id is not None:
            from asmcfg.dialects.logcompilation.one import needle

            looks.append(passes.holding(needle(compile_id)))
        counts, found = passes.counted(self.view, self.path, looks)
        if compile_id is not None:
            self._named = (compile_id, passes.numbered(counts, [chunk[-1] for chunk in found]))
        if not known:
            answer = {"sampled": any(chunk[0] for chunk in found),
                      "printed": sum(chunk[1] for chunk in found) if counting else None}
            cache.store(SURVEY, self.path, answer)
        self._answer = answer
        return answer["sampled"], answer["printed"] or 0

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


def _matches(selector: Selector, record: IndexRecord) -> bool:
    """True when the compilation `record` names satisfies every criterion (`Selector.matches_header`)."""
    return ((selector.compile_id is None or record.compile_id == selector.compile_id)
            and (selector.compiler is None or record.compiler is selector.compiler)
            and selector.name_matches(record.method))
