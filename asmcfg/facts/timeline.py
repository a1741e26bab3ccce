"""The run over time, derived for output: the samples in time buckets, each compilation's life from install to
its end, the log's events, and the point from which the run is warmed up."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from asmcfg import describe
from asmcfg.model import Compiler
from asmcfg.model.timeline import CATEGORIES, Binned, Category, EventKind, JitEvent, JitLog, JitTask

BUCKETS = 200
"""About how many buckets the run is cut into by default."""
WARM_SHARE = 0.9
"""The share of the samples in compiled Java code C2 (or JVMCI) code holds in a warmed-up run."""
WARM_MIN = 5
"""A bucket with fewer samples in compiled Java code neither breaks nor makes the warm-up."""
MOST_BUCKETS = 100_000
"""A `--bucket` that would cut the run into more buckets is widened to this many (a log's stamps may say anything)."""
TOP_TIER = frozenset({Compiler.C2, Compiler.JVMCI})


@dataclass(frozen=True, slots=True)
class Bucket:
    """The samples of one stretch of the run."""

    t_ms: int
    """Its start, ms from the JVM's start."""
    counts: tuple[int, ...]
    """Samples per category, in `CATEGORIES` order."""

    def as_dict(self) -> dict[str, Any]:
        return {"t_ms": self.t_ms, **{str(c): n for c, n in zip(CATEGORIES, self.counts, strict=True)}}


@dataclass(frozen=True, slots=True)
class Version:
    """One compilation's life: from its install to the end of its code (or the end of the run)."""

    task: JitTask
    """What the log says of the compilation."""
    start_ms: int | None
    """Installed (None: the compilation installed no code)."""
    end_ms: int | None
    """Made not entrant, or the end of the run."""
    end_reason: str
    """`uncommon_trap`, `make_not_entrant` (with the log's reason, `make_not_entrant: not used`), `end of run`,
    or why the compilation failed."""
    ended_by: JitEvent | None
    """The trap that fired just before the code was made not entrant, else the `make_not_entrant` itself."""
    samples: int
    """Samples that ran in it."""

    def as_dict(self) -> dict[str, Any]:
        t = self.task
        trap = self.ended_by if self.ended_by is not None and self.ended_by.kind is EventKind.UNCOMMON_TRAP else None
        return {"compile_id": t.compile_id, "method": t.method, "compiler": t.compiler, "level": t.level,
                "osr_bci": t.osr_bci, "start_ms": self.start_ms, "end_ms": self.end_ms,
                "end_reason": self.end_reason, "samples": self.samples, "kind": t.kind, "queued_ms": t.queued_ms,
                "compile_start_ms": t.started_ms, "compile_end_ms": t.done_ms,
                "compile_ms": None if t.started_ms is None or t.done_ms is None else t.done_ms - t.started_ms,
                "size": t.size, "bytecode_size": t.bytecode_size,
                "trap": None if trap is None else event_dict(trap)}


def event_dict(event: JitEvent) -> dict[str, Any]:
    """An event as the JSON model writes it."""
    return {"t_ms": event.t_ms, "kind": event.kind, "compile_id": event.compile_id, "reason": event.reason,
            "action": event.action, "bci": event.bci, "method": event.method, "line": event.source_line,
            "log_line": event.line}


@dataclass(frozen=True, slots=True)
class Timeline:
    """The run over time."""

    bucket_ms: int
    """Each bucket's length."""
    buckets: tuple[Bucket, ...]
    """The samples, bucket by bucket from the JVM's start (empty without samples)."""
    versions: tuple[Version, ...]
    """Every compilation, by compile id."""
    events: tuple[JitEvent, ...]
    """The log's events, and OSR migrations seen in the samples, by time."""
    steady_state_ms: int | None
    """From when C2 (or JVMCI) code holds `WARM_SHARE` of the compiled Java code's samples to the end."""
    warm_note: str
    """The warm-up in one sentence."""
    end_ms: int
    """The end of the run."""
    sampled: bool
    """True when samples were binned."""
    notes: tuple[str, ...]
    """One sentence per problem met (bad stamps, samples outside the JVM's life, no samples)."""

    def as_dict(self) -> dict[str, Any]:
        return {"bucket_ms": self.bucket_ms, "buckets": [b.as_dict() for b in self.buckets],
                "compilations": [v.as_dict() for v in self.versions],
                "events": [event_dict(e) for e in self.events], "steady_state_ms": self.steady_state_ms,
                "warm_up": self.warm_note, "end_ms": self.end_ms, "notes": list(self.notes)}


def bucket_size(span_ms: int) -> int:
    """The whole milliseconds that cut `span_ms` into `BUCKETS` buckets (fewer for a run shorter than that)."""
    return max(1, math.ceil(span_ms / BUCKETS))


def build(jit: JitLog, binned: Binned | None, bucket_ms: int | None = None) -> Timeline:
    """The timeline of a log and (when recorded) its samples."""
    notes = list(jit.problems) + (list(binned.problems) if binned is not None else [])
    last_sample = max(binned.per_ms, default=None) if binned is not None else None
    end = max(x for x in (jit.end_ms, None if last_sample is None else last_sample + 1, 1) if x is not None)
    size = bucket_ms or bucket_size(end)
    if math.ceil(end / size) > MOST_BUCKETS:
        size = math.ceil(end / MOST_BUCKETS)
        notes.append(f"--bucket {bucket_ms:,} would make more than {MOST_BUCKETS:,} buckets of the run ({end:,} ms): "
                     f"{size:,} ms each")
    if bucket_ms is not None and end < bucket_ms:
        notes.append(f"the run ({end:,} ms) is shorter than one bucket ({bucket_ms:,} ms): one bucket")
    count = max(1, math.ceil(end / size))
    buckets: tuple[Bucket, ...] = ()
    if binned is not None:
        buckets = _buckets(binned, size, count, jit.end_ms, notes)
    versions = tuple(_versions(jit, binned, end))
    events = sorted([*jit.events, *_migrations(jit, binned)], key=lambda e: (e.t_ms, e.line))
    steady, warm = warm_up(buckets) if binned is not None else (None, "no samples: the warm-up is unknown")
    return Timeline(size, buckets, versions, tuple(events), steady, warm, end, binned is not None, tuple(notes))


def _buckets(binned: Binned, size: int, count: int, log_end: int | None, notes: list[str]) -> tuple[Bucket, ...]:
    rows = [Counter[Category]() for _ in range(count)]
    before = after = 0
    for ms, counted in binned.per_ms.items():
        before += sum(counted.values()) if ms < 0 else 0
        after += sum(counted.values()) if log_end is not None and ms > log_end else 0
        rows[min(count - 1, max(0, ms // size))].update(counted)
    if before:
        notes.append(f"{describe.count(before, 'sample')} come before the JVM's start on the log's clock (the "
                     "launcher): counted in the first bucket")
    if after:
        notes.append(f"{describe.count(after, 'sample')} come after the log's last stamp ({log_end:,} ms; the JVM "
                     "exiting)")
    return tuple(Bucket(i * size, tuple(row[c] for c in CATEGORIES)) for i, row in enumerate(rows))


def _versions(jit: JitLog, binned: Binned | None, end: int) -> list[Version]:
    ended: dict[int, JitEvent] = {}
    traps: dict[int, JitEvent] = {}
    for event in jit.events:
        if event.compile_id is None:
            continue
        if event.kind is EventKind.UNCOMMON_TRAP and event.action != "none":
            traps[event.compile_id] = event
        elif event.kind is EventKind.MAKE_NOT_ENTRANT and event.compile_id not in ended:
            trap = traps.get(event.compile_id)
            ended[event.compile_id] = trap if trap is not None and trap.t_ms <= event.t_ms else event
    found = []
    for task in jit.tasks:
        samples = sum(binned.per_compilation.get(task.compile_id, {}).values()) if binned is not None else 0
        if task.installed_ms is None:
            found.append(Version(task, None, None, f"failed: {task.failure}" if task.failure else "not installed",
                                 None, samples))
            continue
        stop = ended.get(task.compile_id)
        reason = "end of run" if stop is None else _reason(stop)
        last = end if stop is None else max(task.installed_ms, stop.t_ms)
        found.append(Version(task, task.installed_ms, last, reason, stop, samples))
    return found


def _reason(event: JitEvent) -> str:
    if event.kind is EventKind.UNCOMMON_TRAP:
        return "uncommon_trap"
    return f"make_not_entrant: {event.reason}" if event.reason else "make_not_entrant"


def _migrations(jit: JitLog, binned: Binned | None) -> list[JitEvent]:
    """An OSR compilation's first sample: the samples prove a running loop moved into it then."""
    if binned is None:
        return []
    return [JitEvent(math.floor(binned.first_ms[t.compile_id]), EventKind.OSR_MIGRATION, t.compile_id, t.method,
                     "first sample in OSR code", "", t.osr_bci, 0)
            for t in jit.tasks if t.kind == "osr" and t.compile_id in binned.first_ms]


def warm_up(buckets: tuple[Bucket, ...]) -> tuple[int | None, str]:
    """The start of the first bucket from which every bucket with `WARM_MIN` samples in compiled Java code has
    `WARM_SHARE` of them in C2 or JVMCI code, and the sentence saying so."""
    ci, c2, jvmci = (CATEGORIES.index(c) for c in (Category.C1, Category.C2, Category.JVMCI))
    steady: int | None = None
    counted = 0
    for bucket in buckets:
        top = bucket.counts[c2] + bucket.counts[jvmci]
        compiled = top + bucket.counts[ci]
        if compiled < WARM_MIN:
            continue
        counted += 1
        if top < WARM_SHARE * compiled:
            steady = None
        elif steady is None:
            steady = bucket.t_ms
    share = f"{WARM_SHARE:.0%}"
    if not counted:
        return None, "no bucket holds samples in compiled Java code: the warm-up is unknown"
    if steady is None:
        return None, (f"never warmed up: C2 (or JVMCI) code holds less than {share} of the samples in compiled Java "
                      "code in the run's last bucket")
    return steady, (f"warmed up at {steady:,} ms: from then on C2 (or JVMCI) code holds at least {share} of the "
                    "samples in compiled Java code")
