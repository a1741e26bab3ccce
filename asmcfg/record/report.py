"""What `asmcfg record` says once the program ended: each recorded JVM's hottest compilations, where its
samples ran, and how to open the rest."""

from __future__ import annotations

import shlex
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


def after_record(folder: Path, out: TextIO) -> None:
    """The summary of the folder on `out` (a problem reading it is one line: the folder stays as written)."""
    terminal = out.isatty()
    console = Console(file=out, highlight=False, markup=False, emoji=False, soft_wrap=not terminal,
                      width=None if terminal else UNWRAPPED)
    try:
        _summary(folder, console)
    except AsmcfgError as problem:
        console.print(visible(f"asmcfg: {problem}"))
    where = shlex.quote(str(folder))
    console.print(visible(f"open: asmcfg {where} (the hottest compilation; --html FILE for its page), "
                          f"asmcfg {where} --list, asmcfg serve {where}"))


def _summary(folder: Path, console: Console) -> None:
    from asmcfg.dialects.heatfiles import read_recordings
    from asmcfg.facts.recording import hottest, places
    from asmcfg.render.recording import write_hottest, write_places
    from asmcfg.run.recorded import SCRIPT_NAMES, logs

    found = logs(str(folder))
    script = next((folder / n for n in SCRIPT_NAMES if (folder / n).is_file()), None)
    if script is None:
        console.print(visible(f"recorded {len(found)} JVM(s) without heat (perf did not record)"))
        return
    heats = sorted(read_recordings(str(script), list(found.values())), key=lambda h: -h.places.get("nmethod", 0))
    for heat in heats[:SHOWN_JVMS]:
        write_places(heat.pid, heat.events, heat.total, places(heat), console)
        title = f"Hottest compilations of pid {heat.pid}"
        write_hottest(hottest(heat, HOTTEST), console, title)
    rest = heats[SHOWN_JVMS:]
    if rest:
        pids = ", ".join(str(h.pid) for h in rest)
        console.print(f"{len(rest)} more JVM(s) recorded (pids {pids}): asmcfg {shlex.quote(str(folder))} "
                      "--pid PID --list")
