"""What the diff reads of a compilation beyond the analysis' own records: scope chains as (method, bci) pairs and
the evidence that an invoke was compiled inline (the log's `<inline_success>` records, else the debug info).

Calls, their kinds and the log's decision at each call site come from the `calls` pass (`Analysis.calls`), loop
copies and vector widths from the `copies` and `vectors` passes (`Analysis.loop_facts`); an inlined call leaves
no call behind, so its evidence is read here.
"""

from __future__ import annotations

from dataclasses import dataclass

from asmcfg.model import Analysis, Compiler, Frame

Scope = tuple[tuple[str, int], ...]
"""An inlining chain as (method, bci) pairs, innermost first."""

_TYPE_GUARDS = frozenset({"class_check", "bimorphic", "speculate_class_check", "type_checked_inlining",
                          "optimized_type_check"})
"""Trap reasons that guard a call inlined for the receiver types the profile saw."""


@dataclass(frozen=True, slots=True)
class Inlined:
    """Evidence that an invoke was compiled inline."""

    callee: str
    """Short name of the inlined method (`area`)."""
    scope: Scope
    """The invoke's (method, bci) chain in the caller, innermost first (from the log: the caller alone)."""
    evidence: str = "debug info"
    """`debug info` (code of the callee with the invoke below it, or a type-guard trap at the invoke) or `log`
    (the LogCompilation `<inline_success>` record at that call site)."""
    reason: str = ""
    """The log's reason (`inline (hot)`), empty for debug-info evidence."""


def scope_of(frames: tuple[Frame, ...]) -> Scope:
    """A frame chain as (method, bci) pairs, methods spelled as the log spells them (`java.lang.String::charAt`)."""
    return tuple((f.method.replace("/", "."), f.bci) for f in frames)


def short_name(method: str) -> str:
    """`area` from `Shapes$Circle::area`."""
    return method.rsplit("::", 1)[-1]


def has_log(result: Analysis) -> bool:
    """True when the compilation was read with its LogCompilation task (the XML itself, or `--log`)."""
    return result.cfg.method.log_inlines is not None


def inlined(result: Analysis) -> tuple[Inlined, ...]:
    """Invokes compiled inline: with a log, the call sites of its `<inline_success>` records; without one, those
    the debug info shows (a frame chain that runs through them, or a type-guard trap at the invoke, a
    profile-guided inline)."""
    if has_log(result) and result.cfg.method.header.compiler is not Compiler.JVMCI:  # JVMCI logs no decisions
        return tuple(sorted({Inlined(short_name(d.callee), ((d.caller, d.bci if d.bci is not None else -1),), "log",
                                     d.reason) for d in result.cfg.method.log_inlines or () if d.inlined},
                            key=lambda i: (i.scope, i.callee)))
    found: set[Inlined] = set()
    for ins in result.cfg.method.instructions:
        for depth in range(len(ins.frames) - 1):
            found.add(Inlined(short_name(ins.frames[depth].method), scope_of(ins.frames[depth + 1 :])))
    instructions = result.cfg.method.instructions
    for trap in result.traps.values():
        frames = instructions[trap.site].frames
        if trap.reason in _TYPE_GUARDS and trap.bytecode.startswith("invoke") and frames:
            parts = trap.bytecode.split()
            found.add(Inlined(parts[1] if len(parts) > 1 else "?", scope_of(frames)))
    return tuple(sorted(found, key=lambda i: (i.scope, i.callee)))
