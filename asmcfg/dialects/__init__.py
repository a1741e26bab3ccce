"""The registry of input dialects, and the sniffing that picks the one an input is written in.

Adding a dialect: a folder `asmcfg/dialects/<name>/` whose `__init__.py` defines `DIALECT` and whose
`reader.py` has `sniff(sample)` and `Reader`, its name in `model.words.DialectName`, and its `DIALECT` in
`REGISTRY` below."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from asmcfg.dialects import hsdis, logcompilation, machcode, perfasm
from asmcfg.dialects.base import Dialect, Index, Reader, ReadOptions
from asmcfg.errors import InputError
from asmcfg.model import DialectName
from asmcfg.sources.lines import Line

__all__ = ["DIALECTS", "REGISTRY", "Choice", "Dialect", "ReadOptions", "Reader", "choose", "indexer", "open_reader"]

SAMPLE_LINES = 400
REGISTRY: tuple[Dialect, ...] = (hsdis.DIALECT, machcode.DIALECT, logcompilation.DIALECT, perfasm.DIALECT)
"""Every dialect, in the order they are tried when two score the same."""
BY_NAME = {dialect.name: dialect for dialect in REGISTRY}
DIALECTS = tuple(name.value for name in BY_NAME)
"""Dialect names as plain strings, as `--input-format` takes them (click shows an enum's member names)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """The dialect chosen for an input, and why."""

    name: DialectName
    """The dialect's name."""
    score: float
    """Its sniff score on the sample."""


def choose(sample: list[str], forced: DialectName | None = None) -> Choice:
    """The best-fitting dialect for `sample`, or `forced` when given."""
    if forced:
        return Choice(forced, 1.0)
    text = "\n".join(sample)
    candidates = [(n, d) for n, d in enumerate(REGISTRY) if d.signed(text)]
    score, _, name = max((d.sniff(sample), -n, d.name) for n, d in candidates)
    return Choice(name, score)


def indexer(sample: list[str], forced: DialectName | None = None) -> Index:
    """The indexer of the dialect `choose` picks for `sample`. The sniffs (and the readers they live in) are
    only run when the dialects whose signs the sample holds do not all share one indexer."""
    if forced:
        return BY_NAME[forced].index()
    text = "\n".join(sample)
    candidates = [d for d in REGISTRY if d.signed(text)]
    if len({d.indexer for d in candidates}) == 1:
        return candidates[0].index()
    return BY_NAME[choose(sample).name].index()


def open_reader(
    lines: Iterable[Line], source: str, forced: DialectName | None = None, options: ReadOptions | None = None
) -> tuple[Dialect, Reader, Iterator[Line]]:
    """Sniff the first lines, build the matching reader, and give back the whole line stream."""
    iterator = iter(lines)
    head = list(itertools.islice(iterator, SAMPLE_LINES))
    if not head:
        raise InputError("input is empty: no HotSpot output to read (see asmcfg --help)", source)
    dialect = BY_NAME[choose([line.text for line in head], forced).name]
    return dialect, dialect.reader(source, options), itertools.chain(head, iterator)
