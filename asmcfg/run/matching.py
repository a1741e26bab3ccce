"""Which compilations a selector lists: by their own name, else by a method they inline; and the JMH run of each."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from asmcfg import describe
from asmcfg.model import Method, Unprinted
from asmcfg.run.pipeline import Selector, Stream

if TYPE_CHECKING:
    from asmcfg.errors import AsmcfgError
    from asmcfg.render.listing import Listed

T = TypeVar("T")


def matching(
    methods: Iterator[Method], selector: Selector, keep: Callable[[Method, str | None], T]
) -> list[tuple[T, int]]:
    """What `keep` makes of each compilation the selector matches by its own name, else of those that inline a
    matching method (given the inlined method's name), with its place among the input's compilations. Only what
    `keep` returns is held: a listing keeps a small row per compilation, not the compilation."""
    own: list[tuple[T, int]] = []
    inlining: list[tuple[T, int]] = []
    for n, method in enumerate(methods):
        if selector.matches(method):
            own.append((keep(method, None), n))
        elif not own and selector.pattern is not None:
            inlined = selector.inlined(method)
            if inlined is not None:
                inlining.append((keep(method, inlined), n))
    return own or inlining


def run_labels(stream: Stream, rows: Sequence[tuple[object, int]]) -> list[str]:
    """The JMH run (benchmark and parameters) of each row when the input is perfasm output, else nothing."""
    origins = getattr(stream.reader, "origins", None)
    if not origins:
        return []
    return [describe.run_label(origins[n].benchmark, origins[n].parameters) for _, n in rows]


@dataclass(frozen=True, slots=True)
class Listing:
    """What `--list` shows of a whole input read (`Log.listing`)."""

    rows: list[Listed]
    """A row per compilation listed, in input order."""
    unprinted: list[Unprinted]
    """The compilations perfasm measured but did not print, that the selector matches."""
    runs: list[str]
    """The JMH run of each row, when the input holds perfasm output of several runs; else empty."""
    nothing: Callable[[], AsmcfgError]
    """The error that says what the input holds, for a listing with no row at all."""


def whole(method: Method, inlined: str | None) -> Method:
    """The compilation itself, kept whole (what `Log.each` keeps of each one `matching` finds)."""
    return method
