"""The processes a recording sampled that left no JVM log in the folder: which they were (their threads' name),
their share of the recording's samples, and why they have no log."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from asmcfg import describe
from asmcfg.dialects.heat import Recording
from asmcfg.dialects.heatfiles import thread_names

NAMED_SHARE = 1.0
"""Percent of the recording's samples from which a process without a log is named on a line of its own."""
SEEN = 200
"""Samples of a process read to name it: its threads' most common name among them."""
JVM_THREADS = ("java", "C1 CompilerThre", "C2 CompilerThre", "VM Thread", "GC Thread#", "G1 ", "VM Periodic Tas",
               "Reference Handl", "Finalizer", "Signal Dispatch", "Service Thread", "Common-Cleaner",
               "Sweeper thread", "Notification Th", "jspawnhelper")
"""Thread names (as perf cuts them, 15 characters) only a JVM's threads have (jspawnhelper is what a JVM execs to
start another)."""
PERF = ("perf", "perf-exec")


def unlogged(script: str, heats: Sequence[Recording]) -> list[str]:
    """One line for each process with at least NAMED_SHARE percent of the samples of the recording `script` and
    no log among `heats` (every JVM log of the folder), one for the rest together; empty when there is none."""
    if not heats:
        return []
    first = heats[0]
    counts = Counter(first.others)
    counts[first.pid] += first.total
    total = sum(counts.values())
    logged = {heat.pid for heat in heats}
    without = [(pid, n) for pid, n in counts.most_common() if pid not in logged and n]
    named = [(pid, n) for pid, n in without if 100.0 * n / total >= NAMED_SHARE]
    comms = thread_names(script, {pid for pid, _ in named}, SEEN) if named else {}
    lines = [f"pid {pid} ({comms.get(pid, '?')}) took {100.0 * n / total:.2f}% of the recording's samples and left "
             f"no log: {_why(comms.get(pid))}" for pid, n in named]
    rest = without[len(named):]
    if rest:
        share = 100.0 * sum(n for _, n in rest) / total
        lines.append(f"{describe.count(len(rest), 'more process', 'more processes')} without a log took "
                     f"{share:.2f}% of the samples")
    return lines


def _why(comm: str | None) -> str:
    """Why a process with threads named `comm` wrote no log."""
    if comm in PERF:
        return "perf itself"
    if comm is not None and comm.startswith(JVM_THREADS):
        return ("a JVM that did not get the flags (its environment lost JAVA_TOOL_OPTIONS, or its own options "
                "replaced them)")
    return "not a JVM"
