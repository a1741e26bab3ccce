"""The records and protocols the dialects share: the options a reader takes, a `Reader`, the pieces the parallel
engine reads apart (`Chunk`, `Cut`), the index's `IndexRecord` and `Scan`, and random access to one compilation of a
large file (`Seek`). The `Dialect` class that offers them is `dialects.dialect`."""

from __future__ import annotations

import mmap
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from asmcfg.model import Compiler, Syntax

if TYPE_CHECKING:
    from typing import Self

    from asmcfg.model import Method
    from asmcfg.sources.lines import Line, Meter
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


class Counts(Protocol):
    """Where a piece reader counts the non-blank lines it found outside any method."""

    outside: int


class Chunk(Protocol):
    """A piece of the input a dialect's cutter cut, that a worker reads apart (pickled to it)."""

    @property
    def size(self) -> int:
        """Bytes of text."""
        ...

    def mapped(self, change: Callable[[int, bytes], bytes]) -> Self:
        """The piece with `change(first_line, data)` for the bytes of each run of its lines."""
        ...


Cut = Callable[["Readable", str, str, int], Iterator[Chunk]]
"""(stream, path, source name, target bytes) → pieces that workers read apart."""


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
"""A scan of the decompressed input → its compilations, in input order (`Dialect.index`)."""


class Seek(Protocol):
    """One large plain file of a dialect, mapped: its compilations found through the index and each read from its own
    bytes (`dialects.seek`), for the opening of one compilation (`run.opening`)."""

    def last_c2(self, tails: Sequence[int]) -> IndexRecord | None:
        """The last printed C2 compilation, found in the index of the file's last `tails[i]` bytes in turn (where the
        dialect's index of a tail costs less than the whole one's; else None)."""
        ...

    def direct(self, compile_id: int) -> list[IndexRecord] | None:
        """The index record of `compile_id`, found by a search for it; None when the dialect cannot search for it."""
        ...

    def index(self, meter: Meter | None, choosing: bool) -> list[IndexRecord]:
        """Every compilation of the file, from its index (`choosing`: heat may decide the choice)."""
        ...

    def surveyed(self, compile_id: int | None = None) -> tuple[bool, int]:
        """Whether a line of the file is sampled (a JMH saveLog's percentage columns: heat decides the choice), and
        how many compilations it prints where its index does not count them (else 0)."""
        ...

    def heat_decides(self) -> bool:
        """True when the survey found a sampled line and more than one compilation: the hottest is chosen."""
        ...

    def read(self, records: Sequence[IndexRecord], chosen: IndexRecord) -> Method | None:
        """The chosen compilation (one of `records`, the index's) read from its bytes; None when it cannot be."""
        ...
