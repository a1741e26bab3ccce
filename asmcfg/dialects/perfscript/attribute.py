"""Each `perf` sample of a recorded JVM, put on the compilation that held its address when it ran.

The rule: a sample of the JVM's process whose address lies in an nmethod's `[address, address + size)` belongs
to that compilation. The code cache reuses the space of freed code, so several compilations may have held an
address during the run: the sample goes to the one installed last (the largest log `stamp`) no later than the
sample's time plus `SLACK_NS`. A sample that a JVMCI compiler thread took in compiled code is the JIT
compiler's own work (jargraal runs as Java code, mostly compiled by C1), counted under `Place.JIT_COMPILER` and
its thread, not on the compilation. The log's clock is `perf` time minus the log's `time_ms` (both CLOCK_REALTIME
when recorded with `-k CLOCK_REALTIME`), good to about a millisecond. Every other sample is counted by where it
ran (`Place`) and by thread, never dropped.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from asmcfg.dialects.perfscript.codecache import CodeCache, Compiled
from asmcfg.dialects.perfscript.perfmap import PerfMap
from asmcfg.dialects.perfscript.samples import KERNEL_DSO, Sample
from asmcfg.errors import InputError
from asmcfg.model import Place

SLACK_NS = 5_000_000
"""A sample may come this long before its compilation's logged stamp (the two clocks agree to ~1 ms; the
stamp has 1 ms resolution)."""
MAX_OVERLAP = 1_000
"""Compilations that may have held one address during a run: more is no code cache a JVM writes, and would
make binning cost more than linear time."""
JVMCI_THREADS = ("JVMCI CompilerT", "JVMCI-native Co")
"""The names perf gives a JVMCI compiler thread (`JVMCI CompilerThread0`, libgraal's `JVMCI-native
CompilerThread0`, cut to 15 characters)."""
BEFORE = "before the compilation at its address was installed"
"""The name under `Place.CODE_CACHE` of a sample in a compilation's bytes earlier than any holder's stamp."""


@dataclass(frozen=True, slots=True)
class Occupants:
    """Which compilations held each stretch of the code cache, oldest first."""

    bounds: tuple[int, ...]
    """Start address of each stretch, ascending (a stretch runs to the next bound)."""
    held: tuple[tuple[Compiled, ...], ...]
    """The compilations whose bytes cover each stretch, by install stamp."""
    stamps: tuple[tuple[int, ...], ...]
    """Their install stamps, for a binary search by time."""

    def holder(self, ip: int, when_ns: int) -> tuple[Compiled | None, int]:
        """The compilation the sample at `ip`, taken `when_ns` after the log's time zero, ran in (None when
        none did), and how many compilations held `ip` during the run."""
        k = bisect.bisect_right(self.bounds, ip) - 1
        if k < 0 or not self.held[k]:
            return None, 0
        i = bisect.bisect_right(self.stamps[k], when_ns + SLACK_NS) - 1
        return (self.held[k][i] if i >= 0 else None), len(self.held[k])


def occupants(cache: CodeCache) -> Occupants:
    """The stretches of the code cache each set of compilations held (one sweep over their bounds)."""
    opens: dict[int, list[Compiled]] = {}
    closes: dict[int, list[Compiled]] = {}
    for each in cache.compiled:
        opens.setdefault(each.start, []).append(each)
        closes.setdefault(each.end, []).append(each)
    active: dict[int, Compiled] = {}
    bounds: list[int] = []
    held: list[tuple[Compiled, ...]] = []
    for point in sorted(opens.keys() | closes.keys()):
        for each in closes.get(point, ()):
            del active[each.order]
        for each in opens.get(point, ()):
            active[each.order] = each
        if len(active) > MAX_OVERLAP:
            raise InputError(f"more than {MAX_OVERLAP:,} compilations held address 0x{point:x}: not a code cache "
                             "a JVM writes", cache.source)
        bounds.append(point)
        held.append(tuple(sorted(active.values(), key=lambda c: (c.stamp_ns, c.order))))
    return Occupants(tuple(bounds), tuple(held), tuple(tuple(c.stamp_ns for c in h) for h in held))


@dataclass(slots=True)
class CompilationSamples:
    """The samples one compilation took."""

    compiled: Compiled
    """Which compilation."""
    ips: dict[int, Counter[str]] = field(default_factory=dict)
    """Samples per instruction address, per event."""

    @property
    def total(self) -> int:
        """All its samples."""
        return sum(sum(c.values()) for c in self.ips.values())


@dataclass(slots=True)
class ThreadSamples:
    """The samples of one thread of the JVM."""

    comm: str
    """Its name as perf cut it (`java` is the main thread, `C2 CompilerThre`, `GC Thread#0`)."""
    places: Counter[str] = field(default_factory=Counter)
    """Samples per place label (`nmethod`, `libjvm.so`, `other: libc.so.6`)."""


@dataclass(slots=True)
class Attribution:
    """Every sample of a recording, counted against one JVM's log."""

    pid: int
    """The JVM's process id."""
    events: list[str] = field(default_factory=list)
    """Event names in the order they first appear."""
    process: Counter[str] = field(default_factory=Counter)
    """The JVM's samples per event."""
    others: Counter[int] = field(default_factory=Counter)
    """Samples of other processes (a launcher script, perf itself), per pid."""
    compilations: dict[int, CompilationSamples] = field(default_factory=dict)
    """Samples of each compilation, by compile id."""
    places: Counter[str] = field(default_factory=Counter)
    """The JVM's samples per place label."""
    code_cache: Counter[str] = field(default_factory=Counter)
    """Samples in JIT-made code that is no compilation, per name from the perf map."""
    threads: dict[tuple[int, str], ThreadSamples] = field(default_factory=dict)
    """The JVM's samples per thread id and name (a thread renamed while it ran shows under each name)."""
    reused: int = 0
    """Samples at addresses several compilations held during the run (resolved by time)."""
    first_ns: int | None = None
    """Time of the JVM's first sample on the log's clock."""
    last_ns: int | None = None
    """Time of its last sample on the log's clock."""

    @property
    def total(self) -> int:
        """The JVM's samples, every event together."""
        return sum(self.process.values())


def attribute_each(samples: Iterable[Sample], jvms: Sequence[tuple[CodeCache, PerfMap | None]]) -> list[Attribution]:
    """For each JVM of one recording (its log's code cache and its perf map), its samples binned to its
    compilations and the rest counted by place and thread, reading the samples once; each JVM's `others` are the
    samples of every other process, the other JVMs included."""
    binners = {cache.pid: _Binner(cache, names) for cache, names in jvms}
    processes: Counter[int] = Counter()
    for sample in samples:
        processes[sample.pid] += 1
        binner = binners.get(sample.pid)
        if binner is not None:
            binner.add(sample)
    for pid, binner in binners.items():
        binner.found.others.update({other: n for other, n in processes.items() if other != pid})
    return [binners[cache.pid].found for cache, _ in jvms]


class _Binner:
    """One JVM's code cache by stretch, its clock, its perf map, and what its samples counted so far."""

    def __init__(self, cache: CodeCache, names: PerfMap | None) -> None:
        self.held = occupants(cache)
        self.zero = cache.time_ms * 1_000_000
        self.names = names
        self.found = Attribution(cache.pid)

    def add(self, sample: Sample) -> None:
        """Count one sample of the JVM: on the compilation that held its address then, else by place."""
        found = self.found
        when = sample.time_ns - self.zero
        _count(found, sample, when)
        compiled, holders = self.held.holder(sample.ip, when)
        found.reused += holders > 1
        if compiled is not None and sample.comm.startswith(JVMCI_THREADS):
            place = Place.JIT_COMPILER.value
        elif compiled is not None:
            place = Place.NMETHOD.value
            entry = found.compilations.setdefault(compiled.record.compile_id, CompilationSamples(compiled))
            entry.ips.setdefault(sample.ip, Counter())[sample.event] += 1
        else:
            place = _place(sample, holders > 0, self.names, found.code_cache)
        found.places[place] += 1
        thread = found.threads.setdefault((sample.tid, sample.comm), ThreadSamples(sample.comm))
        thread.places[place] += 1


def _count(found: Attribution, sample: Sample, when: int) -> None:
    if sample.event not in found.process:
        found.events.append(sample.event)
    found.process[sample.event] += 1
    if found.first_ns is None or when < found.first_ns:
        found.first_ns = when
    if found.last_ns is None or when > found.last_ns:
        found.last_ns = when


def _place(sample: Sample, in_code: bool, names: PerfMap | None, code_cache: Counter[str]) -> str:
    """The place label of a sample in no compilation; a code cache sample's name is counted in `code_cache`."""
    if in_code or sample.dso.startswith("/tmp/perf-") or sample.dso == "//anon":
        name = BEFORE if in_code else (names.name(sample.ip) if names is not None else None) or "unnamed"
        code_cache[name] += 1
        return Place.CODE_CACHE.value
    if sample.dso == KERNEL_DSO or sample.dso.startswith("[kernel"):
        return Place.KERNEL.value
    library = sample.dso.rsplit("/", 1)[-1]
    return Place.LIBJVM.value if library == "libjvm.so" else f"{Place.OTHER.value}: {library}"


def by_compile(found: Attribution, ids: Sequence[int]) -> list[CompilationSamples]:
    """The compilations of `ids` that took samples, hottest first."""
    return sorted((found.compilations[i] for i in ids if i in found.compilations), key=lambda c: -c.total)
