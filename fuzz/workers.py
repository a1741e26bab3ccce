"""The worker processes of a fuzz run, each case under a time limit, and the tally they send back.

Each worker takes chunks of case numbers from a queue and runs them one at a time. A case runs under a soft
limit (SIGALRM raises CaseTimeout in the worker: the case is a `slow` violation with its traceback), and the
parent watches every worker: a case still running after the hard limit (stuck where no signal is handled, as
in a regular expression or a C scanner) has its worker killed, counts as `slow`, is saved for replay, and the
rest of its chunk goes back on the queue for a fresh worker. A worker that dies by itself (a crash in a C
module, the kernel's OOM killer) makes its case a `crash` violation the same way. Each worker reports its
peak resident memory (ru_maxrss) and the case that raised it most.
"""

from __future__ import annotations

import multiprocessing
import queue
import resource
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Chunk = tuple[int, int]
"""Case numbers [start, end)."""
RunOne = Callable[[int, Path, "Tally"], None]
"""Runs one case, counting it into the tally."""
Lost = Callable[[int, str, float, "Tally"], None]
"""Counts and saves a case whose worker was killed or died: (case, kind, seconds, tally)."""


class CaseTimeout(BaseException):  # not an Exception: the library's `except Exception` must not eat it
    """The case ran past the soft time limit."""


@dataclass(slots=True)
class Tally:
    """Counts of some cases, merged across workers."""

    cases: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    """`ok`, `asmcfg_error`, `violation`, `escape` per case."""
    kinds: Counter[str] = field(default_factory=Counter)
    """Violations and escapes by kind (`slow`, `terminal`, `page`, `jsonl`, `escape`, ...)."""
    paths: Counter[str] = field(default_factory=Counter)
    """Cases per seed dialect and case kind."""
    methods: int = 0
    empty_methods: int = 0
    findings: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    """Signature -> (count, first case number, saved file)."""
    slowest: tuple[float, int] = (0.0, -1)
    """(seconds, case number) of the slowest case."""
    peak_rss: dict[int, int] = field(default_factory=dict)
    """Worker pid -> its peak resident memory, KiB."""
    rss_jump: tuple[int, int] = (0, -1)
    """(KiB, case number): the case that raised its worker's peak memory the most."""

    def merge(self, other: Tally) -> None:
        """Add `other` into this tally."""
        self.cases += other.cases
        self.outcomes.update(other.outcomes)
        self.kinds.update(other.kinds)
        self.paths.update(other.paths)
        self.methods += other.methods
        self.empty_methods += other.empty_methods
        for key, (count, first, saved) in other.findings.items():
            mine = self.findings.get(key, (0, first, saved))
            earliest = min((mine[1], mine[2]), (first, saved))
            self.findings[key] = (mine[0] + count, *earliest)
        self.slowest = max(self.slowest, other.slowest)
        for pid, kib in other.peak_rss.items():
            self.peak_rss[pid] = max(kib, self.peak_rss.get(pid, 0))
        self.rss_jump = max(self.rss_jump, other.rss_jump)

    def found(self, kind: str, key: str, number: int, saved: Callable[[], str]) -> None:
        """Count a violation or escape of signature `key`; `saved()` saves the case the first time."""
        self.outcomes["escape" if kind == "escape" else "violation"] += 1
        self.kinds[kind] += 1
        old = self.findings.get(key)
        self.findings[key] = (1, number, saved()) if old is None else (old[0] + 1, old[1], old[2])


def _timeout(signum: int, frame: Any) -> None:
    raise CaseTimeout


def install_timeout() -> None:
    """Have SIGALRM (the soft limit's timer) raise CaseTimeout in this process."""
    signal.signal(signal.SIGALRM, _timeout)


def timed(run_one: RunOne, number: int, folder: Path, tally: Tally, limit: float) -> None:
    """Run one case under the soft limit, timing it and noting how much it raised the peak memory."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        run_one(number, folder, tally)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    tally.slowest = max(tally.slowest, (time.monotonic() - started, number))
    tally.rss_jump = max(tally.rss_jump, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before, number))


def _work(run_one: RunOne, tasks: Any, results: Any, state: Any, limit: float, memory_mb: int) -> None:
    """A worker: chunks from `tasks` until None, a tally per chunk to `results`; `state` is [case, since]."""
    install_timeout()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent ends the run
    if memory_mb:
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    with tempfile.TemporaryDirectory(prefix="asmcfg-fuzz-") as folder:
        while (chunk := tasks.get()) is not None:
            tally = Tally()
            for number in range(*chunk):
                state[0], state[1] = number, time.monotonic()
                timed(run_one, number, Path(folder), tally, limit)
            state[0] = -1
            tally.peak_rss[multiprocessing.current_process().pid or 0] = \
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            results.put((chunk, tally))


@dataclass(slots=True)
class _Slot:
    process: Any
    state: Any
    """Shared [case number or -1, time it started]."""
    chunk: Chunk | None = None


def run_all(chunks: list[Chunk], workers: int, run_one: RunOne, lost: Lost, limit: float, memory_mb: int,
            progress: Callable[[Tally], None], hard: float | None = None) -> Tally:
    """Run every chunk on `workers` processes; the merged tally. A case still running after `hard` seconds
    (default 2 * limit + 5) has its worker killed."""
    context = multiprocessing.get_context("fork")
    tasks, results = context.Queue(), context.Queue()
    for chunk in chunks:
        tasks.put(chunk)
    pending = set(chunks)
    hard = 2 * limit + 5 if hard is None else hard

    def start() -> _Slot:
        state = context.Array("d", [-1.0, 0.0], lock=False)
        process = context.Process(target=_work, args=(run_one, tasks, results, state, limit, memory_mb), daemon=True)
        process.start()
        return _Slot(process, state)

    slots = [start() for _ in range(workers)]
    tally = Tally()
    while pending:
        try:
            chunk, part = results.get(timeout=1.0)
            pending.discard(chunk)
            tally.merge(part)
            progress(tally)
        except queue.Empty:
            pass
        for n, slot in enumerate(slots):
            number, since = int(slot.state[0]), slot.state[1]
            dead = not slot.process.is_alive()
            if dead and number < 0:
                slots[n] = start()
            if number < 0 or not (dead or time.monotonic() - since > hard):
                continue
            seconds = time.monotonic() - since
            if not dead:
                slot.process.kill()
            slot.process.join()
            kind = "slow" if not dead else f"crash (exit {slot.process.exitcode})"
            lost(number, kind, seconds, tally)
            _requeue(number, pending, tasks)
            slots[n] = start()
    for _ in slots:
        tasks.put(None)
    for slot in slots:
        slot.process.join(timeout=30)
    return tally


def _requeue(number: int, pending: set[Chunk], tasks: Any) -> None:
    """Put the rest of the chunk holding case `number` back (the cases before it too: their tally was lost)."""
    chunk = next(c for c in pending if c[0] <= number < c[1])
    pending.discard(chunk)
    for part in ((chunk[0], number), (number + 1, chunk[1])):
        if part[0] < part[1]:
            pending.add(part)
            tasks.put(part)
    print(f"... case {number} stopped; chunk {chunk} requeued", file=sys.stderr, flush=True)
