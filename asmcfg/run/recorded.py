"""A record folder as an input: `asmcfg DIR` reads the log of one JVM it holds, with the samples of that JVM.

A folder (as `asmcfg record` writes it) holds `jvmpid<PID>.xml` per JVM that ran, `perf-script.txt` when `perf`
recorded, and `perf-<PID>.map`; each file plain or compressed. With several JVMs, `--pid` chooses one; without
it the JVM with the most samples in compiled code is read (or, without samples, the largest log), and stderr says
which and how to choose another.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from asmcfg.errors import InputError, SelectionError
from asmcfg.terminal import visible

if TYPE_CHECKING:
    from rich.console import Console

    from asmcfg.dialects.heat import Recording
    from asmcfg.run.options import Options

HOTTEST = 10
"""Compilations the hottest table of a recording shows."""
LOG_NAME = re.compile(r"jvmpid([0-9]{1,10})\.xml(?:\..*)?")
"""A JVM's log: `-XX:LogFile=jvm%p.xml` expands `%p` to `pid<PID>`; a compressed copy has a suffix more."""
SCRIPT_NAMES = ("perf-script.txt", "perf-script.txt.xz", "perf-script.txt.gz")
"""Where the folder keeps `perf script`'s text."""


@dataclass(frozen=True, slots=True)
class Recorded:
    """What one JVM of a record folder gives a run."""

    folder: str
    """The folder, as given."""
    log: str
    """The JVM's LogCompilation log (the input)."""
    perf_script: str | None
    """The recording's `perf script` text, None when `perf` did not record."""
    pid: int
    """The JVM's process id."""
    note: str | None
    """What stderr says of the choice when several JVMs ran, else None."""


def logs(folder: str) -> dict[int, str]:
    """The folder's LogCompilation logs by pid (`jvmpid<PID>.xml`, plain or compressed; the plain one first)."""
    found: dict[int, str] = {}
    for entry in sorted(os.listdir(folder)):
        named = LOG_NAME.fullmatch(entry)
        if named is not None:
            found.setdefault(int(named.group(1)), os.path.join(folder, entry))
    return found


def resolve(path: str, pid: int | None = None) -> Recorded | None:
    """The JVM of the record folder `path` a run reads; None when `path` is no folder."""
    if path == "-" or not os.path.isdir(path):
        return None
    found = logs(path)
    if not found:
        raise InputError("is a directory, not a HotSpot log (give a file) nor an `asmcfg record` folder (no "
                         "`jvmpid<PID>.xml` log in it)", path)
    script = next((os.path.join(path, n) for n in SCRIPT_NAMES if os.path.isfile(os.path.join(path, n))), None)
    if pid is not None:
        if pid not in found:
            raise SelectionError(f"--pid {pid}: no such JVM here; the folder holds pids {_pids(found)}", path)
        return Recorded(path, found[pid], script, pid, None)
    if len(found) == 1:
        (only, log), = found.items()
        return Recorded(path, log, script, only, None)
    chosen, why = _busiest(found, script)
    note = (f"{len(found)} JVMs recorded (pids {_pids(found)}): reading pid {chosen}, {why}; --pid chooses "
            "another")
    return Recorded(path, found[chosen], script, chosen, note)


def _pids(found: dict[int, str]) -> str:
    return ", ".join(str(p) for p in sorted(found))


def _busiest(found: dict[int, str], script: str | None) -> tuple[int, str]:
    """The JVM with the most samples in compiled code, else the one with the largest log."""
    if script is not None:
        from asmcfg.dialects.heatfiles import jit_samples

        counts = jit_samples(script, list(found))
        best = max(sorted(counts), key=lambda p: counts[p])
        if counts[best]:
            return best, f"the one with the most samples in JIT-made code ({counts[best]:,})"
    best = max(sorted(found), key=lambda p: os.path.getsize(found[p]))
    return best, "the one with the largest log"


def apply(options: Options) -> Options:
    """A record folder's input: the log of its chosen JVM, with the recording's samples as the profile."""
    found = chosen(options.input, options.pid, options.quiet)
    if found is None:
        return options
    return replace(options, input=found.log, profile=options.profile or found.perf_script)


def chosen(path: str, pid: int | None, quiet: bool) -> Recorded | None:
    """`resolve`, saying on stderr (unless `quiet`) which JVM was chosen when several ran."""
    found = resolve(path, pid)
    if found is not None and found.note is not None and not quiet:
        sys.stderr.write(visible(found.note) + "\n")
    return found


def say_hottest(heat: Recording) -> None:
    """The recording's hottest compilations, on stderr."""
    from asmcfg.facts.recording import hottest
    from asmcfg.render.recording import write_hottest
    from asmcfg.render.summary import stderr_console

    title = f"Hottest compilations of pid {heat.pid} ({' / '.join(heat.events)}, {heat.source})"
    write_hottest(hottest(heat, HOTTEST), stderr_console(), title)


def say_places(heat: Recording, err: Console) -> None:
    """Where the recorded JVM's samples ran."""
    from asmcfg.facts.recording import places
    from asmcfg.render.recording import write_places

    write_places(heat.pid, heat.events, heat.total, places(heat), err)
    if heat.unparsed:
        err.print(visible(f"{heat.source}: {heat.unparsed:,} lines are no `perf script -F comm,pid,tid,time,period,"
                          "event,ip,sym,dso --ns` sample (left out)"), highlight=False, markup=False)
