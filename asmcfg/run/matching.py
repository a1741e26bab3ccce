"""Which compilations a selector lists: by their own name, else by a method they inline; and the JMH run of each."""

from __future__ import annotations

from collections.abc import Iterator

from asmcfg import describe
from asmcfg.model import Method
from asmcfg.run.pipeline import Selector, Stream

Row = tuple[Method, str | None, int]
"""A listed compilation, the inlined method a pattern matched in it (if that is why it is listed), and its
place among the input's compilations."""


def matching(methods: Iterator[Method], selector: Selector) -> list[Row]:
    """The compilations the selector matches by their own name, else those that inline a matching method (with
    the inlined method's name)."""
    own: list[Row] = []
    inlining: list[Row] = []
    for n, method in enumerate(methods):
        if selector.matches(method):
            own.append((method, None, n))
        elif not own and selector.pattern is not None:
            inlined = selector.inlined(method)
            if inlined is not None:
                inlining.append((method, inlined, n))
    return own or inlining


def run_labels(stream: Stream, rows: list[Row]) -> list[str]:
    """The JMH run (benchmark and parameters) of each row when the input is perfasm output, else nothing."""
    origins = getattr(stream.reader, "origins", None)
    if not origins:
        return []
    return [describe.run_label(origins[n].benchmark, origins[n].parameters) for _, _, n in rows]
