"""The CI gate: named conditions over a diff, each reported with where it holds."""

from __future__ import annotations

from dataclasses import dataclass

from asmcfg.compare import where
from asmcfg.compare.items import CallItem, TrapItem
from asmcfg.compare.match import Diff, check_keys
from asmcfg.compare.pairing import pair

CONDITIONS = ("new-trap", "check-in-loop", "lost-vector", "not-inlined", "grew:PCT")
"""The conditions `--fail-on` accepts."""
EXIT_CODE = 5
"""Exit status of a run where a `--fail-on` condition holds."""


@dataclass(frozen=True, slots=True)
class Failure:
    """One place where a condition holds."""

    condition: str
    """The condition as given (`grew:10`)."""
    where: str
    """What and where, in one line."""


def parse(specs: tuple[str, ...]) -> tuple[str, ...]:
    """The conditions of `--fail-on` values (repeatable, or comma-separated); ValueError names an unknown one."""
    found = []
    for spec in specs:
        for name in filter(None, (part.strip() for part in spec.split(","))):
            if name in CONDITIONS[:-1] or _percent(name) is not None:
                found.append(name)
            else:
                raise ValueError(f"{name!r} is not a condition (choose from {', '.join(CONDITIONS)})")
    return tuple(found)


def _percent(name: str) -> float | None:
    if not name.startswith("grew:"):
        return None
    try:
        value = float(name[len("grew:") :].rstrip("%"))
    except ValueError:
        return None
    return value if value >= 0 else None


def check(result: Diff, conditions: tuple[str, ...]) -> list[Failure]:
    """Every place where one of `conditions` holds."""
    failures: list[Failure] = []
    for name in conditions:
        if name == "new-trap":
            failures += [Failure(name, where.trap(c.new)) for c in result.changes
                         if c.change == "added" and isinstance(c.new, TrapItem)]
        elif name == "check-in-loop":
            failures += [Failure(name, text) for text in checks_into_loops(result)]
        elif name == "lost-vector":
            failures += [Failure(name, text) for text in lost_vectors(result)]
        elif name == "not-inlined":
            failures += [Failure(name, where.call(c.new)) for c in result.changes
                         if c.change == "not_inlined" and isinstance(c.new, CallItem)]
        else:
            failures += [Failure(name, text) for text in _grew(result, _percent(name) or 0.0)]
    return failures


def checks_into_loops(result: Diff) -> list[str]:
    """Range and null checks inside a loop of the new compilation that no check of the old one matches inside
    some loop: by the guarded bytecode's method@bci chain, else its methods and bytecode (bcis shift when the
    code changes, and the loops need not pair)."""
    old = [c for c in result.old.checks if c.loop is not None]
    new = [c for c in result.new.checks if c.loop is not None]
    _, _, extra = pair(old, new, check_keys())
    return [where.check(c) for c in extra]


def lost_vectors(result: Diff) -> list[str]:
    """Matched loops whose vector width shrank (or that no longer vectorize; SVE's width is not in the code, so an
    SVE loop loses only by turning scalar)."""
    lost = []
    for loop in result.loops:
        if loop.old is None or loop.new is None or loop.old.vector is None:
            continue
        before = loop.old.vector.vector_bits
        now = loop.new.vector.vector_bits or 0 if loop.new.vector is not None else None
        if now is None or (before is not None and now and now < before):
            lost.append(f"loop {where.loop(loop.old)} -> {where.loop(loop.new)}: {_width(before)} vectors -> "
                        f"{'scalar' if now is None else _width(now)}")
    return lost


def _width(bits: int | None) -> str:
    return f"{bits}-bit" if bits else "SVE"


def _grew(result: Diff, percent: float) -> list[str]:
    for measure, what, unit in (("main_code_bytes", "main code", " B"), ("instructions", "instructions", "")):
        before, after = result.old.facts[measure], result.new.facts[measure]
        if isinstance(before, int) and isinstance(after, int) and before > 0:
            growth = 100.0 * (after - before) / before
            if growth > percent:
                return [f"{what} {before} -> {after}{unit} (+{growth:.1f}% > {percent:g}%)"]
            return []
    return []
