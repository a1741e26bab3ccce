"""Analyse every compilation of a log on all cores, in input order, with memory bounded by the largest method.

The calling process cuts the decompressed input into pieces of whole methods (at header offsets for
PrintAssembly text, per compiler thread for LogCompilation XML); worker processes, and the caller itself
while they are busy, read, analyse and serialize them. Results come back in input order; only a few
pieces are in flight at any time.
"""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

from asmcfg import dialects
from asmcfg.dialects import ReadOptions
from asmcfg.errors import StrictError, WorkerError
from asmcfg.facts.counts import counts
from asmcfg.model import Analysis, DialectName, Method
from asmcfg.processes import pool
from asmcfg.render.jsonl import COMPACT
from asmcfg.run import YOUNG_COLLECTION
from asmcfg.run.enrich import Enrichment, enrich
from asmcfg.run.pipeline import no_methods_error
from asmcfg.run.progress import Progress
from asmcfg.sources.lines import display_name
from asmcfg.sources.peek import peek
from asmcfg.sources.split import Readable, line_pieces, open_binary

Serializer = Callable[[Analysis], dict[str, Any]]
"""Turns one analysis into a JSON-ready dict (e.g. `asmcfg.render.json.method_dict`)."""
LineSerializer = Callable[[Analysis], str]
"""Turns one analysis into its record's compact JSON text (e.g. `asmcfg.render.jsonl.record_line`)."""
Select = Callable[[Method], bool]
"""Keeps a method when True (e.g. `pipeline.Selector(...).matches`)."""


@dataclass(frozen=True, slots=True)
class Tally:
    """The count of lines outside methods, from a reader run in the main process."""

    outside: int
    """Non-blank lines outside any method."""


Work = Any
"""A piece the dialect's cutter cut (it has a `size`), a batch of methods read here, or a Tally."""
BATCH_BYTES = 1 << 20
"""Input bytes sent to a worker at a time."""
LARGE_RECORD_BATCH_BYTES = 1 << 17
"""Input bytes sent at a time when the records are larger than their input (full `--jsonl` records, about 1.5
times it), so that the results in flight stay a few MB. Smaller batches cost wall time (the worker waits longer
for its next batch in all: 1 s of 16 for `--facts` of the 336 MB log)."""


def summary(result: Analysis) -> dict[str, Any]:
    """A small per-method record: the header and the headline counts."""
    method = result.cfg.method
    header = method.header
    return {
        "name": header.name, "compiler": header.compiler, "compile_id": header.compile_id,
        "level": header.level, "osr_bci": header.osr_bci, "flags": header.flags, "line": header.line,
        "jdk": result.jdk, "counts": counts(result),
    }


@dataclass(frozen=True, slots=True)
class Job:
    """What every worker needs besides the input: how to read, select, analyse and serialize."""

    source: str
    """Input name for messages and records."""
    dialect: DialectName | None
    """Dialect reading the pieces; None until the input is sniffed."""
    serializer: Serializer | LineSerializer
    """Per-method serializer: a record, or its JSON text."""
    encode: bool = False
    """Return JSON text instead of dicts (less to send between processes)."""
    how: Enrichment = field(default_factory=Enrichment)
    """What goes onto every method before it is analysed (`--log`, `--profile`, `--jdk`, `--paths`): loaded
    before the workers fork, which share it."""
    select: Select | None = None
    """Method filter; None keeps every method."""
    options: ReadOptions | None = None
    """Dialect read options."""
    strict: bool = False
    """`--strict`: the run stops at the first line not understood."""
    large_records: bool = False
    """The records are larger than their input (full `--jsonl` records): smaller batches, and the heap's free
    memory given back now and then (`memory`)."""

    def reads(self) -> dialects.Dialect:
        """The dialect reading the pieces."""
        assert self.dialect is not None, "the input is sniffed before any piece is read"
        return dialects.BY_NAME[self.dialect]


@dataclass(slots=True)
class RunStats:
    """Counts of a finished (or running) analysis of a whole input."""

    dialect: str = ""
    """Dialect chosen for the input."""
    methods: int = 0
    """Methods read."""
    analysed: int = 0
    """Methods selected and analysed."""
    failed: int = 0
    """Methods whose analysis raised; each gives an `error` record."""
    outside: int = 0
    """Non-blank lines outside any method."""


@dataclass(slots=True)
class _Result:
    records: list[Any] = field(default_factory=list)
    methods: int = 0
    failed: int = 0
    outside: int = 0
    strict: tuple[int, str] | None = None
    """Under `--strict`, the number and text of the first line not understood; the batch stops there."""


def analyse_file(
    path: str, serializer: Serializer = summary, *, workers: int | None = None, dialect: DialectName | None = None,
    how: Enrichment | None = None, select: Select | None = None, options: ReadOptions | None = None,
    stats: RunStats | None = None, strict: bool = False,
) -> Iterator[dict[str, Any]]:
    """Serialized analyses of every (selected) method of `path` or `-`, in input order.

    `workers` is the number of processes to use, this one included (default: one per core); `stats`, if
    given, is filled in as the records come; `how` is what goes onto each method before its analysis
    (`enrich.load`); `strict` stops the run at the first line not understood (a `StrictError`).
    """
    job = Job(display_name(path), None, serializer, False, how or Enrichment(), select, options, strict)
    return analysed(path, job, workers, dialect, stats if stats is not None else RunStats(), Progress())


def analyse_to_jsonl(
    path: str, out: TextIO, serializer: Serializer | LineSerializer = summary, *, workers: int | None = None,
    dialect: DialectName | None = None, how: Enrichment | None = None, select: Select | None = None,
    options: ReadOptions | None = None, progress: Progress | None = None, strict: bool = False,
    large_records: bool = False,
) -> RunStats:
    """Write one JSON line per (selected) method of `path`, serialized where it was analysed; return the counts.

    `progress` is told the bytes read and the methods found; `how` and `strict` are as in `analyse_file`;
    `large_records` says the records are larger than their input (full records), which keeps fewer of them in
    flight."""
    stats = RunStats()
    job = Job(display_name(path), None, serializer, True, how or Enrichment(), select, options, strict,
              large_records)
    write_lines(analysed(path, job, workers, dialect, stats, progress or Progress()), out)
    return stats


def analysed(path: str, job: Job, workers: int | None, forced: DialectName | None, stats: RunStats,
             progress: Progress) -> Iterator[Any]:
    """What `job` makes of every (selected) method of `path` or `-`, in input order, on `workers` processes (this
    one included; None: one per core); `stats` is filled in and `progress` told as the results come."""
    for result in _results(path, job, workers, forced, stats, progress):
        yield from result.records


def write_lines(lines: Iterable[str], out: TextIO) -> None:
    """Each line of JSON text, ended."""
    for line in lines:
        out.write(line)
        out.write("\n")


def _results(
    path: str, job: Job, workers: int | None, forced: DialectName | None, stats: RunStats, progress: Progress
) -> Iterator[_Result]:
    with open_binary(path, progress.read if progress.shown else None) as raw, _fewer_collections():
        stream, sample = peek(raw, job.source)
        choice = dialects.choose(sample, forced)
        job = replace(job, dialect=choice.name)
        stats.dialect = choice.name
        run = functools.partial(_execute, job)
        batch = LARGE_RECORD_BATCH_BYTES if job.large_records else BATCH_BYTES
        if job.large_records:
            from asmcfg.run import memory  # ctypes, for full records only

            memory.start()
        works = _works(stream, path, job, batch)
        try:
            for result in pool.ordered(run, _batches(works, batch), workers or os.cpu_count() or 1):
                stats.methods += result.methods
                progress.found(result.methods)
                stats.analysed += len(result.records)
                stats.failed += result.failed
                stats.outside += result.outside
                if result.strict is not None:
                    raise StrictError.at(result.strict[1], job.source, result.strict[0])
                yield result
        except WorkerError as error:
            raise WorkerError(error.message, job.source) from None
    if stats.methods == 0:
        raise no_methods_error(job.source)


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Collect the youngest generation every `YOUNG_COLLECTION` allocations instead of Python's 700, in this
    process and the workers it forks, until the run ends."""
    young, *older = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_COLLECTION), *older)
    try:
        yield
    finally:
        gc.set_threshold(young, *older)


def _works(stream: Readable, path: str, job: Job, target: int) -> Iterator[Work]:
    """The dialect's pieces of about `target` bytes when it has a cutter, else whole methods read here."""
    cut = job.reads().cutter()
    return _serial(stream, job) if cut is None else cut(stream, path, job.source, target)


def _serial(stream: Readable, job: Job) -> Iterator[tuple[Method, ...] | Tally]:
    """Other dialects: read here, line by line, and send whole methods to the workers."""
    dialect = job.reads()
    reader = dialect.reader(job.source, job.options)
    lines = (line for piece in line_pieces(stream, job.source) for line in piece.lines())
    batch: list[Method] = []
    for method in dialect.methods(reader, lines, job.source):
        batch.append(method)
        if len(batch) >= 16:
            yield tuple(batch)
            batch = []
    yield tuple(batch)
    yield Tally(reader.outside)


def _batches(works: Iterator[Work], target: int) -> Iterator[list[Work]]:
    batch: list[Work] = []
    size = 0
    for work in works:
        batch.append(work)
        size += _size(work, target)
        if size >= target:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _size(work: Work, target: int) -> int:
    if isinstance(work, Tally):
        return 0
    return target // 4 if isinstance(work, tuple) else int(work.size)


def _execute(job: Job, batch: list[Work]) -> _Result:
    result = _Result()
    for work in batch:
        for method in _read(job, work, result):
            result.methods += 1
            if job.strict and method.skipped:
                result.strict = method.skipped[0]
                return result
            if job.select is None or job.select(method):
                _analyse(job, method, result)
    if job.large_records:
        from asmcfg.run import memory

        memory.batch_done()
    return result


def _read(job: Job, work: Work, result: _Result) -> Iterator[Method]:
    """The methods of one piece of work, each analysed before the next is read; counts lines outside them."""
    if isinstance(work, Tally):
        result.outside += work.outside
    elif isinstance(work, tuple):
        yield from work
    else:
        yield from job.reads().read_piece(work, job.source, job.options, result)


def _analyse(job: Job, method: Method, result: _Result) -> None:
    try:
        record = job.serializer(enrich(method, job.how).analysis)
    except Exception as exc:  # one bad method must not stop the run
        result.failed += 1
        header = method.header
        record = {"name": header.name, "compile_id": header.compile_id, "line": header.line,
                  "source": method.source, "error": f"{type(exc).__name__}: {exc}"}
    result.records.append(COMPACT.encode(record) if job.encode and not isinstance(record, str) else record)
