"""What a `Log` tells of its run over time: the times its LogCompilation log stamps, and a record folder's samples
of its JVM per millisecond of the log's clock (`--timeline`, serve's timeline and its time ranges)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asmcfg.model.timeline import Binned, JitLog, Window


class RunOverTime:
    """The part of `Log` about time; `Log` sets what it reads."""

    path: str
    """The LogCompilation log (of a record folder, its chosen JVM's)."""
    samples: str | None
    """A record folder's `perf script` text, None for a file or a folder without it."""
    _analysing: tuple[int | None, int, bool, Window]
    _jit: JitLog | None = None

    @property
    def window(self) -> Window:
        """The stretch of the run whose samples count (ms from the JVM's start; `(None, None)`: all of them)."""
        return self._analysing[3]

    def jit_log(self) -> JitLog:
        """The times the log stamps (compilations, code made not entrant, traps that fired), read on first use."""
        if self._jit is None:
            from asmcfg.dialects.heatfiles import read_jit_log

            self._jit = read_jit_log(self.path)
        return self._jit

    def binned(self, window: Window | None = None) -> Binned | None:
        """A record folder's samples of its JVM per millisecond of the log's clock, by category and by compilation
        (those of `window`, else of the `Log`'s own): None without samples, or when the log lacks the JVM's start
        time (no sample can then be put on its clock)."""
        jit = self.jit_log()
        if self.samples is None or jit.time_ms is None:
            return None
        from asmcfg.dialects.heatfiles import read_binned

        return read_binned(self.samples, self.path, jit, self.window if window is None else window)
