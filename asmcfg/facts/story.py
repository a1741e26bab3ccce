"""A method over the run: its compilations one after another, what ended each, and what the time between its
top-tier versions cost; and the methods the JIT compiled again and again (storms)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from asmcfg.facts.timeline import TOP_TIER, Timeline, Version, event_dict
from asmcfg.model.timeline import Binned, Category, EventKind

STORM_COMPILATIONS = 6
"""A method compiled more often than this is flagged."""
STORM_CYCLES = 2
"""A method whose top-tier code was made not entrant and compiled again this often is flagged."""


@dataclass(frozen=True, slots=True)
class Story:
    """One method's compilations over the run."""

    method: str
    """`pkg.Class::name`."""
    versions: tuple[Version, ...]
    """Its compilations that installed code, by install time."""
    samples: tuple[tuple[int, ...], ...]
    """Each version's samples per bucket of the timeline."""
    diffs: tuple[tuple[int, int], ...]
    """Pairs of compile ids of one version and the next of the same compiler and kind."""
    cycles: int
    """How often its top-tier code was made not entrant and compiled again."""
    c1_between: int
    """Samples in its C1 code between its top-tier versions."""
    interpreted_between: int
    """Samples in the interpreter (every method's) while it had no top-tier version between two."""

    def as_dict(self) -> dict[str, Any]:
        return {"method": self.method, "versions": [_version(v, s) for v, s in zip(self.versions, self.samples,
                                                                                   strict=True)],
                "diffs": [{"old": old, "new": new} for old, new in self.diffs], "cycles": self.cycles,
                "c1_samples_between": self.c1_between, "interpreter_samples_between": self.interpreted_between}


def _version(version: Version, samples: tuple[int, ...]) -> dict[str, Any]:
    found = version.as_dict()
    found["ended_by"] = None if version.ended_by is None else event_dict(version.ended_by)
    found["bucket_samples"] = list(samples)
    return found


def story(timeline: Timeline, binned: Binned | None, method: str, mine: Sequence[Version] | None = None) -> Story:
    """The story of `method` in `timeline` (whose versions of it are `mine` when the caller has them)."""
    versions = tuple(sorted((v for v in (timeline.versions if mine is None else mine)
                             if v.task.method == method and v.start_ms is not None),
                            key=lambda v: (v.start_ms or 0, v.task.compile_id)))
    size, count = timeline.bucket_ms, len(timeline.buckets)
    rows = []
    for version in versions:
        row = [0] * count
        for ms, n in (binned.per_compilation.get(version.task.compile_id, {}) if binned is not None else {}).items():
            if count:
                row[min(count - 1, max(0, ms // size))] += n
        rows.append(tuple(row))
    diffs = []
    for n, version in enumerate(versions):
        later = next((v for v in versions[n + 1 :] if v.task.compiler is version.task.compiler
                      and v.task.kind == version.task.kind), None)
        if later is not None:
            diffs.append((version.task.compile_id, later.task.compile_id))
    cycles, c1, interpreted = _between(versions, binned)
    return Story(method, versions, tuple(rows), tuple(diffs), cycles, c1, interpreted)


def _between(versions: tuple[Version, ...], binned: Binned | None) -> tuple[int, int, int]:
    """Top-tier versions ended and followed by another; the C1 and interpreter samples in the gaps between."""
    top = [v for v in versions if v.task.compiler in TOP_TIER and v.task.kind != "osr"]
    gaps = [(a.end_ms or 0, b.start_ms or 0) for a, b in pairwise(top)
            if a.ended_by is not None and (a.end_ms or 0) <= (b.start_ms or 0)]
    if binned is None:
        return len(gaps), 0, 0
    c1_ids = [v.task.compile_id for v in versions if v.task.compiler not in TOP_TIER]
    starts = [low for low, _ in gaps]

    def between(ms: int) -> bool:
        at = bisect.bisect_right(starts, ms) - 1
        return at >= 0 and ms < gaps[at][1]

    c1 = sum(n for compile_id in c1_ids for ms, n in binned.per_compilation.get(compile_id, {}).items() if between(ms))
    interpreted = sum(counted[Category.INTERPRETER] for ms, counted in binned.per_ms.items()
                      if counted[Category.INTERPRETER] and between(ms))
    return len(gaps), c1, interpreted


def storms(timeline: Timeline, binned: Binned | None) -> list[Story]:
    """The methods compiled more than `STORM_COMPILATIONS` times or whose top-tier code was compiled again
    `STORM_CYCLES` times, most compilations first."""
    by_method: dict[str, list[Version]] = {}
    for version in timeline.versions:
        if version.start_ms is not None and version.task.kind != "c2n":
            by_method.setdefault(version.task.method, []).append(version)
    found = [story(timeline, binned, method, mine) for method, mine in by_method.items()
             if len(mine) > STORM_COMPILATIONS or _recompiled(mine) >= STORM_CYCLES]
    return sorted(found, key=lambda s: (-len(s.versions), -s.cycles, s.method))


def _recompiled(versions: Sequence[Version]) -> int:
    top = [v for v in versions if v.task.compiler in TOP_TIER and v.task.kind != "osr"]
    return sum(1 for v in top[:-1] if v.ended_by is not None)


def ended_line(version: Version) -> str:
    """What ended a version, in words."""
    stop = version.ended_by
    if stop is None:
        return version.end_reason
    if stop.kind is EventKind.UNCOMMON_TRAP:
        where = f" at {stop.method}@{stop.bci}" if stop.bci is not None else ""
        line = f" (line {stop.source_line})" if stop.source_line is not None else ""
        return f"uncommon trap {stop.reason} ({stop.action}){where}{line}, log line {stop.line}"
    return version.end_reason
