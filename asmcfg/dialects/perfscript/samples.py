"""The samples of `perf script -F comm,pid,tid,time,period,event,ip,sym,dso --ns` text, one per line.

A line reads `java  5086/5090  1795641099.678301975:  200040 cpu-clock:  7f2820ec8b94 int Hot.run(int[]) (dso)`.
The thread name (`comm`, 15 characters at most) may hold spaces (`C2 CompilerThre`), so a line is read from its
`pid/tid` field on: the fields before it are the name. Each line is split once, so reading is linear.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from asmcfg.sources.lines import Line

KERNEL_DSO = "[kernel.kallsyms]"
"""The dso perf names for kernel addresses."""


@dataclass(frozen=True, slots=True)
class Sample:
    """One sample: which thread, when, what it ran."""

    pid: int
    """Process id."""
    tid: int
    """Thread id."""
    comm: str
    """The thread's name as perf cut it (15 characters: `C2 CompilerThre`)."""
    time_ns: int
    """When, in nanoseconds of the recording's clock (CLOCK_REALTIME under `-k CLOCK_REALTIME`)."""
    period: int
    """The event's period for this sample (nanoseconds of CPU time for `cpu-clock`)."""
    event: str
    """The event's name as recorded (`cpu-clock`, `cpu-clock:u`, `cycles`)."""
    ip: int
    """The instruction address: the instruction about to run when the sample was taken."""
    dso: str
    """The mapping perf names for the address (a library path, `[kernel.kallsyms]`, `/tmp/perf-<pid>.map`)."""


@dataclass(slots=True)
class Reading:
    """What reading the samples met besides them."""

    unparsed: int = 0
    """Lines that are not a sample of the expected fields."""
    first_unparsed: int | None = None
    """Line number of the first such line."""
    lines: int = 0
    """Lines read."""


def samples(lines: Iterable[Line], reading: Reading) -> Iterator[Sample]:
    """The samples in `lines`; any other non-blank, non-comment line is counted in `reading`."""
    for line in lines:
        reading.lines += 1
        text = line.text
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        found = parse(text)
        if found is None:
            reading.unparsed += 1
            if reading.first_unparsed is None:
                reading.first_unparsed = line.number
            continue
        yield found


def parse(text: str) -> Sample | None:
    """The sample on one line, None when the line is not one."""
    words = text.split()
    at = _pid_tid_at(words)
    if at is None or len(words) < at + 5:
        return None
    pid, _, tid = words[at].partition("/")
    when, period, event, ip = words[at + 1 : at + 5]
    time_ns = _time_ns(when)
    if time_ns is None or not _digits(period) or len(period) > 20 or not event.endswith(":"):
        return None
    address = _hex(ip)
    if address is None:
        return None
    return Sample(int(pid), int(tid), " ".join(words[:at]), time_ns, int(period), event[:-1], address,
                  _dso(text))


def _pid_tid_at(words: list[str]) -> int | None:
    """The index of the `pid/tid` field: after the thread name (one word at least, 15 characters at most)."""
    for i in range(1, min(len(words), 9)):
        word = words[i]
        if "/" in word and len(word) <= 24:
            pid, _, tid = word.partition("/")
            if _digits(pid) and _digits(tid):
                return i
    return None


def _time_ns(word: str) -> int | None:
    """`1795641099.678301975:` in nanoseconds (perf's `--ns` prints nine decimals; fewer are scaled)."""
    seconds, dot, fraction = word[:-1].partition(".")
    if not word.endswith(":") or not dot or len(seconds) > 12 or len(fraction) > 9:
        return None
    if not _digits(seconds) or not _digits(fraction):
        return None
    return int(seconds) * 1_000_000_000 + int(fraction.ljust(9, "0"))


def _digits(word: str) -> bool:
    """ASCII digits only (`str.isdigit` also takes `²`, which `int` refuses)."""
    return word.isascii() and word.isdigit()


_HEX = frozenset("0123456789abcdefABCDEF")


def _hex(word: str) -> int | None:
    if not word or len(word) > 16 or not _HEX.issuperset(word):
        return None
    return int(word, 16)


def _dso(text: str) -> str:
    """The last parenthesized field: perf prints the dso last, after the symbol (which may hold parentheses)."""
    end = text.rstrip()
    if not end.endswith(")"):
        return "[unknown]"
    start = end.rfind(" (")
    return end[start + 2 : -1] if start >= 0 else "[unknown]"


def is_perf_script(head: Iterable[str]) -> bool:
    """True when the first lines that are not comments are samples (a sniff for `--profile`)."""
    checked = 0
    for text in head:
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        if parse(text) is None:
            return False
        checked += 1
        if checked == 3:
            break
    return checked > 0
