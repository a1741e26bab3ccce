"""Input dialects and the registry that sniffs which one fits."""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Protocol

from asmcfg.errors import InputError
from asmcfg.model import Method
from asmcfg.sources.lines import Line

SAMPLE_LINES = 400
DIALECTS = ("hsdis", "machcode", "logcompilation", "perfasm")
"""Dialect modules in the order they are tried when two score the same."""


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """Choices that change how a dialect reads its input."""

    syntax: str = "att"
    """x86 syntax for instructions asmcfg decodes itself (`att` or `intel`)."""


class Reader(Protocol):
    """What every dialect's Reader offers."""

    outside: int

    def methods(self, lines: Iterable[Line]) -> Iterator[Method]:
        """Yield methods one at a time."""
        ...


@dataclass(frozen=True, slots=True)
class Choice:
    """The dialect chosen for an input, and why."""

    name: str
    """Dialect module name."""
    score: float
    """Its sniff score on the sample."""


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"asmcfg.dialects.{name}.reader")


SIGNS: dict[str, tuple[str, ...]] = {
    "machcode": ("[MachCode]",),
    "logcompilation": ("<hotspot_log", "<tty>", "<writer thread=", "<print_nmethod"),
    "perfasm": ("[Hottest Region", "....[Hottest", "PrintAssembly processed"),
}
"""Text without which a dialect's own sniff scores 0: its module is imported only when one is present."""


def choose(sample: list[str], forced: str | None = None) -> Choice:
    """The best-fitting dialect for `sample`, or `forced` when given."""
    if forced:
        return Choice(forced, 1.0)
    text = "\n".join(sample)
    candidates = [n for n in DIALECTS if n not in SIGNS or any(sign in text for sign in SIGNS[n])]
    scores = [(float(_module(name).sniff(sample)), -DIALECTS.index(name), name) for name in candidates]
    score, _, name = max(scores)
    return Choice(name, score)


def open_reader(
    lines: Iterable[Line], source: str, forced: str | None = None, options: ReadOptions | None = None
) -> tuple[Reader, Iterator[Line]]:
    """Sniff the first lines, build the matching reader, and give back the whole line stream."""
    iterator = iter(lines)
    head = list(itertools.islice(iterator, SAMPLE_LINES))
    if not head:
        raise InputError("input is empty: no HotSpot output to read (see asmcfg --help)", source)
    choice = choose([line.text for line in head], forced)
    reader: Reader = _module(choice.name).Reader(source, options or ReadOptions())
    return reader, itertools.chain(head, iterator)
