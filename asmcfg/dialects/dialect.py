"""The `Dialect` every input format subclasses, the registry its subclasses enter by being defined, and the sniffing
that picks the one an input is written in.

A dialect is one class in `asmcfg/dialects/<name>/__init__.py`, imported by the package; its reader and helpers,
beside it in that folder, are imported by its methods when they run, so `import asmcfg` loads none of them.
`dialects.pieces.Piecewise` is the base of the formats read in pieces and opened one compilation at a time.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from asmcfg.dialects.base import Chunk, Counts, Cut, Index, IndexRecord, Reader, ReadOptions, Scan
from asmcfg.errors import InputError
from asmcfg.hotspot.printcompilation import SAMPLE_LINES, Sample, printing_compilations
from asmcfg.model import DialectName

if TYPE_CHECKING:
    import mmap

    from asmcfg.dialects.base import Seek
    from asmcfg.model import Method
    from asmcfg.sources.lines import Line, Meter

BY_NAME: dict[DialectName, Dialect] = {}
"""Every dialect by its name, entered when its class is defined."""
Numbered = tuple[IndexRecord, "int | None"]
"""A record of the index and the number of its header line (None where the lines are not counted)."""


class Dialect(ABC):
    """One input format. What differs between formats is a method here, so no code outside `dialects/` asks which
    dialect it holds."""

    name: ClassVar[DialectName]
    """Its name on the command line (`--input-format`) and in the JSON (`dialect`)."""
    signs: ClassVar[tuple[str, ...]] = ()
    """Text without which its sniff scores 0, so its reader is not even imported; empty: always tried."""
    trap_records: ClassVar[bool] = False
    """Whether its input carries the run's uncommon-trap records (which traps fired) as `--log` gives them."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:  # a dialect, not a shared base of several
            BY_NAME[cls.name] = cls()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def signed(self, text: str) -> bool:
        """True when `text` holds one of the dialect's signs (or it has none)."""
        return not self.signs or any(sign in text for sign in self.signs)

    @abstractmethod
    def sniff(self, sample: list[str]) -> float:
        """How well the sample (the input's first lines) fits, 0 to 1."""

    @abstractmethod
    def reader(self, source: str, options: ReadOptions | None = None) -> Reader:
        """A fresh reader of this dialect for the input named `source`."""

    @abstractmethod
    def index(self, scan: Scan) -> Iterator[IndexRecord]:
        """Its compilations, in input order, found by a byte search of the decompressed input (`Scan`: the search
        may run in two processes, so what it finds must be picklable): a fast `--list` of a large input."""

    def methods(self, reader: Reader, lines: Iterable[Line], source: str) -> Iterator[Method]:
        """The methods `reader` reads from `lines`; a JMH saveLog's percentage columns are blanked before the reader
        sees them and become the heat of the instructions printed on their lines."""
        from asmcfg.dialects.perfasm.saved import SavedHeat

        saved = SavedHeat(source)
        return map(saved.attach, reader.methods(saved.lines(lines)))

    def cutter(self) -> Cut | None:
        """What cuts its bytes into pieces for the parallel engine; None: its input is read in one process."""
        return None

    def read_piece(self, piece: Chunk, source: str, options: ReadOptions | None, counts: Counts) -> Iterator[Method]:
        """The methods of one piece its cutter cut, one at a time, as `methods` reads them from the whole input
        (a saveLog's columns made heat too); its lines outside methods go to `counts`."""
        from asmcfg.dialects.perfasm.saved import SavedHeat

        saved = SavedHeat(source)
        yield from map(saved.attach, self._read_piece(piece.mapped(saved.blank), source, options, counts))

    def _read_piece(self, piece: Chunk, source: str, options: ReadOptions | None, counts: Counts) -> Iterator[Method]:
        """The methods of one piece, its columns blanked: by a fresh reader of its lines (`sources.split.Piece`)."""
        from asmcfg.sources.split import Piece

        assert isinstance(piece, Piece), f"{self.name} is cut into whole lines"
        reader = self.reader(source, options)
        reader.jdk_hint = piece.jdk_hint  # the JDK named before the piece, which a fresh reader has not seen
        yield from reader.methods(piece.lines())
        counts.outside += reader.outside

    def listing(self, path: str, meter: Meter | None) -> Iterator[Numbered] | None:
        """Its compilations in the plain or compressed file at `path` as `index` finds them, in the order of their
        header lines and each with that line's number, as a read of the whole input lists them; None where only
        such a read lists them."""
        return None

    def seek(self, view: mmap.mmap, path: str, source: str, options: ReadOptions) -> Seek | None:
        """Random access to the compilations of the mapped plain file at `path` (named `source`): found through
        `index` and each read from its own bytes; None when a compilation cannot be read apart from the rest."""
        return None

    def completed(self, reader: Reader, method: Method, rest: Iterator[Method]) -> Method:
        """`method`, read by `reader` with `rest` the methods after it, with what the input says of it after its
        code; `rest` is read only where the input says it after all the code."""
        return reader.complete(method)


def registry() -> tuple[Dialect, ...]:
    """Every dialect, in the order they are tried when two score the same (the order of `DialectName`)."""
    order = list(DialectName)
    return tuple(sorted(BY_NAME.values(), key=lambda d: order.index(d.name)))


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
    candidates = [(n, d) for n, d in enumerate(registry()) if d.signed(text)]
    score, _, name = max((d.sniff(sample), -n, d.name) for n, d in candidates)
    return Choice(name, score)


def indexer(sample: list[str], forced: DialectName | None = None) -> Index:
    """The index of the dialect `choose` picks for `sample`. The sniffs (and the readers they live in) are only run
    when the dialects whose signs the sample holds do not all share one index."""
    if forced:
        return BY_NAME[forced].index
    text = "\n".join(sample)
    candidates = [d for d in registry() if d.signed(text)]
    if len({type(d).index for d in candidates}) == 1:
        return candidates[0].index
    return BY_NAME[choose(sample).name].index


def open_reader(
    lines: Iterable[Line], source: str, forced: DialectName | None = None, options: ReadOptions | None = None
) -> tuple[Dialect, Reader, Iterator[Line]]:
    """Sniff the first lines (past a run's PrintCompilation lines, `hotspot.printcompilation`), build the matching
    reader, and give back the whole line stream."""
    iterator = iter(lines)
    head = list(itertools.islice(iterator, SAMPLE_LINES))
    if not head:
        raise InputError("input is empty: no HotSpot output to read (see asmcfg --help)", source)
    sample = [line.text for line in head]
    if printing_compilations(sample):
        past = Sample(sample)
        for line in iterator if not past.whole() else ():
            head.append(line)
            if past.add(line.text):
                break
        sample = past.lines
    dialect = BY_NAME[choose(sample, forced).name]
    return dialect, dialect.reader(source, options), itertools.chain(head, iterator)
