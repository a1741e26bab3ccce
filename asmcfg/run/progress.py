"""A progress bar on stderr while a large input is read: bytes read, methods found, rate.

Shown only when stderr is a terminal, the input is a file over PROGRESS_BYTES and the run is not quiet;
otherwise every call is a no-op. Rich is imported only when a bar is shown, and the bar is redrawn from
the caller's thread (no refresh thread, so worker processes can be forked safely).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

from asmcfg.sources.lines import STDIN

PROGRESS_BYTES = 4 << 20
"""Inputs at least this large (on disk) get a progress bar."""
_REDRAW = 0.1
"""Seconds between redraws."""


class Progress:
    """Counts bytes read and methods found; draws them when a bar is shown. `clock` (seconds) times the redraws and
    the rate."""

    def __init__(self, path: str = STDIN, quiet: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._bar: Any = None
        self._task: Any = None
        self._bytes = 0
        self._methods = 0
        self._drawn = 0.0
        total = _size(path)
        if quiet or total < PROGRESS_BYTES or not sys.stderr.isatty():
            return
        from rich import progress as bars
        from rich.console import Console

        columns = (
            bars.TextColumn("{task.description}"), bars.BarColumn(), bars.DownloadColumn(),
            bars.TransferSpeedColumn(), bars.TextColumn("{task.fields[methods]:,} methods"), bars.TimeRemainingColumn(),
        )
        console = Console(stderr=True, markup=False)
        self._bar = bars.Progress(*columns, console=console, auto_refresh=False, transient=True, get_time=clock)
        self._task = self._bar.add_task("reading", total=total, methods=0)
        self._bar.start()

    @property
    def shown(self) -> bool:
        """True when a bar is drawn."""
        return self._bar is not None

    def read(self, count: int) -> None:
        """`count` more bytes of the file were read."""
        self._bytes += count
        self._draw()

    def found(self, count: int = 1) -> None:
        """`count` more methods were found."""
        self._methods += count
        self._draw()

    def close(self) -> None:
        """Remove the bar."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _draw(self) -> None:
        if self._bar is None:
            return
        now = self._clock()
        if now - self._drawn < _REDRAW:
            return
        self._drawn = now
        self._bar.update(self._task, completed=self._bytes, methods=self._methods, refresh=True)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path) if path != STDIN and os.path.isfile(path) else 0
    except OSError:
        return 0
