"""The bytecode beside a compilation: each method its debug info names, matched to its class file's code.

A name (`pkg.Class::m`) can stand for several overloads; the debug info does not print descriptors. The code
shown is the one overload whose bytecodes agree with every frame of that method in the compilation (a bytecode
starts at each frame's bci, on the frame's line when both have one); with none or several agreeing, no code is
tied to the compilation (right or absent), and the page says why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asmcfg.model import Analysis
from asmcfg.model.bytecode import ClassFiles, MethodCode
from asmcfg.sources.classpath import class_of

MOST_OVERLOADS = 256
"""Overloads of one method checked against the compilation's frames, at most."""


@dataclass(frozen=True, slots=True)
class Matched:
    """One method of a compilation and its code, or why it has none here."""

    method: str
    """`pkg.Class::m`."""
    code: MethodCode | None
    """The overload whose bytecodes agree with the compilation's frames, None when none or several do."""
    why_not: str | None
    """Why `code` is None (no class file, not agreeing, ambiguous); None when it is set."""
    read_from: str | None
    """Where the class file was read."""


def methods_named(result: Analysis) -> list[str]:
    """The compilation's own method first, then every method its debug info names, in order of first mention."""
    names = {result.cfg.method.header.name: None}
    for ins in result.cfg.method.instructions:
        for frame in ins.frames:
            names.setdefault(frame.method, None)
    return list(names)


def _frames(result: Analysis) -> dict[str, set[tuple[int, int | None]]]:
    found: dict[str, set[tuple[int, int | None]]] = {}
    for ins in result.cfg.method.instructions:
        for frame in ins.frames:
            found.setdefault(frame.method, set()).add((frame.bci, frame.line))
    return found


def _agrees(code: MethodCode, frames: set[tuple[int, int | None]]) -> bool:
    return all(_fits(code, bci, line) for bci, line in frames)


def _fits(code: MethodCode, bci: int, line: int | None) -> bool:
    if bci < 0:  # the method's entry (a synchronized method's lock): no bytecode
        return True
    at = code.at(bci)
    return at is not None and (line is None or at.line is None or at.line == line)


def match(result: Analysis, classes: ClassFiles) -> list[Matched]:
    """Each method of the compilation with its code, in `methods_named` order."""
    frames = _frames(result)
    out = []
    for name in methods_named(result):
        cls = class_of(name)
        where = classes.read_from.get(cls)
        if cls in classes.absent:
            out.append(Matched(name, None, classes.absent[cls], None))
            continue
        candidates = classes.methods.get(name, ())
        if len(candidates) > MOST_OVERLOADS:  # a crafted class file's: each would be checked against every frame
            out.append(Matched(name, None, f"its class file has more than {MOST_OVERLOADS} overloads of it", where))
            continue
        fit = [c for c in candidates if _agrees(c, frames.get(name, set()))]
        if len(fit) == 1:
            out.append(Matched(name, fit[0], None, where))
        elif not candidates:
            out.append(Matched(name, None, "its class file has no code for it (a native or abstract method)", where))
        elif not fit and len(candidates) > 1 and all(any(_fits(c, bci, line) for c in candidates)
                                                     for bci, line in frames.get(name, set())):
            out.append(Matched(name, None, "several of its overloads are in this code, and the debug info does not "
                               "say which frame is which", where))
        elif not fit:
            out.append(Matched(name, None, "its class file does not match the compiled code (a bci or line of the "
                               "debug info differs): not the class file that ran", where))
        else:
            out.append(Matched(name, None, f"{len(fit)} overloads agree with the debug info: which one ran is "
                               "unknown", where))
    return out


def cite(matched: list[Matched], scope: str, bci: int | None) -> str | None:
    """`iaload@17`: the bytecode at `bci` of `scope`, when its code is at hand."""
    if bci is None:
        return None
    for item in matched:
        if item.method == scope and item.code is not None:
            at = item.code.at(bci)
            return None if at is None else f"{at.name}@{bci}"
    return None


def page_dict(matched: list[Matched]) -> dict[str, Any]:
    """What the page's bytecode pane shows: per method its code, or why none."""
    return {m.method: {"descriptor": m.code.descriptor if m.code else None, "read_from": m.read_from,
                       "why_not": m.why_not, "codes": [b.as_dict() for b in m.code.codes] if m.code else []}
            for m in matched}
