"""Heat printed inside a perf-annotated HotSpot log (JMH perfasm's `saveLog` file).

JMH writes the whole PrintAssembly log of the forked JVM with the percentage columns of the console output
before every sampled instruction line (`   2.48%    0x00007f41e3eefa13:   notl …`). The columns are replaced by
blanks of the same width, so the line reads exactly like an unsampled one, and the figures become the heat of
the instruction printed on that line (each line on its own: a recycled code-cache address may be printed, and
sampled, for several compilations).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace

from asmcfg.dialects.perfasm.text import split_columns
from asmcfg.model import Method, Profile
from asmcfg.sources.lines import Line
from asmcfg.sources.numbers import HEX

_SAMPLED = re.compile(rf"^(?:\s*\d{{1,3}}\.\d\d%)+(?=\s+({HEX}):)")


class SavedHeat:
    """Passes lines through with their percentage columns blanked, remembering the figures by line number."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._by_line: dict[int, tuple[int, dict[int, float]]] = {}
        self._width = 0

    def lines(self, lines: Iterable[Line]) -> Iterator[Line]:
        """The lines, sampled ones with their columns blanked."""
        for line in lines:
            match = _SAMPLED.match(line.text)
            if match is None:
                yield line
                continue
            values, _ = split_columns(match.group(0))
            self._by_line[line.number] = (int(match.group(1), 16), values)
            self._width = max(self._width, max(values, default=-1) + 1)
            yield Line(line.number, " " * match.end() + line.text[match.end() :])

    def attach(self, method: Method) -> Method:
        """`method` with the heat printed on its instruction lines; unchanged when none was sampled."""
        heat: dict[int, tuple[float, ...]] = {}
        for ins in method.instructions:
            found = self._by_line.get(ins.line)
            if found is not None and found[0] == ins.address:
                heat[ins.address] = tuple(found[1].get(i, 0.0) for i in range(self._width))
        if not heat or method.profile is not None:
            return method
        events = tuple(f"column {i + 1}" for i in range(self._width))
        return replace(method, profile=Profile(self.source, events, heat))
