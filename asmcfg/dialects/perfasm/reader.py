"""JMH perfasm output: the hottest regions, one Method per compilation, with the measured heat as its profile.

A run (one `Secondary result "…:asm"` section) prints regions in heat order; the regions of one compilation
(same compile id, or same name and version, or for old JMH the same name nearby) become one partial Method.
Lines of other code a region spills into (a `StubRoutines::x [a, b[` or `Compiled method` boundary) go to
their own Method; spilled code with no sample is dropped. Methods are yielded when their run ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from asmcfg.dialects.perfasm.build import GAP, Region, RegionLine, build_run
from asmcfg.dialects.perfasm.draft import Draft, Piece, Row, Run
from asmcfg.dialects.perfasm.text import (
    Content,
    classify,
    nmethod_title,
    parse_title,
    share_row,
    split_columns,
    stub_title,
)
from asmcfg.model import Method, Unprinted
from asmcfg.sources.lines import Line
from asmcfg.sources.numbers import DIGITS

if TYPE_CHECKING:
    from asmcfg.dialects.base import ReadOptions

__all__ = ["GAP", "Origin", "Reader", "Region", "RegionLine", "sniff"]

_REGION = re.compile(rf"\.\[Hottest Region ({DIGITS})\]")
_SECTION = re.compile(r"^\.{4}\[(Hottest Regions|Hottest Methods[^\]]*|Distribution by Source)\]")
_DOTS = re.compile(r"^\.{20,}\s*$")
_TOTAL = re.compile(rf"<total for region ({DIGITS})>")
_COLUMN = re.compile(r"^\s*Column ([1-9][0-9]?): (\S+)")
COLUMNS = 99
"""The most event columns a run has: as many as its `Column N:` lines can name. A sampled line with more
percentages keeps only these (each column is a figure on every instruction: a crafted line of thousands would
multiply the output by them)."""
"""An event column: JMH prints a few (the number bounds how many columns a run has)."""
_EVENTS = re.compile(rf".*\(({DIGITS}) events\)")
_RESULT = 'Secondary result "'
_BLANK = re.compile(r"\s")
_TOO_BIG = re.compile(rf"<region is too big to display, has ({DIGITS}) lines, but threshold is ({DIGITS})>")
_EVEX = re.compile(r"^\.byte\s+0x62\s*(?:;|$)")
_BENCHMARK = re.compile(r"^# Benchmark: (\S+)")
_PARAMETERS = re.compile(r"^# Parameters: \((.*)\)\s*$")
_VM_VERSION = re.compile(rf"# VM version: JDK ({DIGITS})(?:\.({DIGITS}))?")


def sniff(sample: list[str]) -> float:
    """High for JMH perfasm console output."""
    text = "\n".join(sample)
    if "[Hottest Region" in text or "....[Hottest" in text:
        return 0.95
    if "PrintAssembly processed" in text:
        return 0.9
    return 0.0



def _column(text: str) -> tuple[int, str, int] | None:
    """(number, event, count) of a `Column 1: cycles (1234 events)` line: what `^\\s*Column (\\d+): (\\S+).*\\((\\d+)
    events\\)` matches, in linear time (the expression retries `.*` after each shorter event name: quadratic on a
    long one). The count is the last `(N events)`; the name stops before it when it is inside the name."""
    head = _COLUMN.match(text)
    events = _EVENTS.match(text, head.start(2) + 1) if head else None
    if head is None or events is None:
        return None
    name = head.group(2)[: events.start(1) - 1 - head.start(2)]
    return int(head.group(1)), name, int(events.group(1))


def _result(text: str) -> str | None:
    """The benchmark of a `Secondary result "bench.Name.method:asm"` line: what `^Secondary result "(.*?):\\S*asm"`
    finds, in linear time. When a `:` has no `asm"` after it in its run of non-blanks, no later `:` of the run has,
    so the search goes on after the run (the expression scanned the rest of the run again from every `:`)."""
    if not text.startswith(_RESULT):
        return None
    at = len(_RESULT)
    while (colon := text.find(":", at)) >= 0:
        blank = _BLANK.search(text, colon + 1)
        end = blank.start() if blank else len(text)
        if text.find('asm"', colon + 1, end) >= 0:
            return text[len(_RESULT) : colon]
        at = end
    return None

@dataclass(frozen=True, slots=True)
class Origin:
    """Where a yielded Method came from."""

    run: int
    """Run number in the file, from 1."""
    benchmark: str
    """Benchmark of the run, when JMH printed it."""
    key: str
    """Identity of the compilation within the file (`run 1: compile id 568`)."""
    parameters: str = ""
    """JMH parameters of the run (`branches = 3`), when JMH printed them."""


class Reader:
    """Reads perfasm console output; `regions` and `origins` (one per yielded Method) fill in as it goes."""

    def __init__(self, source: str, options: ReadOptions | None = None) -> None:
        self.source = source
        self.outside = 0
        self.jdk_hint: int | None = None
        self.regions: list[Region] = []
        self.origins: list[Origin] = []
        self.unprinted: list[Unprinted] = []
        """Compilations perfasm measured but printed no line of (too big), filled in as runs end."""
        self._run = Run(1)
        self._region: Draft | None = None
        self._mode = "outside"
        self._section = ""
        self._benchmark = ""
        self._parameters = ""

    def complete(self, method: Method) -> Method:
        """`method` as read: nothing follows the code in this dialect."""
        return method

    def methods(self, lines: Iterable[Line]) -> Iterator[Method]:
        """Yield the compilations of each run when the run ends."""
        for line in lines:
            yield from self._feed(line)
        self._close_region()
        yield from self._flush()

    def _feed(self, line: Line) -> list[Method]:
        text = line.text
        start = _REGION.search(text)
        section = _SECTION.match(text)
        if start:
            self._close_region()
            self._region, self._mode = Draft(int(start.group(1)), line.number), "title"
        elif self._mode == "title":
            self._title(line)
        elif self._mode == "body":
            return self._body(line)
        elif section:
            self._mode, self._section = "summary", section.group(1)
        elif self._mode == "summary":
            self._summary(text)
        else:
            return self._outside(line)
        return []

    def _title(self, line: Line) -> None:
        region = self._region
        if region is None or not line.text.strip():
            return
        region.title, region.line, self._mode = line.text.strip(), line.number, "body"
        region.pieces.append(Piece(parse_title(line.text, line.number)))

    def _body(self, line: Line) -> list[Method]:
        region = self._region
        assert region is not None
        if _DOTS.match(line.text) or _TOTAL.search(line.text):
            self._close_region()
            return self._outside(line)
        values, rest = split_columns(line.text)
        self._run.width = max(self._run.width, min(max(values, default=-1) + 1, COLUMNS))
        too_big = _TOO_BIG.search(rest)
        if too_big:
            region.too_big = (int(too_big.group(1)), int(too_big.group(2)))
            return []
        content = classify(rest)
        piece = region.pieces[-1]
        region.printed += 1
        if content.kind == "instruction" and content.address is not None:
            region.misdecoded += bool(_EVEX.match(content.text))
            previous = None if region.gap or not piece.rows else piece.rows[-1].address
            piece.rows.append(Row(content.address, content.text, line.number, values, region.printed - 1,
                                  previous, region.markers))
            region.markers, region.gap = [], False
        elif content.kind == "comment" and piece.rows:
            piece.rows[-1].comments.append(content.text)
        elif content.kind == "marker":
            region.markers.append(content.text)
        elif content.kind == "gap" or not content.text:
            region.gap = region.gap or bool(piece.rows)
        else:
            _other(region, piece, content, line.number)
        return []

    def _close_region(self) -> None:
        if self._region is not None and self._region.pieces:
            self._run.regions.append(self._region)
        self._region, self._mode = None, "outside"

    def _summary(self, text: str) -> None:
        if _DOTS.match(text):
            self._mode = "outside"
            return
        values, rest = split_columns(text)
        if self._section.startswith("Hottest Methods") and values:
            name, compile_id = share_row(rest)
            self._run.shares[name] = values
            if compile_id is not None:
                self._run.id_shares[compile_id] = values

    def _outside(self, line: Line) -> list[Method]:
        text = line.text
        total, column, result = _TOTAL.search(text), _column(text), _result(text)
        if total:
            self._run.totals[int(total.group(1))] = split_columns(text)[0]
        elif column:
            self._run.events[column[0] - 1] = column[1]
            self._run.counts[column[0] - 1] = column[2]
        elif result is not None or "PrintAssembly processed" in text:
            return self._next_run(result)
        else:
            self._note(text)
        return []

    def _note(self, text: str) -> None:
        version, benchmark, parameters = _VM_VERSION.search(text), _BENCHMARK.match(text), _PARAMETERS.match(text)
        if version:
            major = int(version.group(1))
            self.jdk_hint = int(version.group(2)) if major == 1 and version.group(2) else major
        if benchmark:
            self._benchmark, self._parameters = benchmark.group(1), ""
        if parameters:
            self._parameters = parameters.group(1)
        if text.strip():
            self.outside += 1

    def _next_run(self, benchmark: str | None) -> list[Method]:
        """A result section starts: finish the previous run if it has anything."""
        done: list[Method] = []
        if self._run.regions or self._run.events:
            done = self._flush()
        if benchmark is not None or not self._run.benchmark:
            self._run.benchmark = benchmark or self._benchmark
            self._run.parameters = self._parameters
        return done

    def _flush(self) -> list[Method]:
        run, self._run = self._run, Run(self._run.number + 1)
        if not run.regions:
            return []
        built = build_run(run, self.source, self.jdk_hint)
        self.regions.extend(built.regions)
        self.unprinted.extend(built.unprinted)
        self.origins.extend(Origin(run.number, run.benchmark, key, run.parameters) for key, _ in built.methods)
        return [method for _, method in built.methods]


def _other(region: Draft, piece: Piece, content: Content, number: int) -> None:
    """Constant rows, boundaries into other code, and lines nobody knows."""
    if content.kind == "constant" and content.address is not None and content.value is not None:
        piece.constants.append((content.address, content.value))
    elif content.kind in ("stub", "nmethod"):
        title = stub_title(content.text, number) if content.kind == "stub" else nmethod_title(content.text, number)
        if title is not None:
            region.pieces.append(Piece(title))
            region.gap = True
    elif content.kind == "other":
        piece.skipped.append((number, content.text))
