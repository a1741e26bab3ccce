"""One function run in a process of its own, what it sends coming back here in order through a pipe.

The process sends without waiting while the pipe is full (this process is busy with work of its own): what does not
fit is kept, up to HELD bytes, and sent later. A process that fails (it raised, was killed, ran out of memory) ends
its messages early: `result` says None, `received` stops, and the caller does the work itself or says why.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from asmcfg.processes import start

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

T = TypeVar("T")
Send = Callable[[Any], None]
"""What a child's function is given: sends one picklable value to the parent."""
HELD = 16 << 20
"""Bytes of messages a child keeps while its parent is busy before it waits for it (about 200,000 compilations'
worth of index records)."""
_SIZE = struct.Struct("!Q")
"""The length that goes before each message."""


class Child(Generic[T]):
    """`function(send)` run in a process started as `start.context` says (forked, with `forked`: the function holds
    what only a copy of this process has, a mapped file or a closure; the caller checks `start.forkable` first).

    `function` of a process not forked, and what it sends, must be picklable."""

    __slots__ = ("_process", "_reader")

    def __init__(self, function: Callable[[Send], None], name: str, *, forked: bool = False) -> None:
        if forked or start.forkable():  # what multiprocessing's fork context does, without loading it
            reader, writer = os.pipe()
            self._reader: _Reader | Connection = _Reader(reader)
            try:
                self._process: _Forked | BaseProcess = _Forked(function, writer, reader)
            except BaseException:
                self._reader.close()
                raise
            finally:
                os.close(writer)
            return
        context: Any = start.context()
        start.picklable()
        self._reader, pipe = context.Pipe(duplex=False)
        process: BaseProcess = context.Process(target=_run, args=(function, pipe, None), name=name)
        self._process = process
        try:
            process.start()
        except BaseException:
            self._reader.close()
            raise
        finally:
            pipe.close()

    def ready(self, timeout: float) -> bool:
        """True once a message, or the end of the messages, can be read without waiting (within `timeout` seconds)."""
        import select

        if hasattr(select, "poll"):  # select() refuses a descriptor numbered past 1023, as a busy server's may be
            poller = select.poll()
            poller.register(self._reader.fileno(), select.POLLIN)
            return len(poller.poll(timeout * 1000)) > 0
        return len(select.select([self._reader.fileno()], [], [], timeout)[0]) > 0

    def receive(self) -> Any:
        """The next message; EOFError once the process has sent its last."""
        fd = self._reader.fileno()
        head = _exactly(fd, _SIZE.size)
        body = _exactly(fd, _SIZE.unpack(head)[0]) if head is not None else None
        if body is None:
            raise EOFError
        return pickle.loads(body)

    def received(self) -> Iterator[Any]:
        """Every message, in the order sent, until the process ends."""
        while True:
            try:
                yield self.receive()
            except EOFError:
                return

    def result(self) -> T | None:
        """The one message of a process that sends one and ends; None when it failed. The process is waited for."""
        found = list(self.received())
        self._process.join()
        self._reader.close()
        return found[0] if self._process.exitcode == 0 and len(found) == 1 else None

    def ended(self) -> bool:
        """Wait for the process, which has sent its last message; True when it succeeded."""
        self._process.join()
        return self._process.exitcode == 0

    def kill(self) -> None:
        """Kill the process unless it has ended, without waiting for it: from any thread, any number of times (the
        thread that reads it still calls `cancel`)."""
        if self._process.exitcode is None:
            with contextlib.suppress(OSError, ValueError):
                self._process.kill()

    def cancel(self) -> None:
        """Stop the process unless it has ended (what it sends is no longer wanted), wait for it, close the pipe.
        Any number of times."""
        if self._process.exitcode is None:
            self._process.kill()
            self._process.join()
        if not self._reader.closed:
            self._reader.close()


def _exactly(fd: int, size: int) -> bytearray | None:
    """`size` bytes read from `fd`; None when it ends first."""
    data = bytearray(size)
    view = memoryview(data)
    got = 0
    while got < size:
        count = os.readv(fd, [view[got:]])
        if count == 0:
            return None
        got += count
    return data


def _run(function: Callable[[Send], None], writer: Connection | int, parent: int | None) -> None:
    """In the child: `function` with a sender; exit status 1, without a traceback, if it raised."""
    start.started(parent)
    sender = _Sender(writer if isinstance(writer, int) else writer.fileno())
    try:
        function(sender.send)
        sender.close()
    except BaseException:  # the parent sees the messages end early, and the status
        sys.exit(1)
    finally:
        os.close(writer) if isinstance(writer, int) else writer.close()


class _Reader:
    """The parent's end of a forked process's pipe (what `Child` reads of a multiprocessing `Connection`)."""

    __slots__ = ("_fd",)

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def fileno(self) -> int:
        return self._fd

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class _Forked:
    """A forked copy of this process that runs `_run` and exits, as multiprocessing's fork start method starts one
    (the standard streams flushed first, so that the copy holds nothing of theirs to write), without importing
    multiprocessing: a forked search of a large file costs the parent no more than `os.fork`."""

    __slots__ = ("_lock", "exitcode", "pid")

    def __init__(self, function: Callable[[Send], None], writer: int, reader: int) -> None:
        parent = os.getpid()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(AttributeError, ValueError, OSError):
                stream.flush()
        self.exitcode: int | None = None
        self._lock = _thread.allocate_lock()
        """Held to reap the process and to signal it: once reaped, its pid may be another process's."""
        self.pid = os.fork()
        if self.pid == 0:  # the copy: it never returns from here
            code = 1
            try:
                os.close(reader)
                _run(function, writer, parent)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            finally:
                for stream in (sys.stdout, sys.stderr):
                    with contextlib.suppress(AttributeError, ValueError, OSError):
                        stream.flush()
                os._exit(code)

    def join(self) -> None:
        """Wait for the process to end; its exit code then in `exitcode` (negative: the signal that ended it)."""
        if self.exitcode is None:
            if hasattr(os, "waitid"):  # ended, not reaped: its pid stays its own until reaped under the lock
                with contextlib.suppress(ChildProcessError):  # reaped by another thread's join meanwhile
                    os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)
            with self._lock:
                if self.exitcode is None:
                    _, status = os.waitpid(self.pid, 0)
                    self.exitcode = os.waitstatus_to_exitcode(status)

    def kill(self) -> None:
        """Send the process SIGKILL, unless it was waited for (never to a pid reaped meanwhile by another thread)."""
        with self._lock:
            if self.exitcode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)


class _Sender:
    """Writes messages to the pipe without waiting while it is full: what does not fit is kept and written later,
    unless more than HELD bytes are kept, and all of it at the end."""

    __slots__ = ("_fd", "_pending")

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending = bytearray()
        os.set_blocking(fd, False)

    def send(self, value: Any) -> None:
        """Write `value` pickled after what is kept, as far as the pipe has room (waiting for room past HELD bytes)."""
        start.picklable()  # the records of modules imported since go through too
        data = start.pickled(value)
        self._pending += _SIZE.pack(len(data))
        self._pending += data
        self._write(len(self._pending) > HELD)

    def close(self) -> None:
        """Write all that is kept, waiting for room."""
        self._write(True)

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
