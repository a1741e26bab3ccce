"""The files heat is read from (`heat.HeatSource`): `--profile` (JMH perfasm output, or `perf script` text told apart
by its first lines) and the `perf script` text of a record folder, binned to its JVMs' logs; and `--log`'s records
(`heat.CompileLog`)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from asmcfg.dialects.heat import CompileLog, Profiled, Recording
from asmcfg.errors import InputError
from asmcfg.model.timeline import Binned, JitLog, Window
from asmcfg.sources.lines import STDIN, read_lines


def read_log(path: str) -> CompileLog:
    """The records of the LogCompilation log at `path` (`--log`); an error when it holds no compiler task at all."""
    from asmcfg.dialects.logcompilation import link

    return link.read(path)


def is_compile_log(path: str) -> bool:
    """True when the file at `path` (plain or compressed) begins as an XML document, as a LogCompilation log does."""
    from asmcfg.sources.split import open_binary

    with open_binary(path) as stream:
        head = stream.read(256)
    return head.lstrip().startswith(b"<?xml")


def read_profile(path: str, placed_by: str | None, window: Window = (None, None)) -> Profiled | Recording:
    """The heat `--profile` names: `perf script` samples placed by the `<nmethod>` records of the LogCompilation log
    `placed_by` (the run's `--log`, else its input), or perfasm output. A bounded `window` keeps the samples of that
    stretch of the run (ms from the JVM's start)."""
    if is_perf_script(path):
        if placed_by is None or placed_by == STDIN:
            raise InputError("`perf script` samples need the same run's LogCompilation log, as the input FILE "
                             "or with --log", path)
        return read_recordings(path, [placed_by], window)[0]
    if window != (None, None):
        raise InputError("--from/--to keep the samples of a stretch of a recorded run: perfasm output gives no time "
                         "for its samples (a record folder, or `perf script` text, does)", path)
    from asmcfg.dialects.perfasm.profile import read_perfasm

    return read_perfasm(path)


def read_recordings(perf_script: str, logs: Sequence[str], window: Window = (None, None)) -> list[Recording]:
    """The samples of `perf_script` binned to the compilations of each JVM log of one recording (read once), each
    JVM's perf map named beside either file."""
    from asmcfg.dialects.perfscript.heat import read_perf_heats

    return list(read_perf_heats(perf_script, logs, window))


def is_perf_script(path: str) -> bool:
    """True when the first lines of `path` are `perf script` samples."""
    from asmcfg.dialects.perfscript.samples import is_perf_script as looks_so

    if path == STDIN:
        return False
    return looks_so(line.text for line in islice(read_lines(path), 50))


def jit_samples(perf_script: str, pids: Sequence[int]) -> dict[int, int]:
    """How many samples each of `pids` took in JIT-made code (a perf map's `/tmp/perf-<pid>.map`)."""
    from asmcfg.dialects.perfscript.samples import Reading, samples

    counts = dict.fromkeys(pids, 0)
    for sample in samples(read_lines(perf_script), Reading()):
        if sample.pid in counts and sample.dso.startswith("/tmp/perf-"):
            counts[sample.pid] += 1
    return counts


def thread_names(perf_script: str, pids: set[int], seen: int) -> dict[int, str]:
    """The most common thread name among the first `seen` samples of each of `pids` in `perf_script`."""
    from collections import Counter

    from asmcfg.dialects.perfscript.samples import parse

    names: dict[int, Counter[str]] = {pid: Counter() for pid in pids}
    waiting = set(pids)
    for line in read_lines(perf_script):
        sample = parse(line.text)
        if sample is None or sample.pid not in waiting:
            continue
        counted = names[sample.pid]
        counted[sample.comm] += 1
        if counted.total() >= seen:
            waiting.discard(sample.pid)
            if not waiting:
                break
    return {pid: counted.most_common(1)[0][0] for pid, counted in names.items() if counted}


def read_jit_log(path: str) -> JitLog:
    """The times the LogCompilation log `path` stamps: compilations, code made not entrant, traps that fired."""
    from asmcfg.dialects.logcompilation.events import read_jit_log as read

    return read(path)


def read_binned(perf_script: str, log: str, jit: JitLog, window: Window = (None, None)) -> Binned:
    """The samples of `perf_script` of the JVM of `log` (read as `jit`, with its pid and start time) per millisecond
    of the log's clock (those in `window`, ms)."""
    from asmcfg.dialects.perfscript.timeline import read_binned as read

    return read(perf_script, log, jit, window)
