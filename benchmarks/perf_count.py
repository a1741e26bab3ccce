"""An independent counter of perf samples per HotSpot compilation, for checking `asmcfg record` folders.

It reads a LogCompilation log (`<hotspot_log process= time_ms=>`, `<command>`, the `<nmethod>` records, and per
`<task>` the methods it inlined) and `perf script -F comm,pid,tid,time,period,event,ip,sym,dso --ns` text, and
bins each sample of the log's process by the rule of `asmcfg record`: a sample whose address lies in a
compilation's `[address, address+size)` belongs to it; where several held the address during the run, to the one
created last no later than the sample's time plus 5 ms (the log's clock: `time_ms` + `stamp`). It uses no asmcfg
code. On the corpus's record runs its samples per compile id equal their `truth.json`.
"""

from __future__ import annotations

import bisect
import lzma
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

WINDOW = 0.005
"""Seconds a sample may come before its compilation's creation stamp (the clocks agree to about a millisecond)."""
NMETHOD = re.compile(r"<nmethod (.*?)/?>")
ATTR = re.compile(r"(\w+)='([^']*)'")
SAMPLE = re.compile(r"^\s*(.*?)\s+(\d+)/(\d+)\s+(\d+\.\d+):\s+(\d+)\s+(\S+?):\s+([0-9a-f]+)\s")


@dataclass(frozen=True, slots=True)
class Compilation:
    """One `<nmethod>` record of a log."""

    compile_id: int
    """The log's compile id."""
    method: str
    """`Class name (signature)` as the log writes it."""
    compiler: str
    """`c1` or `c2`."""
    kind: str
    """`standard`, `osr`, `c2n`..."""
    address: int
    """Start of the nmethod ("total in heap")."""
    size: int
    """Bytes from `address`."""
    stamp: float
    """Creation time, seconds on the log's clock."""


@dataclass(slots=True)
class JvmLog:
    """What the counter needs from one JVM's LogCompilation log."""

    pid: int
    """The JVM's process id."""
    time_ms: int
    """Wall-clock milliseconds of the log's time zero."""
    command: str
    """The `<command>` the JVM ran (its main class or jar and arguments)."""
    compilations: list[Compilation] = field(default_factory=list)
    """Every `<nmethod>` record."""
    inlined: dict[int, set[str]] = field(default_factory=dict)
    """Compile id -> `Class name` of the methods its `<task>` inlined."""

    def compiled(self, fragment: str) -> bool:
        """Whether a compiled method's name holds `fragment`."""
        return any(fragment in c.method for c in self.compilations)

    def holds(self, c: Compilation, method: str) -> bool:
        """Whether the compilation is of `method` (`Class name`) or inlines it."""
        return c.method.startswith(method + " ") or method in self.inlined.get(c.compile_id, set())


def read_log(path: Path) -> JvmLog:
    """The log's pid, clock, command, `<nmethod>` records and, per `<task>`, the methods it inlined."""
    opener = lzma.open if path.suffix == ".xz" else open
    log: JvmLog | None = None
    klasses: dict[str, str] = {}
    methods: dict[str, str] = {}
    task, call, in_command = -1, "", False
    with opener(path, "rt", encoding="utf-8", errors="replace") as text:
        for line in text:
            if in_command:
                in_command = not line.startswith("</command>")
                if in_command and log is not None:
                    log.command += line.strip()
            elif line.startswith("<hotspot_log "):
                attrs = dict(ATTR.findall(line))
                log = JvmLog(int(attrs["process"]), int(attrs["time_ms"]), "")
            elif line.startswith("<command>"):
                in_command = True
            elif line.startswith("<nmethod ") and log is not None:
                log.compilations.append(compilation(dict(ATTR.findall(line))))
            elif line.startswith("<task "):
                task, klasses, methods = int(dict(ATTR.findall(line))["compile_id"]), {}, {}
            elif line.startswith(("<klass ", "<method ")) and task >= 0:
                attrs = dict(ATTR.findall(line))
                if line.startswith("<klass "):
                    klasses[attrs["id"]] = attrs["name"].replace("/", ".")
                else:
                    methods[attrs["id"]] = f"{klasses.get(attrs['holder'], '?')} {attrs['name']}"
            elif line.startswith("<call ") and task >= 0:
                call = dict(ATTR.findall(line)).get("method", "")
            elif line.startswith("<inline_success") and task >= 0 and log is not None:
                log.inlined.setdefault(task, set()).add(methods.get(call, "?"))
            elif line.startswith("</task>"):
                task = -1
    if log is None:
        raise SystemExit(f"{path}: no <hotspot_log> element")
    return log


def compilation(attrs: dict[str, str]) -> Compilation:
    """One `<nmethod>` record's fields."""
    return Compilation(int(attrs["compile_id"]), attrs.get("method", "?"), attrs.get("compiler", "?"),
                       attrs.get("compile_kind", "standard"), int(attrs["address"], 16), int(attrs["size"]),
                       float(attrs["stamp"]))


Sample = tuple[float, int, int]
"""One perf sample: time (seconds, CLOCK_REALTIME), instruction address, thread id."""


def read_samples(path: Path, pids: set[int]) -> dict[int, list[Sample]]:
    """Every sample of `pids`, per pid."""
    opener = lzma.open if path.suffix == ".xz" else open
    samples: dict[int, list[Sample]] = {pid: [] for pid in pids}
    with opener(path, "rt", encoding="utf-8", errors="replace") as text:
        for line in text:
            match = SAMPLE.match(line)
            if match and int(match[2]) in samples:
                samples[int(match[2])].append((float(match[4]), int(match[7], 16), int(match[3])))
    return samples


def owners(log: JvmLog, samples: list[Sample]) -> list[int]:
    """Per sample, the compile id it belongs to by the binning rule (-1: in no compilation)."""
    ordered = sorted(log.compilations, key=lambda c: c.address)
    starts = [c.address for c in ordered]
    widest = max((c.size for c in ordered), default=0)
    result = []
    for when, ip, _ in samples:
        jvm_time = when - log.time_ms / 1000
        best: Compilation | None = None
        i = bisect.bisect_right(starts, ip) - 1
        while i >= 0 and starts[i] > ip - widest:
            c = ordered[i]
            if ip < c.address + c.size and c.stamp <= jvm_time + WINDOW and (best is None or c.stamp > best.stamp):
                best = c
            i -= 1
        result.append(best.compile_id if best else -1)
    return result


def bin_samples(log: JvmLog, samples: list[Sample]) -> Counter[int]:
    """Samples per compile id (key -1: in no compilation)."""
    return Counter(owners(log, samples))
