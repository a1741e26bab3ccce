"""A recording's samples as asmcfg's heat: what `--profile perf-script.txt` or a record folder puts on a
compilation of the same JVM.

Heat is each event's samples as a percent of the JVM's samples of that event, per instruction address; the
counts stay beside it. A compilation gets the samples binned to its compile id, once its instructions lie in
the bytes the log's `<nmethod>` record gives it (so a log of another run never lends its heat).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from asmcfg.dialects.heat import OverlayReport, Recording, Sampled
from asmcfg.dialects.perfscript.attribute import Attribution, CompilationSamples, attribute_each
from asmcfg.dialects.perfscript.codecache import CodeCache, read_code_cache
from asmcfg.dialects.perfscript.perfmap import PerfMap, read_perf_map
from asmcfg.dialects.perfscript.samples import Reading, Sample, samples
from asmcfg.model import Method, Profile
from asmcfg.model.timeline import Window
from asmcfg.sources.lines import display_name, read_lines


@dataclass(frozen=True, slots=True)
class PerfHeat(Recording):
    """The samples of one recorded JVM, binned to its compilations."""

    source: str
    """The `perf script` file."""
    log: str
    """The LogCompilation log whose `<nmethod>` records placed the compilations."""
    found: Attribution = field(repr=False)
    """What the samples counted."""
    printed: frozenset[int] = frozenset()
    """Compile ids whose code the log prints."""
    unparsed: int = 0
    """Lines of the `perf script` file that were not samples."""

    @property
    def events(self) -> tuple[str, ...]:
        """The recorded events, in the order they first appear."""
        return tuple(self.found.events)

    @property
    def pid(self) -> int:
        return self.found.pid

    @property
    def total(self) -> int:
        return self.found.total

    @property
    def places(self) -> Mapping[str, int]:
        return self.found.places

    @property
    def others(self) -> Mapping[int, int]:
        return self.found.others

    @property
    def code_cache(self) -> Mapping[str, int]:
        return self.found.code_cache

    def sampled(self) -> list[Sampled]:
        return [Sampled(c.compiled.record.compile_id, c.compiled.record.compiler, c.compiled.record.level,
                        c.compiled.record.kind, c.compiled.record.method, c.total,
                        c.compiled.record.compile_id in self.printed) for c in self.hottest()]

    def put(self, method: Method) -> tuple[Method, OverlayReport]:
        """`method` with the samples of its compile id, and how they landed."""
        method, message, applied = with_heat(method, self)
        landed = method.profile.samples if applied and method.profile is not None else {}
        share = method.profile.run_share if applied and method.profile is not None else ()
        measured = applied or self._unsampled(method)  # the recording applies: it measured nothing there
        return method, OverlayReport(measured, None, len(landed), len(landed), (), share, message)

    def _unsampled(self, method: Method) -> bool:
        """True for a compilation of this JVM's log that took none of the JVM's samples."""
        compile_id = method.header.compile_id
        return (bool(self.found.total) and compile_id is not None and compile_id in self.printed
                and compile_id not in self.found.compilations)

    def measure(self, method: Method) -> Method:
        return with_heat(method, self)[0]

    def share(self, count: int) -> float:
        """`count` samples as a percent of the JVM's."""
        return 100.0 * count / self.found.total if self.found.total else 0.0

    def hottest(self) -> list[CompilationSamples]:
        """The compilations that took samples, hottest first (ties: the later compile id)."""
        return sorted(self.found.compilations.values(), key=lambda c: (-c.total, -c.compiled.record.compile_id))

    def profile(self, method: Method) -> tuple[Profile | None, str]:
        """The heat of `method`'s compile id, when its instructions lie in that compilation's bytes; and one
        sentence for the user."""
        compile_id = method.header.compile_id
        if not self.found.total:
            return None, (f"{self.source} holds no sample of pid {self.found.pid}, the JVM of {self.log}: a recording "
                          "of another run")
        taken = self.found.compilations.get(compile_id) if compile_id is not None else None
        if taken is None and self._unsampled(method):
            return None, (f"0 samples in this compilation (compile id {compile_id}; pid {self.found.pid} took "
                          f"{self.found.total:,} in all)")
        if taken is None:
            return None, f"no sample of pid {self.found.pid} ran in compile id {compile_id}"
        record = taken.compiled
        starts = {ins.address for ins in method.instructions}
        if method.instructions and not record.start <= method.instructions[0].address < record.end:
            return None, (f"compile id {compile_id} of {self.log} is not this compilation (its bytes are at "
                          f"0x{record.start:x}): a log of another run")
        heat = {ip: tuple(100.0 * c[e] / self.found.process[e] for e in self.events) for ip, c in taken.ips.items()}
        method_share = tuple(100.0 * sum(c[e] for c in taken.ips.values()) / self.found.process[e]
                             for e in self.events)
        counts = {ip: sum(c.values()) for ip, c in taken.ips.items()}
        off = sum(n for ip, n in counts.items() if ip not in starts)
        profile = Profile(self.source, self.events, heat, method_share=method_share, samples=counts)
        landed = f"{taken.total - off:,} of {taken.total:,} samples land on instruction starts"
        return profile, landed + ("" if not off else f" ({off:,} fall inside instructions)")


def read_perf_heat(perf_script: str, log: str) -> PerfHeat:
    """The samples of `perf_script` binned to the compilations of `log`'s JVM, its perf map named beside
    either file."""
    return read_perf_heats(perf_script, [log])[0]


def read_perf_heats(perf_script: str, logs: Sequence[str], window: Window = (None, None)) -> list[PerfHeat]:
    """`read_perf_heat` for each JVM log of one recording, reading `perf_script` once; with a bounded `window`
    (ms from each JVM's start), only the JVMs' samples in it."""
    caches = [read_code_cache(log) for log in logs]
    reading = Reading()
    jvms = [(cache, _perf_map(cache, perf_script, log)) for cache, log in zip(caches, logs, strict=True)]
    found = attribute_each(_within(samples(read_lines(perf_script), reading), caches, window), jvms)
    return [PerfHeat(display_name(perf_script), display_name(log), each, cache.printed, reading.unparsed)
            for log, cache, each in zip(logs, caches, found, strict=True)]


def _within(found: Iterator[Sample], caches: Sequence[CodeCache], window: Window) -> Iterator[Sample]:
    """The samples of `found` in `window` (ms on each JVM's log clock); other processes' samples all."""
    low, high = window
    if low is None and high is None:
        return found
    zeros = {cache.pid: cache.time_ms * 1_000_000 for cache in caches}
    start = -math.inf if low is None else low * 1e6
    end = math.inf if high is None else high * 1e6
    return (s for s in found if s.pid not in zeros or start <= s.time_ns - zeros[s.pid] < end)


def _perf_map(cache: CodeCache, *beside: str) -> PerfMap | None:
    """`perf-<pid>.map` (plain or compressed) in the folder of one of `beside`, read; None when there is none."""
    for path in beside:
        folder = os.path.dirname(os.path.abspath(path))
        for name in (f"perf-{cache.pid}.map", f"perf-{cache.pid}.map.xz", f"perf-{cache.pid}.map.gz"):
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return read_perf_map(candidate)
    return None


def with_heat(method: Method, heat: PerfHeat) -> tuple[Method, str, bool]:
    """`method` with its measured heat when the recording has any for it; the sentence; whether it applied."""
    profile, message = heat.profile(method)
    return (method if profile is None else replace(method, profile=profile)), message, profile is not None
