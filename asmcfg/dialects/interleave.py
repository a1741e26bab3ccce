"""Find lines of another method inside a method: output of two compiler threads mixed in one stream.

A method's own instructions lie in its code range from the section table, follow each other without
gaps, and name the method itself as the outermost inlining frame. Instructions that break this came
from another method's output; `guard` takes them out so that no graph mixes two methods, and marks the
method `interleaved`. `untangle` does the same over a stream of methods and first gives such lines
back to the recent method whose code range holds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from asmcfg.model import Feature, Instruction, IsaName, Method

FEATURE = Feature.INTERLEAVED
"""The feature of a method that held another method's lines (removed, or given back to it)."""
INCOMPLETE = Feature.INCOMPLETE
"""The feature of a method some of whose lines are missing (a gap, or the end)."""
_MAX_GAP = {IsaName.AARCH64: 4}
"""Largest distance between two consecutive instructions (x86: the longest instruction, 15 bytes)."""
_X86_GAP = 15
_UNKNOWN = "<unknown>"
WINDOW = 4
"""Methods `untangle` holds back, waiting for lines of theirs printed inside later methods."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong with a method's lines."""

    line: int
    """First input line concerned."""
    last_line: int
    """Last input line concerned."""
    kind: str
    """`foreign` (lines of another method), `gap` (own lines missing) or `ends_early` (the end is missing)."""
    detail: str
    """What is wrong, in words."""


def check(method: Method) -> tuple[Finding, ...]:
    """Everything that shows the method's lines do not belong together; empty for a clean method."""
    flags = foreign(method)
    found = _foreign_runs(method, flags) if flags else []
    own: Sequence[Instruction] = method.instructions
    if flags:
        own = [ins for ins, bad in zip(own, flags, strict=True) if not bad]
    return tuple(found + _gaps(method, own) + _end(method, own))


def guard(method: Method) -> Method:
    """The method without other methods' instructions; findings become skipped lines and features.

    `interleaved` marks a method that held another method's lines, `incomplete` one missing some of its own.
    """
    findings = check(method)
    if not findings:
        return method
    flags = foreign(method) or [False] * len(method.instructions)
    keep = [ins for ins, bad in zip(method.instructions, flags, strict=True) if not bad]
    new_index = _reindex(flags)
    markers = tuple((new_index[i], label) for i, label in method.markers if i >= len(flags) or not flags[i])
    labels = {f.kind: FEATURE if f.kind == "foreign" else INCOMPLETE for f in findings}
    notes = tuple((f.line, f"[{labels[f.kind]}] {f.detail}") for f in findings)
    return replace(
        method,
        instructions=tuple(keep),
        markers=markers,
        skipped=tuple(sorted(method.skipped + notes)),
        features=method.features | set(labels.values()),
    )


def foreign(method: Method) -> list[bool] | None:
    """Per instruction, True when it belongs to another method; None when there is nothing to separate.

    Nothing is separated in a fragment without header or code range, nor when no instruction at all
    fits the method (then the range, not the lines, is wrong).
    """
    instructions = method.instructions
    lo, hi = method.code_begin, method.code_end
    name = method.header.name
    if lo is not None and hi is not None:
        # The section table's code range decides: a scope naming another method is inlined code or a
        # renamed header, never by itself a sign of another thread's lines.
        if all(lo <= ins.address < hi for ins in instructions):
            return None  # the common case, found without a flag per instruction
        flags = [not lo <= ins.address < hi for ins in instructions]
    elif name != _UNKNOWN:
        flags = _discontinuous(instructions, _MAX_GAP.get(method.isa, _X86_GAP))
        flags = [bad or _other_scope(ins, name) for ins, bad in zip(instructions, flags, strict=True)]
    else:
        return None  # a fragment (stubs, a dump cut short): nothing says which lines belong together
    return flags if any(flags) and not all(flags) else None


def _other_scope(ins: Instruction, name: str) -> bool:
    return bool(ins.frames) and ins.frames[-1].method != name


def _discontinuous(instructions: tuple[Instruction, ...], max_gap: int) -> list[bool]:
    flags = []
    last: int | None = None
    for ins in instructions:
        bad = last is not None and not 0 < ins.address - last <= max_gap
        flags.append(bad)
        if not bad:
            last = ins.address
    return flags


def _foreign_runs(method: Method, flags: list[bool]) -> list[Finding]:
    found = []
    instructions = method.instructions
    i = 0
    while i < len(flags):
        if not flags[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(flags) and flags[j + 1]:
            j += 1
        first, last = instructions[i], instructions[j]
        found.append(Finding(first.line, last.line, "foreign", (
            f"{j - i + 1} instruction line(s) at {first.address:#x}..{last.address:#x} belong to another method "
            f"({_why(method, first)}): output of two compiler threads is interleaved"
        )))
        i = j + 1
    return found


def _why(method: Method, ins: Instruction) -> str:
    lo, hi = method.code_begin, method.code_end
    if lo is not None and hi is not None and not lo <= ins.address < hi:
        return f"outside this method's code [{lo:#x}, {hi:#x})"
    if ins.frames and ins.frames[-1].method != method.header.name:
        return f"their scope is {ins.frames[-1].method}, not {method.header.name}"
    return "their addresses do not follow the method's own"


def _gaps(method: Method, own: Sequence[Instruction]) -> list[Finding]:
    if method.code_begin is None:
        return []
    max_gap = _MAX_GAP.get(method.isa, _X86_GAP)
    if _close(own, max_gap):
        return []  # the common case, found without a pair of instructions at a time
    return [
        Finding(a.line, b.line, "gap", f"no instruction between {a.address:#x} and {b.address:#x}: "
                "this method's lines are missing (printed inside another method?)")
        for a, b in pairwise(own) if b.address - a.address > max_gap
    ]


def _close(instructions: Sequence[Instruction], max_gap: int) -> bool:
    """True when no instruction starts more than `max_gap` bytes after the one before it."""
    before = instructions[0].address if instructions else 0
    for ins in instructions:
        if ins.address - before > max_gap:
            return False
        before = ins.address
    return True


def _end(method: Method, own: Sequence[Instruction]) -> list[Finding]:
    hi = method.code_end
    if hi is None or not own or hi - own[-1].address <= _MAX_GAP.get(method.isa, _X86_GAP) + 1:
        return []
    last = own[-1]
    return [Finding(last.line, last.line, "ends_early", (
        f"the instructions stop at {last.address:#x}, {hi - last.address} bytes before the code end {hi:#x}: "
        "the rest of this method is missing (cut off by another method's header?)"
    ))]


def _reindex(flags: list[bool]) -> list[int]:
    """New position of each old instruction index (and of the end) once foreign ones are removed."""
    positions, kept = [], 0
    for bad in flags:
        positions.append(kept)
        kept += not bad
    positions.append(kept)
    return positions


def untangle(methods: Iterable[Method], window: int = WINDOW) -> Iterator[Method]:
    """The methods in input order, guarded, each first given back its lines printed inside later methods.

    Lines go back to one of the last `window` methods whose code range holds them; a fragment wholly
    given back disappears. Memory: `window` methods.
    """
    held: list[Method] = []
    for method in methods:
        rest = _give_back(held, method)
        if rest is not None:
            held.append(rest)
        if len(held) > window:
            yield guard(held.pop(0))
    for method in held:
        yield guard(method)


def _give_back(held: list[Method], method: Method) -> Method | None:
    """Move runs of `method` that lie in a held method's code range into it; the rest of `method`, or None."""
    count = len(method.instructions)
    fragment = method.header.name == _UNKNOWN and method.code_begin is None
    flags = [True] * count if fragment else foreign(method)
    if not flags or not held:
        return method
    moved = [False] * count
    for start, end in _runs(flags):
        owner = _owner(held, method.instructions[start:end])
        if owner is not None:
            held[owner] = _adopt(held[owner], method, start, end)
            moved[start:end] = [True] * (end - start)
    if not any(moved):
        return method
    if all(moved):
        return None
    return _without(method, moved)


def _runs(flags: list[bool]) -> Iterator[tuple[int, int]]:
    start = None
    for i, bad in enumerate([*flags, False]):
        if bad and start is None:
            start = i
        elif not bad and start is not None:
            yield start, i
            start = None


def _owner(held: list[Method], run: tuple[Instruction, ...]) -> int | None:
    for k in range(len(held) - 1, -1, -1):
        lo, hi = held[k].code_begin, held[k].code_end
        if lo is not None and hi is not None and all(lo <= ins.address < hi for ins in run):
            return k
    return None


def _adopt(owner: Method, donor: Method, start: int, end: int) -> Method:
    """`owner` with `donor`'s instructions [start, end) (and the markers before them) put in address order."""
    run = donor.instructions[start:end]
    order = sorted([(ins.address, 0, k) for k, ins in enumerate(owner.instructions)]
                   + [(ins.address, 1, k) for k, ins in enumerate(run)])
    where = {(side, k): pos for pos, (_, side, k) in enumerate(order)}
    where[(0, len(owner.instructions))] = len(order)
    markers = [(where[(0, i)], label) for i, label in owner.markers]
    markers += [(where[(1, i - start)], label) for i, label in donor.markers if start <= i < end]
    instructions = tuple(owner.instructions[k] if side == 0 else run[k] for _, side, k in order)
    note = (run[0].line, f"[{FEATURE}] lines {run[0].line}-{run[-1].line} of this method were printed "
            f"inside {donor.header.name} and are read here")
    return replace(owner, instructions=instructions, markers=tuple(sorted(markers, key=lambda m: m[0])),
                   skipped=tuple(sorted((*owner.skipped, note))), features=owner.features | {FEATURE})


def _without(method: Method, moved: list[bool]) -> Method:
    new_index = _reindex(moved)
    markers = tuple((new_index[i], label) for i, label in method.markers if i >= len(moved) or not moved[i])
    kept = tuple(ins for ins, gone in zip(method.instructions, moved, strict=True) if not gone)
    return replace(method, instructions=kept, markers=markers, features=method.features | {FEATURE})
