"""What every input dialect offers: its name, its signs and sniff, a reader, and a cutter for the parallel path."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from asmcfg.model import Method

if TYPE_CHECKING:
    from asmcfg.sources.lines import Line
    from asmcfg.sources.split import Readable


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

    def complete(self, method: Method) -> Method:
        """`method` with what the input says of it after its code; called once all methods are read."""
        ...


Cut = Callable[["Readable", str, str, int], Iterator[Any]]
"""(stream, path, source name, target bytes) → pieces that workers read apart."""


@dataclass(frozen=True, slots=True)
class Dialect:
    """One input format. Its code lives in `asmcfg/dialects/<name>/` and is imported only when it is used."""

    name: str
    """Its name on the command line (`--input-format`) and in the JSON (`dialect`)."""
    signs: tuple[str, ...] = ()
    """Text without which its sniff scores 0, so its reader is not even imported; empty: always tried."""
    cutter: str | None = None
    """`module:function` (a `Cut`) that cuts its bytes for the parallel path; None: read in one process."""

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
        module, function = self.cutter.split(":")
        cut: Cut = getattr(importlib.import_module(module), function)
        return cut
