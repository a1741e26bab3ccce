"""The one step every mode takes between reading a compilation and writing it.

A compilation read from the input (a JMH saveLog's percentage columns already made its heat by the dialect) gets
the `--log` log's trap records and inlining decisions of its compile id, then the `--profile`'s measured heat
where the profile's addresses land on it, then the analyses. One method, `--all`, `--jsonl`, `asmcfg diff` and
the explorer all call `enrich`, so no mode can read or enrich a compilation its own way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from asmcfg.run.pipeline import analyse_method

if TYPE_CHECKING:
    from asmcfg.dialects.logcompilation.inline import LogRecords
    from asmcfg.dialects.perfasm.profile import OverlayReport, Perfasm
    from asmcfg.model import Analysis, Method


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
    return Enriched(analyse_method(method, how.jdk, how.paths), report)


def load(log: str | None, profile: str | None, jdk: int | None = None, paths: int = 3,
         strict_log: bool = False) -> Enrichment:
    """The enrichment the options name, with the log and the profile read now (a bad one writes nothing)."""
    records = None
    if log is not None:
        from asmcfg.dialects.logcompilation import link

        records = link.read(log)
    measured = None
    if profile is not None:
        from asmcfg.dialects.perfasm.profile import read_perfasm

        measured = read_perfasm(profile)
    return Enrichment(records, measured, jdk, paths, strict_log)
