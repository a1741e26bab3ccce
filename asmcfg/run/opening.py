"""Open one compilation of a large plain file through the header index, reading only its own bytes.

`--compile-id`, `--method` and the default choice find their candidates with the index `--list` uses
(`dialects.index`), choose among them by `pipeline.pick_one`'s rule (the hottest when the input carries heat, else
the last C2, else the last), and read the chosen compilation's bytes through its dialect's random access
(`Dialect.seek`, a `base.Seek`), so the method is the one a read of the whole input gives. The default choice first
asks for the last printed C2 compilation in the input's tail, where the dialect's index of a tail costs less than the
whole one's (a LogCompilation log's). Whatever this path cannot answer
exactly (a compressed input or stdin, perfasm output, `--strict`, a pattern that only an inlined method matches,
several candidates in an input with measured heat, a cut it cannot make) is left to the whole-input path.
"""

from __future__ import annotations

import mmap
from itertools import islice
from typing import TYPE_CHECKING

from asmcfg import describe, dialects
from asmcfg.dialects.base import IndexRecord, ReadOptions
from asmcfg.errors import InputError, SelectionError
from asmcfg.hotspot.printcompilation import Sample, printing_compilations
from asmcfg.model import ChoiceRule, Compiler, DialectName, Method
from asmcfg.run import selection
from asmcfg.run.pipeline import Picked, Selector
from asmcfg.run.plain import plain_copy
from asmcfg.sources.lines import Meter, display_name
from asmcfg.sources.split import mapped

if TYPE_CHECKING:
    from collections.abc import Callable

    from asmcfg.dialects.base import Seek

_HEAD, _HEAD_PAST = 4 << 20, 64 << 20
"""Bytes at the start of the input whose first lines pick its dialect (as `pipeline.open_input` does), and where
they begin with PrintCompilation lines."""
_MAX_NAMES = 100
"""Names kept for the choice's message (`pipeline._MAX_NAMES`)."""
_TAILS = (2 << 20, 64 << 20)
"""Bytes at the end of the input in which the default choice looks for the last printed C2 compilation, in turn,
where the dialect's index of a tail costs less than the whole one's (`Seek.last_c2`); the whole input is indexed
when it is not in the input's second half."""


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
        source = display_name(path)
        seek = _seek(view, plain, source, read, forced)
        if seek is None:
            return None
        return _Opening(seek, selector, source, counted).open(meter)


def _seek(view: mmap.mmap, path: str, source: str, read: ReadOptions, forced: DialectName | None) -> Seek | None:
    """Random access to the input through the dialect its first lines name (as `dialects.open_reader` sniffs), when
    that dialect can read a compilation apart."""
    name = dialects.choose(_sample(view), forced).name
    return dialects.BY_NAME[name].seek(view, path, source, read)


def _sample(view: mmap.mmap) -> list[str]:
    """The sample of the input's first lines (`dialects.sample_of`): in its first _HEAD bytes, the last line cut
    there, or in _HEAD_PAST bytes past PrintCompilation lines."""
    from asmcfg.dialects.passes import first_lines

    head = first_lines(view, dialects.SAMPLE_LINES, _HEAD)  # no UTF-8 sequence holds \n
    texts = [line.decode("utf-8", "replace").rstrip("\r") for line in head]
    if not printing_compilations(texts):
        return texts
    sample = Sample(texts)
    start = sum(len(line) + 1 for line in head)
    while not sample.whole():
        end = view.find(b"\n", start, _HEAD_PAST)
        if end < 0:
            sample.add(view[start:_HEAD_PAST].decode("utf-8", "replace").rstrip("\r"))
            break
        sample.add(view[start:end].decode("utf-8", "replace").rstrip("\r"))
        start = end + 1
    return sample.lines


class _Opening:
    """One input mapped, its dialect's random access at hand: the candidates, the choice, the read."""

    def __init__(self, seek: Seek, selector: Selector, source: str, counted: bool) -> None:
        self.seek, self.selector, self.source, self.counted = seek, selector, source, counted

    def open(self, meter: Meter | None) -> Picked | None:
        tail = None if self.selector.any else self.seek.last_c2(_TAILS)
        picked = None if tail is None else self._last_c2(tail)
        return picked if picked is not None or self.seek.heat_decides() else self._indexed(meter)

    def _indexed(self, meter: Meter | None) -> Picked | None:
        wanted = self.selector.compile_id
        records = None if wanted is None else self.seek.direct(wanted)
        total = None
        if records is None:
            records = self.seek.index(meter, wanted is None)
            total = sum(1 for r in records if r.printed)
        if not records:
            return None
        own = [r for r in records if r.printed and _matches(self.selector, r)]
        if not own:
            return self._nothing(records, total)
        if len(own) > 1 and self.seek.surveyed()[0]:
            return None
        chosen = next((r for r in reversed(own) if r.compiler is Compiler.C2), own[-1])
        method = self._method(records, chosen)
        if method is None:
            return None
        names = islice(dict.fromkeys(record.method for record in own), _MAX_NAMES)  # the first, as a read keeps
        rule = (ChoiceRule.HOTTEST if method.profile is not None
                else ChoiceRule.LAST_C2 if chosen.compiler is Compiler.C2 else ChoiceRule.LAST)
        if total is None and self.counted:
            total = self.seek.surveyed()[1]  # the compilations it prints, for the choice's message
        return Picked(method, len(own), total, rule, tuple(sorted(names)))

    def _last_c2(self, chosen: IndexRecord) -> Picked | None:
        """The default choice when a log's tail holds its last printed C2 compilation: it, unless heat decides the
        choice (then None: the input is read whole) or it cannot be read from its bytes (None: the whole index is
        made)."""
        printed = self.seek.surveyed(chosen.compile_id)[1]
        if self.seek.heat_decides():
            return None
        method = self._method([chosen], chosen)
        return None if method is None else Picked(method, max(printed, 1), max(printed, 1), ChoiceRule.LAST_C2)

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
        count = self.seek.surveyed()[1] if total is None else total
        names = {r.method for r in records if r.printed}
        raise SelectionError(selection.not_found(what, count, names, selector.pattern), self.source)

    def _method(self, records: list[IndexRecord], chosen: IndexRecord) -> Method | None:
        """The chosen compilation read from its bytes, None when it cannot be (or does not read as the index says)."""
        method = self.seek.read(records, chosen)
        if method is None or method.header.compile_id != chosen.compile_id:
            return None
        return method


def _matches(selector: Selector, record: IndexRecord) -> bool:
    """True when the compilation `record` names satisfies every criterion (`Selector.matches_header`)."""
    return ((selector.compile_id is None or record.compile_id == selector.compile_id)
            and (selector.compiler is None or record.compiler is selector.compiler)
            and selector.name_matches(record.method))
