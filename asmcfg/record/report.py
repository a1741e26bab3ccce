"""What `asmcfg record` says once the program ended: each recorded JVM's hottest compilations, where its
samples ran, and how to open the rest."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from rich.console import Console

from asmcfg.errors import AsmcfgError
from asmcfg.terminal import visible

SHOWN_JVMS = 3
"""JVMs whose hottest compilations are shown (the busiest); the others are named."""
HOTTEST = 10
UNWRAPPED = 200
"""Width of the tables when stderr is no terminal (a log keeps each row whole)."""
"""Compilations shown per JVM."""


def after_record(folder: Path, out: TextIO, mains: Mapping[int, str] | None = None) -> None:
    """The summary of the folder on `out`, each JVM named by its pid and its main class or jar (`mains`); a
    problem reading it is one line: the folder stays as written."""
    terminal = out.isatty()
    console = Console(file=out, highlight=False, markup=False, emoji=False, soft_wrap=not terminal,
                      width=None if terminal else UNWRAPPED)
    try:
        _summary(folder, console, mains or {})
    except AsmcfgError as problem:
        console.print(visible(f"asmcfg: {problem}"))
    where = shlex.quote(str(folder))
    console.print(visible(f"open: asmcfg {where} (the hottest compilation; --html FILE for its page), "
                          f"asmcfg {where} --list, asmcfg serve {where}"))


def _summary(folder: Path, console: Console, mains: Mapping[int, str]) -> None:
    from asmcfg.dialects.heatfiles import read_recordings
    from asmcfg.facts.recording import hottest, places
    from asmcfg.record.unlogged import unlogged
    from asmcfg.render.recording import write_hottest, write_places
    from asmcfg.run.recorded import SCRIPT_NAMES, logs

    found = logs(str(folder))
    script = next((folder / n for n in SCRIPT_NAMES if (folder / n).is_file()), None)
    if script is None:
        jvms = ", ".join(_who(pid, mains) for pid in sorted(found))
        console.print(visible(f"recorded {len(found)} JVM(s) without heat (perf did not record): {jvms}"))
        return
    heats = sorted(read_recordings(str(script), list(found.values())), key=lambda h: -h.places.get("nmethod", 0))
    for heat in heats[:SHOWN_JVMS]:
        write_places(heat.pid, heat.events, heat.total, places(heat), console, mains.get(heat.pid))
        title = f"Hottest compilations of {_who(heat.pid, mains)}"
        write_hottest(hottest(heat, HOTTEST), console, title)
    rest = heats[SHOWN_JVMS:]
    if rest:
        pids = ", ".join(_who(h.pid, mains) for h in rest)
        console.print(visible(f"{len(rest)} more JVM(s) recorded ({pids}): asmcfg {shlex.quote(str(folder))} "
                              "--pid PID --list"))
    for line in unlogged(str(script), heats):
        console.print(visible(line))


def _who(pid: int, mains: Mapping[int, str]) -> str:
    """`pid 123 (Main)`, or `pid 123` when the log names no main class."""
    return f"pid {pid} ({mains[pid]})" if pid in mains else f"pid {pid}"
