"""Running an indexer's byte search over the windows of the input, in one process or on two cores.

A large mapped file is cut in two at a window boundary: a forked process (`processes.child`) searches the windows
after the cut while this one searches those before it. What the forked process finds comes back through a pipe, a
window at a time, and is yielded after what this process found, so everything stays in input order. A needle that
starts before the cut is found by this process only (its windows reach CONTEXT bytes past their end), one that
starts at or after it by the forked process only. Where this process may not be forked (`processes.start.forkable`:
none can be, or other threads run), this process searches it all; where the forked process fails, this process
searches what it did not send.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from asmcfg.dialects.base import Search, Window
from asmcfg.processes import start
from asmcfg.processes.child import Child, Send
from asmcfg.sources.lines import Meter

T = TypeVar("T")
Windows = Callable[[int, int, "Meter | None"], Iterator[Window]]
"""Windows over bytes [from, to) of the input; the meter, if given, counts each window's bytes."""


class Serial:
    """Every window searched here, in one process."""

    __slots__ = ("_windows",)

    def __init__(self, windows: Iterator[Window]) -> None:
        self._windows = windows

    def __call__(self, search: Search[T], /) -> Iterator[T]:
        """What `search` finds in the windows."""
        return search(self._windows)


class Split:
    """The windows over [0, size) searched in two parts: those before `cut` here, those after in a forked process."""

    __slots__ = ("_cut", "_meter", "_size", "_windows")

    def __init__(self, windows: Windows, size: int, cut: int, meter: Meter | None = None) -> None:
        self._windows = windows
        self._size = size
        self._cut = min(max(cut, 0), size)
        self._meter = meter

    def __call__(self, search: Search[T], /) -> Iterator[T]:
        """What `search` finds in every window, in input order."""
        if not start.forkable():
            return search(self._windows(0, self._size, self._meter))
        return self._split(search)

    def _split(self, search: Search[T]) -> Iterator[T]:
        windows, cut, size = self._windows, self._cut, self._size

        def later(send: Send) -> None:  # the windows after the cut
            _search_and_send(search, windows(cut, size, None), send)

        child: Child[None] = Child(later, "asmcfg-search", forked=True)
        try:
            yield from search(self._windows(0, self._cut, self._meter))
            reached = self._cut
            for end, found in child.received():
                if self._meter is not None:
                    self._meter(end - reached)
                reached = end
                yield from found
            child.ended()  # it exits once its pipe ends
            if reached < self._size:  # it failed: search here what it did not send
                yield from search(self._windows(reached, self._size, self._meter))
        finally:
            child.cancel()  # what it finds is no longer wanted, if it is still searching


def _search_and_send(search: Search[T], windows: Iterator[Window], send: Send) -> None:
    """In the forked process: send what `search` finds, window by window, and what it finds after the last."""
    found: list[T] = []
    ended = [-1]

    def searched() -> Iterator[Window]:
        for window in windows:
            yield window  # `search` takes the next window once it has yielded all it found in this one
            ended[0] = window[0] + window[3]
            send((ended[0], found))
            found.clear()

    for item in search(searched()):
        found.append(item)
    if found and ended[0] >= 0:
        send((ended[0], found))
