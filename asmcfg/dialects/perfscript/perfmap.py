"""`-XX:+DumpPerfMapAtExit`'s `/tmp/perf-<pid>.map`: the code blobs alive when the JVM exited, with names.

Each line is `0x<start> 0x<size> <name>`. It names the JIT-made code that is no compilation (`Interpreter`,
`vtable chunks`, stubs, adapters); it lists only the code alive at exit, so it never decides which compilation
a sample ran in.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from asmcfg.sources.lines import read_lines
from asmcfg.sources.numbers import number


@dataclass(frozen=True, slots=True)
class PerfMap:
    """The blobs of a perf map, by address."""

    starts: tuple[int, ...]
    """Start addresses, ascending."""
    ends: tuple[int, ...]
    """One past each blob's last byte."""
    names: tuple[str, ...]
    """Each blob's name."""

    def name(self, ip: int) -> str | None:
        """The name of the blob holding `ip`, None when none does."""
        k = bisect.bisect_right(self.starts, ip) - 1
        return self.names[k] if k >= 0 and ip < self.ends[k] else None


def read_perf_map(path: str) -> PerfMap:
    """The blobs of the perf map file `path` (lines that are not `0x<start> 0x<size> <name>` are passed over)."""
    rows: list[tuple[int, int, str]] = []
    for line in read_lines(path):
        start, size, name = [*line.text.split(maxsplit=2), "", "", ""][:3]
        begin, length = number(start, 16), number(size, 16)
        if begin is not None and length is not None and length > 0:
            rows.append((begin, begin + length, name.strip()))
    rows.sort()
    return PerfMap(tuple(r[0] for r in rows), tuple(r[1] for r in rows), tuple(r[2] for r in rows))
