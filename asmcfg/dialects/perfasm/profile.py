"""Measured heat from JMH perfasm, and putting it onto a Method read from a full PrintAssembly dump.

perfasm prints only the hot regions; the PrintAssembly output of the same run (JMH's `saveLog`, or the
program's own `-XX:+PrintAssembly`) holds whole methods. Both print the same addresses, so a profile fits a
method when its sampled addresses land on the method's instructions. Addresses change with every JVM start:
a profile from another run lands nowhere, and the overlay says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from asmcfg.dialects.heat import OverlayReport, Profiled
from asmcfg.dialects.perfasm import reader as perfasm
from asmcfg.dialects.perfasm.saved import SavedHeat
from asmcfg.errors import InputError
from asmcfg.model import Compiler, Header, Method, Profile, RegionHeat, Unprinted
from asmcfg.sources.lines import STDIN, Line, display_name, read_lines


@dataclass(frozen=True, slots=True)
class MethodProfile:
    """The heat perfasm measured for one compilation, and which compilation it is."""

    header: Header
    """The compilation as perfasm names it (compile id and version when printed)."""
    run: int
    """Run number in the perfasm file, from 1."""
    benchmark: str
    """The benchmark of that run, when JMH printed it."""
    key: str
    """Identity within the file (`run 1: compile id 568`)."""
    profile: Profile = field(repr=False)
    """The measured heat."""
    method: Method = field(repr=False)
    """The partial method the regions show."""


@dataclass(frozen=True, slots=True)
class Perfasm(Profiled):
    """What a perfasm file measured: the compilations it printed, and those it did not."""

    profiles: list[MethodProfile]
    """The printed compilations' heat."""
    unprinted: list[Unprinted]
    """Compilations perfasm measured but printed no line of (`<region is too big to display …>`)."""

    def hottest_unprinted(self) -> int | None:
        """The compile id of the run's hottest compilation when perfasm did not print it, else None."""
        printed = max((p.profile.run_share[:1] for p in self.profiles), default=())
        hottest = max(self.unprinted, key=lambda u: u.share, default=None)
        if hottest is None or hottest.share[:1] <= printed:
            return None
        return hottest.header.compile_id

    def put(self, method: Method) -> tuple[Method, OverlayReport]:
        """`method` with the heat of the profile whose addresses land on it (`overlay`)."""
        return overlay(method, self.profiles, self.unprinted)


def read_perfasm(path: str) -> Perfasm:
    """Every compilation perfasm measured in `path` (a JMH console file or `-prof perfasm` output)."""
    name = display_name(path)
    reader = perfasm.Reader(name)
    methods = list(reader.methods(read_lines(path)))
    if not reader.regions:
        raise InputError("no `....[Hottest Region N]` found: is this JMH -prof perfasm output?", name)
    profiles = [
        MethodProfile(method.header, origin.run, origin.benchmark, origin.key, method.profile, method)
        for method, origin in zip(methods, reader.origins, strict=True)
        if method.profile is not None
    ]
    return Perfasm(profiles, list(reader.unprinted))


def read_profiles(path: str) -> list[MethodProfile]:
    """Every compilation perfasm printed in `path`."""
    return read_perfasm(path).profiles


def overlay(
    method: Method, profiles: Sequence[MethodProfile], unprinted: Sequence[Unprinted] = ()
) -> tuple[Method, OverlayReport]:
    """`method` with the best-fitting profile's heat when it matches; otherwise `method` unchanged. A compilation
    perfasm did not print keeps the heat its saveLog lines carry, named with perfasm's events."""
    addresses = {ins.address for ins in method.instructions}
    missing = next((u for u in unprinted if u.header.compile_id is not None
                    and u.header.compile_id == method.header.compile_id and u.header.name == method.header.name), None)
    if missing is not None:
        return _unprinted(method, missing)
    if not profiles:
        return method, OverlayReport(False, None, 0, 0, (), (), "no profile to put on the method")
    best = max(profiles, key=lambda p: (_landed(p, addresses), _same(method, p) is None, _total(p.profile)))
    landed = {a: v for a, v in best.profile.heat.items() if a in addresses}
    missed = tuple(sorted(a for a in best.profile.heat if a not in addresses))
    heat = tuple(sum((values[i] for values in landed.values()), 0.0) for i in range(len(best.profile.events)))
    problem = _problem(method, best, len(landed), len(missed))
    report = OverlayReport(problem is None, best, len(best.profile.heat), len(landed), missed, heat,
                           problem or f"{len(landed)} of {len(landed)} sampled addresses land on instructions "
                           f"({best.key})")
    if problem is not None:
        return method, report
    return replace(method, profile=replace(best.profile, heat=landed)), report


def _unprinted(method: Method, missing: Unprinted) -> tuple[Method, OverlayReport]:
    """The saveLog's own heat for a compilation perfasm did not print, with perfasm's event names and share."""
    saved = method.profile
    what = f"perfasm printed no line of compile id {missing.header.compile_id} (region too big: {missing.lines} lines)"
    if saved is None or len(saved.events) != len(missing.events):
        return method, OverlayReport(False, None, 0, 0, (), (), f"{what}, and the input carries no heat of its own")
    printed = tuple(sum(v[i] for v in saved.heat.values()) for i in range(len(missing.events)))
    region = RegionHeat(missing.region, missing.share, printed, 0, missing.lines)
    profile = replace(saved, events=missing.events, region_totals=(missing.share,), method_share=missing.share,
                      regions=(region,))
    report = OverlayReport(True, None, len(saved.heat), len(saved.heat), (), printed,
                           f"{what}; the heat is the percentages printed on this input's own lines")
    return replace(method, profile=profile), report


def strip_columns(lines: Iterable[Line]) -> Iterator[Line]:
    """The lines of a perfasm-annotated HotSpot log (JMH `saveLog`) without the percentage columns.

    The columns become blanks of the same width, so any dialect reads the HotSpot text as if unsampled."""
    return SavedHeat(display_name(STDIN)).lines(lines)


def _landed(profile: MethodProfile, addresses: set[int]) -> int:
    return sum(1 for address in profile.profile.heat if address in addresses)


def _total(profile: Profile) -> float:
    return sum(values[0] for values in profile.heat.values() if values)


def _same(method: Method, candidate: MethodProfile) -> str | None:
    """Why the compilation named by perfasm is not `method`, or None when nothing says so."""
    mine, theirs = method.header, candidate.header
    if mine.compile_id is not None and theirs.compile_id is not None and mine.compile_id != theirs.compile_id:
        return f"perfasm names compile id {theirs.compile_id}, the method is compile id {mine.compile_id}"
    known = mine.name != "<unknown>" and theirs.name != "<unknown>" and theirs.compiler is not Compiler.STUB
    if known and mine.name != theirs.name:
        return f"perfasm names {theirs.name}, the method is {mine.name}"
    return None


def _problem(method: Method, best: MethodProfile, landed: int, missed: int) -> str | None:
    if landed == 0:
        return ("no sampled address lands on an instruction of this method: the profile is from a different run "
                "(addresses change with every JVM start) or of other code")
    if missed:
        return (f"only {landed} of {landed + missed} sampled addresses of {best.key} land on instructions: "
                "a different run, or other code at the same addresses")
    return _same(method, best)
