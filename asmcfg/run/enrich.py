"""The one step every mode takes between reading a compilation and writing it.

A compilation read from the input (a JMH saveLog's percentage columns already made its heat by the dialect) gets
the `--log` log's trap records and inlining decisions of its compile id, then the `--profile`'s measured heat
where the profile's addresses land on it, then the analyses. One method, `--all`, `--jsonl`, `asmcfg diff` and
the explorer all call `enrich`, so no mode can read or enrich a compilation its own way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from asmcfg.errors import InputError
from asmcfg.model import Method
from asmcfg.run.pipeline import analyse_method

if TYPE_CHECKING:
    from asmcfg.dialects.logcompilation.inline import LogRecords
    from asmcfg.dialects.perfasm.profile import OverlayReport, Perfasm
    from asmcfg.dialects.perfscript.heat import PerfHeat
    from asmcfg.model import Analysis


@dataclass(frozen=True, slots=True)
class Enrichment:
    """What the options add to every compilation read, loaded once before the first one is analysed."""

    log: LogRecords | None = None
    """The records of `--log` (a LogCompilation log of the same run), or None."""
    profile: Perfasm | None = None
    """The compilations `--profile` (JMH perfasm output of the same run) measured, or None."""
    jdk: int | None = None
    """`--jdk`: the JDK whose trap tables decode the compilation; None reads it from the input."""
    paths: int = 3
    """`--paths`: how many measured hot paths to rank."""
    strict_log: bool = False
    """A compilation whose compile id the log gives to another method is an error (one chosen compilation),
    rather than left without the log's records (every compilation of a run)."""
    perf: PerfHeat | None = None
    """The `perf` samples of the run (a record folder's, or `--profile` given `perf script` text), binned to
    the compilations of the JVM's log; None without."""
    skid: bool = False
    """`--skid previous`: credit each sample to the instruction before the one it names, in its block."""


@dataclass(frozen=True, slots=True)
class Enriched:
    """One analysed compilation and how well the profile fitted it."""

    analysis: Analysis
    """The graph and the passes' results."""
    overlay: OverlayReport | None
    """How the profile's addresses landed on the compilation; None without `--profile`."""


def enrich(method: Method, how: Enrichment) -> Enriched:
    """`method` with the log's records and the profile's heat, analysed."""
    if how.log is not None:
        from asmcfg.dialects.logcompilation import link

        method = link.attach(method, how.log, strict=how.strict_log)
    report = None
    if how.profile is not None:
        from asmcfg.dialects.perfasm.profile import overlay

        method, report = overlay(method, how.profile.profiles, how.profile.unprinted)
    elif how.perf is not None:
        method, report = _perf(method, how.perf)
    return Enriched(analyse_method(method, how.jdk, how.paths, skid=how.skid), report)


def _perf(method: Method, heat: PerfHeat) -> tuple[Method, OverlayReport]:
    """`method` with the recorded samples of its compile id, and how they landed."""
    from asmcfg.dialects.perfasm.profile import OverlayReport
    from asmcfg.dialects.perfscript.heat import with_heat

    method, message, applied = with_heat(method, heat)
    landed = method.profile.samples if applied and method.profile is not None else {}
    share = method.profile.run_share if applied and method.profile is not None else ()
    return method, OverlayReport(applied, None, len(landed), len(landed), (), share, message)


def measured(methods: Iterator[Method], how: Enrichment) -> Iterator[Method]:
    """`methods`, each with the recorded samples of its compile id when `how` has a recording, so that the choice
    rule (the hottest) sees them; `enrich` puts the same heat on the chosen one again."""
    if how.perf is None:
        yield from methods
        return
    from asmcfg.dialects.perfscript.heat import with_heat

    for method in methods:
        yield with_heat(method, how.perf)[0]


def load(log: str | None, profile: str | None, jdk: int | None = None, paths: int = 3,
         strict_log: bool = False, *, source: str | None = None, skid: bool = False) -> Enrichment:
    """The enrichment the options name, with the log and the profile read now (a bad one writes nothing).

    `profile` is JMH perfasm output or `perf script` text (told apart by its first lines); the samples of the
    latter are placed by the `<nmethod>` records of `log`, else of `source` (the input, a LogCompilation log)."""
    records = None
    if log is not None:
        from asmcfg.dialects.logcompilation import link

        records = link.read(log)
    measured = sampled = None
    if profile is not None and _is_perf_script(profile):
        from asmcfg.dialects.perfscript.heat import read_perf_heat

        placed_by = log or source
        if placed_by is None or placed_by == "-":
            raise InputError("`perf script` samples need the same run's LogCompilation log, as the input FILE "
                             "or with --log", profile)
        sampled = read_perf_heat(profile, placed_by)
    elif profile is not None:
        from asmcfg.dialects.perfasm.profile import read_perfasm

        measured = read_perfasm(profile)
    return Enrichment(records, measured, jdk, paths, strict_log, sampled, skid)


def _is_perf_script(path: str) -> bool:
    """True when the first lines of `path` are `perf script` samples."""
    from itertools import islice

    from asmcfg.dialects.perfscript.samples import is_perf_script
    from asmcfg.sources.lines import read_lines

    if path == "-":
        return False
    return is_perf_script(line.text for line in islice(read_lines(path), 50))
