"""Run a function over a stream of batches on several processes, this one included, results in input order."""

from __future__ import annotations

import contextlib
import gc
import itertools
import multiprocessing.process
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from asmcfg.errors import WorkerError
from asmcfg.processes import start

Batch = TypeVar("Batch")
Result = TypeVar("Result")
QUEUED = 4
"""Batches queued per worker process, so that it never waits for the next one (with 2, the worker of a two-core
run of the 336 MB log idled 11-13% of the time against 6-7%: this process, busy with a batch of its own, hands it
the next one late)."""
_SWITCH = 0.0002
"""Seconds between GIL hand-overs in this process while workers run."""

_FUNCTION: Callable[[Any], Any] | None = None


def ordered(function: Callable[[Batch], Result], batches: Iterator[Batch], processes: int) -> Iterator[Result]:
    """`function` of each batch, in order, on `processes` processes (this one included).

    One process, or an input of a single batch, runs here. Otherwise `processes - 1` workers (started as
    `start.context` says) take batches while this process reads the input, writes the results and runs batches
    itself whenever the workers have enough queued: one process fewer keeps memory down. `function` need not be
    picklable where the workers are forked; batches and results are sent between processes. A worker that stops
    before returning its batch (killed, out of memory) raises `WorkerError`.
    """
    first = next(batches, None)
    second = next(batches, None) if first is not None else None
    rest = itertools.chain([b for b in (first, second) if b is not None], batches)
    if processes <= 1 or second is None:
        yield from map(function, rest)
    else:
        yield from _shared(function, rest, processes)


@dataclass(frozen=True, slots=True)
class _Done(Generic[Result]):
    value: Result


def _shared(function: Callable[[Batch], Result], batches: Iterator[Batch], processes: int) -> Iterator[Result]:
    context = start.context()
    helpers = processes - 1
    start.picklable()  # records of the optional compiled build go through the pipes too
    gc.freeze()  # forked workers then share the objects made so far instead of copying them when GC runs
    interval = sys.getswitchinterval()
    # The pool's threads here move batches and results through pipes a chunk at a time, each chunk waiting for
    # the GIL while this thread computes: a short switch interval keeps the workers from stalling on them.
    sys.setswitchinterval(_SWITCH)
    parent = os.getpid() if context.get_start_method() == "fork" else None
    pool = ProcessPoolExecutor(helpers, context, _init, (function, parent))
    try:
        window: deque[Any] = deque()
        for batch in batches:
            busy = sum(1 for entry in window if not _ready(entry))
            window.append(pool.submit(_call, batch) if busy < QUEUED * helpers else _Done(function(batch)))
            while window and (len(window) > 2 * QUEUED * processes or _ready(window[0])):
                yield _value(window.popleft())
        while window:
            yield _value(window.popleft())
    except BrokenProcessPool:
        raise WorkerError("a worker process stopped before it finished its part (killed, or out of memory)") from None
    except BaseException:  # stopped (Ctrl-C, SIGTERM, a closed output): the workers' parts are no longer wanted
        _kill(pool)
        raise
    finally:
        # Waiting for the pool's own thread to end (its workers are done, or dead) keeps it from closing its wake-up
        # pipe while the interpreter's exit writes to it, which prints a traceback after a finished run.
        pool.shutdown(wait=True, cancel_futures=True)
        sys.setswitchinterval(interval)
        gc.unfreeze()


def _ready(entry: Any) -> bool:
    return isinstance(entry, _Done) or bool(entry.done())


def _value(entry: Any) -> Any:
    return entry.value if isinstance(entry, _Done) else entry.result()


def _kill(pool: ProcessPoolExecutor) -> None:
    """End the pool's workers now, even one blocked writing a result nobody will read.

    A worker killed halfway through sending a result would leave the pool's thread here waiting for the rest of
    it (this process holds the pipe's write end too), and the pool's shutdown waiting for that thread: closing
    this process's write end makes the pipe end there, and the pool sees its workers gone."""
    processes: dict[int, multiprocessing.process.BaseProcess] = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        with contextlib.suppress(OSError):
            writer.close()


def _init(function: Callable[[Any], Any], parent: int | None) -> None:
    """In a worker: the function to run; killed with this process's parent, and stopped by it alone (the
    parent handles Ctrl-C, SIGTERM and SIGHUP, and ends its workers)."""
    global _FUNCTION
    _FUNCTION = function
    start.started(parent)


def _call(batch: Any) -> Any:
    assert _FUNCTION is not None
    return _FUNCTION(batch)
