"""Heat printed inside a perf-annotated HotSpot log (JMH perfasm's `saveLog` file).

JMH writes the whole PrintAssembly log of the forked JVM with the percentage columns of the console output
before every sampled instruction line (`   2.48%    0x00007f41e3eefa13:   notl …`). The columns are replaced by
blanks of the same width, so the line reads exactly like an unsampled one, and the figures become the heat of
the instruction printed on that line (each line on its own: a recycled code-cache address may be printed, and
sampled, for several compilations).
"""

from __future__ import annotations

import mmap
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any

from asmcfg.model import Method
from asmcfg.model.make import compiled
from asmcfg.sources.lines import Line
from asmcfg.sources.numbers import HEX
from asmcfg.sources.split import to_texts

_SAMPLED = re.compile(rf"^(?:\s*\d{{1,3}}\.\d\d%)+(?=\s+({HEX}):)")
_HEAT = re.compile(rb"%[\t-\r\x1c-\x20\xc2\xe1-\xe3]")
"""A `%` and what may start a blank after it, in UTF-8 (`\\s` of a str pattern: ASCII blanks, U+0085, U+00A0,
U+1680, U+2000-U+205F, U+3000): every sampled line holds it where its last percentage column ends. A pattern, not
`find`s: it looks for the `%` alone, which is several times faster than a search for a two-byte string."""
_PERCENT_BLANK: Callable[[Any, int, int], int] | None = compiled("asmcfg.dialects._lines", "percent_blank")
"""`percent_blank(buffer, pos, endpos)` of the C module `_lines` (where it is built): the start of what
`_HEAT.search` finds there, or -1, several times faster."""
_PERCENT = re.compile(rb"%(?<=\d\.\d\d%)")
"""What every percentage column holds (`\\d\\.\\d\\d%`): a piece of input without it has no sampled line. Written
from its `%`, which the search then looks for alone: from the digits, it tried a match at every digit of the
piece (0.8 s for 30 MB of LogCompilation log, now 0.07 s)."""


def sampled(text: str) -> bool:
    """True for a line that starts with percentage columns before an instruction's address."""
    return _SAMPLED.match(text) is not None


class SavedHeat:
    """Passes lines through with their percentage columns blanked, remembering the figures by line number."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._by_line: dict[int, tuple[int, dict[int, float]]] = {}

    def lines(self, lines: Iterable[Line]) -> Iterator[Line]:
        """The lines, sampled ones with their columns blanked."""
        for line in lines:
            text = self._blank(line.number, line.text)
            yield line if text is line.text else Line(line.number, text)

    def blank(self, first_line: int, data: bytes) -> bytes:
        """The bytes of whole lines, the first numbered `first_line`, with sampled lines' columns blanked (the
        same bytes when none is sampled): a piece of the input cut for a worker, read as `lines` reads lines."""
        if _PERCENT.search(data) is None:
            return data
        texts = to_texts(data)
        blanked = [self._blank(number, text) for number, text in enumerate(texts, first_line)]
        ending = "\n" if data.endswith(b"\n") else ""
        return ("\n".join(blanked) + ending).encode("utf-8")

    def _blank(self, number: int, text: str) -> str:
        match = _SAMPLED.match(text)
        if match is None:
            return text
        from asmcfg.dialects.perfasm.text import split_columns  # the console's columns: loaded for heat only

        values, _ = split_columns(match.group(0))
        self._by_line[number] = (int(match.group(1), 16), values)
        return " " * match.end() + text[match.end() :]

    def attach(self, method: Method) -> Method:
        """`method` with the heat printed on its instruction lines, one column per event (as many as its most
        filled line has); unchanged when none was sampled."""
        if not self._by_line or method.profile is not None:
            return method
        found = [(ins.address, self._by_line.get(ins.line)) for ins in method.instructions]
        sampled = {address: values for address, row in found if row is not None and row[0] == address
                   for values in (row[1],)}
        if not sampled:
            return method
        from asmcfg.model import Profile

        width = max(max(values, default=-1) for values in sampled.values()) + 1
        heat = {address: tuple(values.get(i, 0.0) for i in range(width)) for address, values in sampled.items()}
        events = tuple(f"column {i + 1}" for i in range(width))
        return replace(method, profile=Profile(self.source, events, heat))


def sampled_in(view: mmap.mmap, base: int, limit: int) -> bool:
    """True when a line that starts among the `limit` bytes of `view` from `base` is a sampled line: a look of
    `passes.survey`. A line that holds `_HEAT` is read once, by the chunk it starts in, however long it is: a line
    that starts in an earlier chunk is passed over, one that runs on past this chunk is searched to its end."""
    stop = base + limit
    first = base
    if base and view[base - 1] != 0x0A:  # the chunk starts inside a line
        first = view.find(b"\n", base, stop) + 1
        if not first:
            return False
    at = first  # a line start
    while 0 <= (found := _heat_at(view, at, min(len(view), stop + 1))) < stop:
        start = max(view.rfind(b"\n", at, found) + 1, at)
        end = _line_end(view, found)
        if sampled(view[start:end].decode("utf-8", "replace")):
            return True
        at = end + 1
    last = max(view.rfind(b"\n", base, stop) + 1, first)  # where the chunk's last line starts
    if at > last or last >= stop:  # read already, or starts in the next chunk
        return False
    end = _line_end(view, stop)
    return _heat_at(view, stop, end) >= 0 and sampled(view[last:end].decode("utf-8", "replace"))


def _heat_at(view: mmap.mmap, pos: int, endpos: int) -> int:
    """Where `_HEAT` first matches in bytes [pos, endpos) of `view`, or -1."""
    if _PERCENT_BLANK is not None:
        return _PERCENT_BLANK(view, pos, endpos)
    found = _HEAT.search(view, pos, endpos)
    return -1 if found is None else found.start()


def _line_end(view: mmap.mmap, at: int) -> int:
    """Where the line holding byte `at` ends (its newline, or the end of the file)."""
    end = view.find(b"\n", at)
    return len(view) if end < 0 else end
