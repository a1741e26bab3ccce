"""SIGTERM and SIGHUP (a CI cancel, `timeout`, `docker stop`, a closed terminal) stop a run as Ctrl-C does.

While a run is guarded, each of them raises `Stopped`, a KeyboardInterrupt, in the main thread: the code that
cleans up after Ctrl-C (temp files of the outputs removed, worker processes ended) runs the same way, and the
guard exits with 128 + the signal's number. A signal the caller ignores (`nohup`) stays ignored.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

CAUGHT = (signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a run as Ctrl-C does."""


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal other than SIGINT."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        """The signal's number: the exit status is 128 + it."""

    @property
    def name(self) -> str:
        """SIGTERM, SIGHUP."""
        return signal.Signals(self.signum).name


def _stop(signum: int, frame: FrameType | None) -> None:
    """Raise Stopped once; later signals are ignored while the run cleans up (SIGKILL still ends it)."""
    for caught in CAUGHT:
        signal.signal(caught, signal.SIG_IGN)
    raise Stopped(signum)


@contextlib.contextmanager
def stopping() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise `Stopped` (outside the main thread: nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {caught: signal.getsignal(caught) for caught in CAUGHT}
    for caught, handler in previous.items():
        if handler is signal.SIG_DFL:
            signal.signal(caught, _stop)
    try:
        yield
    finally:
        for caught, handler in previous.items():
            if handler is not None:  # None: not set from Python, left as it is
                signal.signal(caught, handler)
