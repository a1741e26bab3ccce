"""What every input dialect offers: its name, its signs and sniff, a reader, a cutter and a piece reader for the
parallel path, and an indexer for a fast `--list`."""

from __future__ import annotations

import importlib
import mmap
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from asmcfg.model import Compiler, DialectName, Syntax

if TYPE_CHECKING:
    from asmcfg.model import Method
    from asmcfg.sources.lines import Line
    from asmcfg.sources.split import Readable

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """Choices that change how a dialect reads its input."""

    syntax: Syntax = Syntax.ATT
    """x86 syntax for instructions asmcfg decodes itself (`att` or `intel`)."""


class Reader(Protocol):
    """What every dialect's Reader offers."""

    outside: int
    jdk_hint: int | None
    """The JDK the input named so far (`# VM version`), or None; set on a fresh reader of a piece to what was
    named before the piece."""

    def methods(self, lines: Iterable[Line]) -> Iterator[Method]:
        """Yield methods one at a time."""
        ...

    def complete(self, method: Method) -> Method:
        """`method` with what the input says of it after its code; called once all methods are read."""
        ...


Cut = Callable[["Readable", str, str, int], Iterator[Any]]
"""(stream, path, source name, target bytes) → pieces that workers read apart; each has a `size` in bytes."""


class Counts(Protocol):
    """Where a piece reader counts the non-blank lines it found outside any method."""

    outside: int


ReadPiece = Callable[[Any, str, "ReadOptions | None", Counts], "Iterator[Method]"]
"""(piece, source name, options, counts) → the piece's methods, one at a time; adds its lines outside methods to
`counts.outside`."""


@dataclass(frozen=True, slots=True)
class IndexRecord:
    """One compilation an indexer found."""

    compile_id: int | None
    """Compile id, None when the layout does not print it."""
    compiler: Compiler
    """`c1`, `c2`, `jvmci`, `native` or `unknown`."""
    level: int | None
    """Tier level (0-4), None without tiered compilation."""
    osr_bci: int | None
    """Bytecode index of an OSR compilation's entry, None for a normal one."""
    flags: str
    """Attribute characters as printed: `%` OSR, `s` synchronized, `!` handlers, `b` blocking, `n` native."""
    method: str
    """`pkg.Class::method`."""
    bytecode_size: int | None
    """Size of the method's bytecode in bytes."""
    code_size: int | None
    """Size of `main code` from the section table (or the `<nmethod>` offsets), None if not printed."""
    code_begin: int | None
    """Address of the first byte of `main code`."""
    offset: int
    """Byte offset of the header line (or the `<nmethod>` record) in the decompressed input."""
    printed: bool
    """True when the log holds the compilation's assembly (always for PrintAssembly text)."""
    header_offset: int
    """Byte offset of the line a full read numbers the compilation by: its `Compiled method` header (in a
    LogCompilation log, the printed one after the record; the record's own when the log does not print its code)."""


Buffer = bytearray | mmap.mmap
"""Bytes an indexer searches: a reused buffer a stream is read into, or a whole plain file mapped into memory."""
Window = tuple[int, Buffer, int, int, int]
"""(offset of the buffer in the input, buffer, where the needles may start: from, to, where its bytes end)."""
Search = Callable[[Iterator[Window]], Iterator[T]]
"""Windows → what is found in them, in order; it yields all it finds in a window before it takes the next one."""


class Scan(Protocol):
    """Runs a search over the windows of the whole input: at once, or in two parts on two cores (`dialects.scan`)."""

    def __call__(self, search: Search[T], /) -> Iterator[T]:
        """What `search` finds in every window of the input, in input order. Where the input is split, `search`
        runs in two processes, so what it yields must be picklable and depend only on the windows it is given."""
        ...


Index = Callable[[Scan], Iterator[IndexRecord]]
"""A scan of the decompressed input → its compilations, in input order."""


@dataclass(frozen=True, slots=True)
class Dialect:
    """One input format. Its code lives in `asmcfg/dialects/<name>/` and is imported only when it is used."""

    name: DialectName
    """Its name on the command line (`--input-format`) and in the JSON (`dialect`)."""
    signs: tuple[str, ...] = ()
    """Text without which its sniff scores 0, so its reader is not even imported; empty: always tried."""
    cutter: str | None = None
    """`module:function` (a `Cut`) that cuts its bytes for the parallel path; None: read in one process."""
    piece_reader: str | None = None
    """`module:function` (a `ReadPiece`) reading one of its cutter's pieces; None: the pieces are whole lines
    (`sources.split.Piece`) that its own reader reads."""
    indexer: str = "asmcfg.dialects.index:headers"
    """`module:function` (an `Index`) finding its compilations with a byte search, for a fast `--list` of a large
    input; the default finds PrintAssembly's `Compiled method` headers."""
    measured: bool = False
    """Its input carries perfasm's measured heat itself: no JMH saveLog percentage columns are looked for."""
    by_record: bool = False
    """A compilation of a large file is opened from its `<nmethod>` record and its thread's text (a LogCompilation
    log, `dialects.seek.read_log`), not as the text between two method headers (`seek.read_text`)."""
    trailing: bool = False
    """Its input says more of a compilation after all the code (a LogCompilation log's compiler tasks): its
    reader's `complete` needs the whole input read; otherwise reading may stop at the compilation wanted."""

    @property
    def seekable(self) -> bool:
        """True when its compilations are listed by the header index and each can be read from its own bytes (the
        dialects the parallel path cuts); perfasm output, whose regions are found across the whole output, is not."""
        return self.cutter is not None

    def module(self) -> Any:
        """The reader module: `sniff(sample)` and `Reader(source, options)`."""
        return importlib.import_module(f"asmcfg.dialects.{self.name}.reader")

    def signed(self, text: str) -> bool:
        """True when `text` holds one of the dialect's signs (or it has none)."""
        return not self.signs or any(sign in text for sign in self.signs)

    def sniff(self, sample: list[str]) -> float:
        """How well the sample fits, 0 to 1."""
        return float(self.module().sniff(sample))

    def reader(self, source: str, options: ReadOptions | None = None) -> Reader:
        """A fresh reader of this dialect for the input named `source`."""
        reader: Reader = self.module().Reader(source, options or ReadOptions())
        return reader

    def cut(self) -> Cut | None:
        """The dialect's cutter, or None when its input must be read in one process."""
        if self.cutter is None:
            return None
        cut: Cut = _function(self.cutter)
        return cut

    def methods(self, reader: Reader, lines: Iterable[Line], source: str) -> Iterator[Method]:
        """The methods `reader` reads from `lines`; outside perfasm output, a JMH saveLog's percentage columns
        are blanked before the reader sees them and become the heat of the instructions printed on their lines."""
        if self.measured:
            return reader.methods(lines)
        from asmcfg.dialects.perfasm.saved import SavedHeat

        saved = SavedHeat(source)
        return map(saved.attach, reader.methods(saved.lines(lines)))

    def read_piece(self, piece: Any, source: str, options: ReadOptions | None, counts: Counts) -> Iterator[Method]:
        """The methods of one piece its cutter cut, one at a time, as `methods` reads them from the whole input;
        its lines outside methods go to `counts`."""
        if self.measured:
            yield from self._read_piece(piece, source, options, counts)
            return
        from asmcfg.dialects.perfasm.saved import SavedHeat

        saved = SavedHeat(source)
        yield from map(saved.attach, self._read_piece(piece.mapped(saved.blank), source, options, counts))

    def _read_piece(self, piece: Any, source: str, options: ReadOptions | None, counts: Counts) -> Iterator[Method]:
        if self.piece_reader is not None:
            read: ReadPiece = _function(self.piece_reader)
            yield from read(piece, source, options, counts)
            return
        reader = self.reader(source, options)
        reader.jdk_hint = piece.jdk_hint  # the JDK named before the piece, which a fresh reader has not seen
        yield from reader.methods(piece.lines())
        counts.outside += reader.outside

    def index(self) -> Index:
        """The dialect's indexer."""
        index: Index = _function(self.indexer)
        return index


def _function(name: str) -> Any:
    """The function `module:function` names."""
    module, function = name.split(":")
    return getattr(importlib.import_module(module), function)
