"""Running an indexer's byte search over the windows of the input, in one process or on two cores.

A large mapped file is cut in two at a window boundary: a forked process searches the windows after the cut while
this one searches those before it. What the forked process finds comes back through a pipe, a window at a time,
and is yielded after what this process found, so everything stays in input order. A needle that starts before
the cut is found by this process only (its windows reach CONTEXT bytes past their end), one that starts at or
after it by the forked process only. Where processes cannot be forked, this process searches it all; where the
forked process fails, this process searches what it did not send. `Forked` runs any one function in a forked
process and hands back its result.
"""

from __future__ import annotations

import contextlib
import copyreg
import io
import os
import pickle
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from asmcfg.dialects.base import Search, Window
from asmcfg.sources.lines import Meter

T = TypeVar("T")
Windows = Callable[[int, int, "Meter | None"], Iterator[Window]]
"""Windows over bytes [from, to) of the input; the meter, if given, counts each window's bytes."""
HELD = 16 << 20
"""Bytes of finds the forked process keeps while the reader is busy before it waits for it (about 200,000
compilations' worth)."""
FORK = hasattr(os, "fork")
"""True where this process can be forked (not on Windows)."""
Reducer = Callable[[Any], tuple[Any, ...]]
"""How pickle sends an object of some class: (a callable, its arguments) that rebuild it."""


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
        if not FORK:
            return search(self._windows(0, self._size, self._meter))
        return self._split(search)

    def _split(self, search: Search[T]) -> Iterator[T]:
        windows, cut, size = self._windows, self._cut, self._size
        pid, read = _fork(lambda fd: _search_and_send(search, windows(cut, size, None), fd))  # after the cut
        waited = False
        try:
            yield from search(self._windows(0, self._cut, self._meter))
            reached = self._cut
            with open(read, "rb", closefd=False) as pipe:
                for end, found in _received(pipe):
                    if self._meter is not None:
                        self._meter(end - reached)
                    reached = end
                    yield from found
            os.waitpid(pid, 0)  # it exits once its pipe ends
            waited = True
            if reached < self._size:  # it failed: search here what it did not send
                yield from search(self._windows(reached, self._size, self._meter))
        finally:
            os.close(read)
            if not waited:  # what it finds is no longer wanted
                _end(pid)


class Forked(Generic[T]):
    """`function()` run in a forked process from the start, its result sent back pickled (with `reducers` for
    classes pickle cannot rebuild as they are, e.g. frozen records of the compiled build)."""

    __slots__ = ("_pid", "_read")

    def __init__(self, function: Callable[[], T], reducers: dict[type, Reducer]) -> None:
        self._pid, self._read = _fork(lambda fd: _compute_and_send(function, reducers, fd))

    def result(self) -> T | None:
        """Wait for the result; None when the forked process failed. Once only."""
        with open(self._read, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self._pid, 0)
        self._pid = 0
        return pickle.loads(data) if status == 0 and data else None

    def cancel(self) -> None:
        """Stop the forked process unless its result was taken."""
        if self._pid:
            os.close(self._read)
            _end(self._pid)
            self._pid = 0


def _fork(child: Callable[[int], None]) -> tuple[int, int]:
    """A forked process that runs `child` with the write end of a pipe and exits, status 0 once it returned and 1
    if it raised, without returning to the caller; here, its pid and the pipe's read end."""
    read, write = os.pipe()
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        raise
    if pid == 0:
        status = 1
        try:
            die_with_parent(parent)
            os.close(read)
            child(write)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    return pid, read


_PR_SET_PDEATHSIG = 1
"""prctl option: the signal the kernel sends this process when the thread that forked it ends (Linux)."""


def die_with_parent(parent: int) -> None:
    """In a forked process: be killed when `parent` (the process that forked this one) ends, even by SIGKILL,
    rather than run on as an orphan; exit now if it has ended already. Linux only (prctl); elsewhere nothing."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it ended before the kernel was told
        os._exit(1)


def _compute_and_send(function: Callable[[], T], reducers: dict[type, Reducer], fd: int) -> None:
    """In the forked process: send `function()` pickled."""
    with open(fd, "wb") as pipe:
        pickler = pickle.Pickler(pipe, pickle.HIGHEST_PROTOCOL)
        pickler.dispatch_table = {**copyreg.dispatch_table, **reducers}
        pickler.dump(function())


def _search_and_send(search: Search[T], windows: Iterator[Window], fd: int) -> None:
    """In the forked process: send what `search` finds, window by window, and what it finds after the last."""
    sender = _Sender(fd)
    found: list[T] = []
    ended = [-1]

    def searched() -> Iterator[Window]:
        for window in windows:
            yield window  # `search` takes the next window once it has yielded all it found in this one
            ended[0] = window[0] + window[3]
            sender.send(pickle.dumps((ended[0], found), pickle.HIGHEST_PROTOCOL))
            found.clear()

    for item in search(searched()):
        found.append(item)
    if found and ended[0] >= 0:
        sender.send(pickle.dumps((ended[0], found), pickle.HIGHEST_PROTOCOL))
    sender.close()


class _Sender:
    """Writes to the pipe without waiting while it is full (the reader is busy with its own part): what does not
    fit is kept and sent later, unless more than HELD bytes are kept, and all of it at the end."""

    __slots__ = ("_fd", "_pending")

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending = bytearray()
        os.set_blocking(fd, False)

    def send(self, data: bytes) -> None:
        """Write `data` after what is kept, as far as the pipe has room (waiting for room past HELD bytes)."""
        self._pending += data
        self._write(len(self._pending) > HELD)

    def close(self) -> None:
        """Write all that is kept, waiting for room, and close the pipe."""
        self._write(True)
        os.close(self._fd)

    def _write(self, wait: bool) -> None:
        if wait:
            os.set_blocking(self._fd, True)
        try:
            while self._pending:
                del self._pending[: os.write(self._fd, self._pending)]
        except BlockingIOError:
            pass
        finally:
            if wait:
                os.set_blocking(self._fd, False)


def _received(pipe: io.BufferedReader) -> Iterator[tuple[int, list[Any]]]:
    """(end of the window, its finds) for each window the forked process searched, until its pipe ends."""
    while True:
        try:
            yield pickle.load(pipe)
        except (EOFError, pickle.UnpicklingError):
            return


def _end(pid: int) -> None:
    """Stop the forked process and wait for it."""
    os.kill(pid, signal.SIGKILL)  # not waited for yet, so it is still ours even if it has exited
    os.waitpid(pid, 0)
