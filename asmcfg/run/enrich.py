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

from asmcfg.model import Method
from asmcfg.run.pipeline import analyse_method

if TYPE_CHECKING:
    from asmcfg.dialects.heat import CompileLog, HeatSource, OverlayReport, Profiled, Recording
    from asmcfg.model import Analysis
    from asmcfg.model.timeline import Window


@dataclass(frozen=True, slots=True)
class Enrichment:
    """What the options add to every compilation read, loaded once before the first one is analysed."""

    log: CompileLog | None = None
    """The records of `--log` (a LogCompilation log of the same run), or None."""
    profile: Profiled | None = None
    """The compilations `--profile` (JMH perfasm output of the same run) measured, or None."""
    jdk: int | None = None
    """`--jdk`: the JDK whose trap tables decode the compilation; None reads it from the input."""
    paths: int = 3
    """`--paths`: how many measured hot paths to rank."""
    strict_log: bool = False
    """A compilation whose compile id the log gives to another method is an error (one chosen compilation),
    rather than left without the log's records (every compilation of a run)."""
    perf: Recording | None = None
    """The `perf` samples of the run (a record folder's, or `--profile` given `perf script` text), binned to
    the compilations of the JVM's log; None without."""
    skid: bool = False
    """`--skid previous`: credit each sample to the instruction before the one it names, in its block."""

    @property
    def heat(self) -> HeatSource | None:
        """The heat measured apart from the input that goes onto each compilation (`profile` or `perf`), or None."""
        return self.profile if self.profile is not None else self.perf


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
        method = how.log.attach(method, strict=how.strict_log)
    report = None
    heat = how.heat
    if heat is not None:
        method, report = heat.put(method)
    return Enriched(analyse_method(method, how.jdk, how.paths, skid=how.skid), report)


def measured(methods: Iterator[Method], how: Enrichment) -> Iterator[Method]:
    """`methods`, each with the recorded samples of its compile id when `how` has a recording, so that the choice
    rule (the hottest) sees them; `enrich` puts the same heat on the chosen one again."""
    if how.perf is None:
        yield from methods
        return
    yield from map(how.perf.measure, methods)


def load(log: str | None, profile: str | None, jdk: int | None = None, paths: int = 3,
         strict_log: bool = False, *, source: str | None = None, skid: bool = False,
         window: Window = (None, None)) -> Enrichment:
    """The enrichment the options name, with the log and the profile read now (a bad one writes nothing).

    `profile` is JMH perfasm output or `perf script` text (told apart by its first lines); the samples of the
    latter are placed by the `<nmethod>` records of `log`, else of `source` (the input, a LogCompilation log)."""
    records = None
    if log is not None:
        from asmcfg.dialects.heatfiles import read_log

        records = read_log(log)
    measured = sampled = None
    if profile is not None:
        from asmcfg.dialects.heat import Recording
        from asmcfg.dialects.heatfiles import read_profile

        heat = read_profile(profile, log or source, window)
        if isinstance(heat, Recording):
            sampled = heat
        else:
            measured = heat
    return Enrichment(records, measured, jdk, paths, strict_log, sampled, skid)
