"""`-XX:+PrintCompilation` lines, which a run prints before and between its printed methods, and the sample of an
input's first lines a dialect is sniffed from, taken past them.

A PrintCompilation line (HotSpot's `CompileTask::print`) is a time stamp, the compile id, five attribute columns
(`%` OSR, `s` synchronized, `!` has handlers, `b` blocking, `n` native), the tier and an indent, then the method:
`    1150  645 %     3       Busy::sum @ 10 (35 bytes)`. A run that compiles many methods before the printed one
prints a thousand such lines or more first (Graal, compiling itself, many more).

The sample is an input's first SAMPLE_LINES lines, as they are, unless the last of them are PrintCompilation lines;
then it is its first SAMPLE_LINES lines that are not, read past at most SKIP_LINES of those. Only the last lines of
an ordinary input's sample are matched against the pattern, so its sniff costs what it did.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import islice

SAMPLE_LINES = 400
"""Lines at the start of the input its dialect is sniffed from (PrintCompilation lines not counted)."""
SKIP_LINES = 100_000
"""PrintCompilation lines read past at most while the sample is taken."""
_LINE = re.compile(r" *\d+ +\d+ [ %sbn!]{5} (?:[0-4-] )? {4}")
"""The head of a PrintCompilation line: each part a different class of character, so a match costs one pass."""
_TAIL = 16
"""The last lines of a whole sample that tell whether the input starts with PrintCompilation output."""


def is_print_compilation(text: str) -> bool:
    """True for a line `-XX:+PrintCompilation` printed."""
    return _LINE.match(text) is not None


def printing_compilations(head: list[str], want: int = SAMPLE_LINES) -> bool:
    """True when `head`, an input's first `want` lines, ends in PrintCompilation lines: the sample is to be taken
    past them (`Sample`)."""
    return len(head) >= want and any(_LINE.match(line) for line in head[-_TAIL:])


class Sample:
    """The sample of an input whose head `printing_compilations` found, fed the lines after that head one at a
    time: the head's lines that are not PrintCompilation lines, then the next ones."""

    __slots__ = ("lines", "skipped", "want")

    def __init__(self, head: list[str], want: int = SAMPLE_LINES) -> None:
        self.lines = [line for line in head if not _LINE.match(line)]
        """The sample so far."""
        self.skipped = len(head) - len(self.lines)
        """PrintCompilation lines passed over."""
        self.want = want

    def whole(self) -> bool:
        """True once the sample holds `want` lines."""
        return len(self.lines) >= self.want

    def add(self, text: str) -> bool:
        """Take the next line of the input; True once the sample is whole."""
        if self.skipped < SKIP_LINES and _LINE.match(text):
            self.skipped += 1
            return False
        self.lines.append(text)
        return len(self.lines) >= self.want


def sample_of(texts: Iterable[str], want: int = SAMPLE_LINES) -> list[str]:
    """The sample of the input whose lines are `texts`, read no further than it needs."""
    lines = iter(texts)
    head = list(islice(lines, want))
    if not printing_compilations(head, want):
        return head
    sample = Sample(head, want)
    if not sample.whole():
        for text in lines:
            if sample.add(text):
                break
    return sample.lines
