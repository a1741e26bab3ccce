"""The recording's part of the summary: where the JVM's samples ran, and its hottest compilations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from asmcfg import describe
from asmcfg.facts.recording import HotCompilation, PlaceShare
from asmcfg.terminal import visible

PLAIN: dict[str, Any] = {"highlight": False, "markup": False, "soft_wrap": True}


def write_places(pid: int, events: Sequence[str], total: int, rows: Sequence[PlaceShare], console: Console,
                 main: str | None = None) -> None:
    """One line: where the JVM's samples ran, each place with its share and its busiest names; the JVM named by
    its pid and its main class or jar (`main`) when known."""
    parts = []
    for row in rows:
        named = ", ".join(f"{name} {share:.2f}%" for name, share in row.parts)
        parts.append(f"{describe.PLACE_LABELS[row.place.value]} {row.share:.2f}%" + (f" ({named})" if named else ""))
    who = f"pid {pid}" + (f" ({main})" if main else "")
    console.print(visible(f"{who}: {total:,} {' / '.join(events)} samples: " + "; ".join(parts)), **PLAIN)


def write_hottest(rows: Sequence[HotCompilation], console: Console, title: str) -> None:
    """The hottest compilations as a table."""
    table = Table(title=title, title_justify="left")
    for name in ("share", "samples", "id", "compiler", "tier", "method", "code in the log"):
        table.add_column(name)
    for row in rows:
        one = row.sampled
        method = one.method + {"osr": " (OSR)", "c2n": " (native wrapper)"}.get(one.kind, "")
        table.add_row(f"{row.share:.2f}%", f"{one.samples:,}", str(one.compile_id), one.compiler.value,
                      "" if one.level is None else str(one.level), visible(method),
                      "yes" if one.printed else "no (not printed)")
    console.print(table)
