"""What every finding rests on: where a place is (bytecode, bci, line), which loop a block is in, and how hot a
loop or block is (measured share, or the static estimate without heat)."""

from __future__ import annotations

from dataclasses import dataclass

from asmcfg.analyses.heat import heat_of, loop_blocks
from asmcfg.model import Analysis, Loop

MIN_SHARE = 0.5
"""Percent of the run's samples below which nothing is hot enough to be a finding."""
PREDICATE_REASONS = frozenset({"predicate", "profile_predicate", "loop_limit_check", "short_running_loop",
                               "auto_vectorization_check"})
"""Trap reasons of the checks C2 hoists before a loop (loop predication)."""


@dataclass(frozen=True, slots=True)
class Where:
    """A bytecode: its method, bci and line, and how a finding writes it (`iaload@21 line 17`)."""

    scope: str
    bci: int | None
    line: int | None
    text: str


@dataclass(frozen=True, slots=True)
class Heat:
    """How hot a place is: the measured share, or the static estimate, and the sentence saying which."""

    share: float | None
    """Percent of the run's samples (first event), None without heat."""
    estimate: int | None
    """Loop depth × instructions, without heat."""
    figure: str
    """The figure as evidence."""
    hot: bool | None = None
    """Whether it is hot, when not by its own share (a block of a hot loop); None: by `share` or `estimate`."""


def at_site(result: Analysis, site: int) -> Where:
    """The debug info of instruction `site`, else of the nearest one before it in the method that has some."""
    instructions = result.cfg.method.instructions
    for index in range(site, max(-1, site - 64), -1):
        ins = instructions[index]
        if ins.frames:
            frame = ins.frames[0]
            name = ins.bytecode.split(" ")[0] if index == site and ins.bytecode else ""
            place = f"{name}@{frame.bci}" if name else f"bci {frame.bci}"
            line = f" line {frame.line}" if frame.line is not None else ""
            return Where(frame.method, frame.bci, frame.line, f"{place}{line}")
    return Where("", None, None, "no debug info")


def innermost_loops(result: Analysis) -> dict[int, Loop]:
    """The innermost loop of each block that is in one."""
    inner: dict[int, Loop] = {}
    for loop in result.loops:  # outermost first: a deeper loop overwrites
        for block in loop_blocks(loop):
            held = inner.get(block)
            if held is None or loop.depth >= held.depth:
                inner[block] = loop
    return inner


def measured(result: Analysis) -> bool:
    """True when the compilation carries measured heat."""
    return result.cfg.method.profile is not None


def loop_instructions(result: Analysis, loop: Loop) -> int:
    """Instructions in the loop's blocks."""
    blocks = {b.id: b for b in result.cfg.blocks}
    return sum(blocks[b].end - blocks[b].start for b in loop_blocks(loop) if b in blocks)


def loop_where(result: Analysis, loop: Loop) -> Heat:
    """How hot a loop is."""
    if measured(result):
        share = heat_of(result, loop_blocks(loop))
        value = share[0] if share else 0.0
        return Heat(value, None, f"the loop at B{loop.header} took {value:.2f}% of the run's samples")
    size = loop_instructions(result, loop)
    return Heat(None, loop.depth * size, f"no measured heat: static estimate {loop.depth * size} "
                                         f"(loop depth {loop.depth} × {size} instructions)")


def block_where(result: Analysis, block: int) -> Heat:
    """How hot a block is: measured, its own share (hot when it or its loop takes `MIN_SHARE`); unmeasured, its
    loop's static estimate (none outside loops)."""
    loop = innermost_loops(result).get(block)
    around = loop_where(result, loop) if loop is not None else None
    if not measured(result):
        return around or Heat(None, None, "no measured heat, and not in a loop")
    share = heat_of(result, [block])
    value = share[0] if share else 0.0
    figure = f"B{block} took {value:.2f}% of the run's samples"
    if around is not None and around.share is not None and around.share >= MIN_SHARE > value:
        return Heat(value, None, f"{figure}; {around.figure}", hot=True)
    return Heat(value, None, figure + (f"; {around.figure}" if around is not None else ""))


def is_hot(heat: Heat) -> bool:
    """True when measured at `MIN_SHARE` percent or more, or, unmeasured, inside a loop (an estimate)."""
    if heat.hot is not None:
        return heat.hot
    if heat.share is not None:
        return heat.share >= MIN_SHARE
    return heat.estimate is not None


def pre_loop_traps(result: Analysis, loop: Loop) -> list[str]:
    """The loop-predicate traps branched to from blocks laid out before the loop's header, through out-of-line
    blocks laid out after the loop but from none of the loop's own (`predicate@9`)."""
    members = set(loop.blocks)
    sources: dict[int, set[int]] = {}
    for edge in result.cfg.edges:
        if isinstance(edge.dst, int):
            sources.setdefault(edge.dst, set()).add(edge.src)
    last = max(members)
    found = []
    for block, trap in sorted(result.traps.items()):
        if trap.reason not in PREDICATE_REASONS:
            continue
        seen, todo, before, inside = {block}, [block], False, False
        while todo and len(seen) < 32:  # back through the out-of-line jumps to the branches that reach the trap
            for src in sources.get(todo.pop(), ()):
                if src in members:
                    inside = True
                elif src < loop.header:
                    before = True
                elif src > last and src not in seen:
                    seen.add(src)
                    todo.append(src)
        if before and not inside:
            found.append(f"{trap.reason}@{trap.bci}" if trap.bci is not None else trap.reason)
    return list(dict.fromkeys(found))
