"""Figures renderers show beside measured heat: loop heat, cold share, and what a hot path does per trip."""

from __future__ import annotations

from dataclasses import dataclass

from asmcfg import isa
from asmcfg.analyses.heat import heat_of, loop_blocks
from asmcfg.analyses.hotness import COLD_TAGS
from asmcfg.model import Analysis, Flow, HotPath, Instruction, Loop, RegionHeat, Trap

Heat = tuple[float, ...]


@dataclass(frozen=True, slots=True)
class ColdShare:
    """How much of the method's measured heat sits in cold code."""

    blocks: frozenset[int]
    """The cold blocks: tagged with a COLD_TAGS tag, or out of line."""
    heat: Heat
    """Percent of the run per event in those blocks."""
    share: Heat
    """Fraction (0..1) of the method's own heat per event in those blocks (0.0 when the method has none)."""


@dataclass(frozen=True, slots=True)
class PathFacts:
    """What one trip along a path meets."""

    instructions: int
    """Instructions executed per trip (the sum of the blocks' lengths)."""
    checks: tuple[tuple[int, str], ...]
    """(instruction index, `range_check`/`null_check`) of the check branches in the path's blocks."""
    traps: tuple[Trap, ...]
    """Traps called from the path's blocks."""
    polls: tuple[int, ...]
    """Instruction indexes of safepoint polls (`{poll}` and `{poll_return}`)."""
    calls: tuple[tuple[int, str], ...]
    """(instruction index, callee as printed) of the calls made."""


def loop_heat(result: Analysis, loop: Loop) -> Heat:
    """Summed percent per event over the loop's blocks (see heat.loop_blocks)."""
    return heat_of(result, loop_blocks(loop))


def loops_by_heat(result: Analysis) -> list[tuple[Loop, Heat]]:
    """Loops with their heat, hottest first (ties: deeper first, then by header)."""
    rows = [(loop, loop_heat(result, loop)) for loop in result.loops]
    return sorted(rows, key=lambda row: (tuple(-v for v in row[1]), -row[0].depth, row[0].header))


def method_heat(result: Analysis) -> Heat:
    """The method's measured heat: percent of the run per event over all blocks."""
    return heat_of(result, tuple(result.block_heat))


def out_of_line_blocks(result: Analysis) -> frozenset[int]:
    """Blocks laid out after the method's last return and outside every loop: where compilers put slow paths.

    Empty when the graph shows no return (a partial method may not)."""
    method = result.cfg.method
    table = isa.for_name(method.isa)
    returns = [b.id for b in result.cfg.blocks if table.flow(method.instructions[b.end - 1]) is Flow.RETURN]
    if not returns:
        return frozenset()
    in_loops = {block for loop in result.loops for block in loop_blocks(loop)}
    return frozenset(b.id for b in result.cfg.blocks if b.id > max(returns) and b.id not in in_loops)


def cold_blocks(result: Analysis) -> frozenset[int]:
    """Blocks tagged cold (traps, stubs, handlers, check failures) and out-of-line blocks."""
    tagged = {b.id for b in result.cfg.blocks if result.block_tags(b.id) & COLD_TAGS}
    return frozenset(tagged) | out_of_line_blocks(result)


def cold_share(result: Analysis) -> ColdShare:
    """The share of the method's samples that land in cold blocks."""
    blocks = cold_blocks(result)
    heat = heat_of(result, tuple(sorted(blocks)))
    total = method_heat(result)
    share = tuple(h / t if t > 0 else 0.0 for h, t in zip(heat, total, strict=True))
    return ColdShare(blocks, heat, share)


def instructions_per_iteration(result: Analysis, path: HotPath | tuple[int, ...]) -> int:
    """Instructions executed once along `path` (per iteration when the path goes round a loop)."""
    blocks = path.blocks if isinstance(path, HotPath) else path
    return sum(result.cfg.blocks[b].end - result.cfg.blocks[b].start for b in blocks)


def path_facts(result: Analysis, path: HotPath | tuple[int, ...]) -> PathFacts:
    """Checks, traps, polls and calls met along `path`, in path order."""
    blocks = path.blocks if isinstance(path, HotPath) else path
    method = result.cfg.method
    table = isa.for_name(method.isa)
    sites = [i for b in blocks for i in range(result.cfg.blocks[b].start, result.cfg.blocks[b].end)]
    on_path = set(blocks)
    checks = sorted({(edge.site, kind) for edge, kind in result.checks.items() if edge.src in on_path})
    polls = [i for i in sites if method.instructions[i].poll or method.instructions[i].poll_return]
    calls = [(i, _callee(method.instructions[i])) for i in sites if table.flow(method.instructions[i]) is Flow.CALL]
    traps = [result.traps[b] for b in blocks if b in result.traps]
    return PathFacts(
        instructions_per_iteration(result, blocks), tuple(checks), tuple(traps), tuple(polls), tuple(calls)
    )


def _callee(ins: Instruction) -> str:
    """The runtime routine, the call relocation (`{optimized virtual_call}`), or the operand."""
    return ins.runtime_call() or next((r for r in ins.relocs if "call" in r), "") or ins.operands


@dataclass(frozen=True, slots=True)
class Unattributed:
    """Samples perfasm counted in a compilation's regions but printed on no line of it."""

    heat: Heat
    """Percent of the run per event: the sum over the regions of what each total holds beyond its printed lines
    (of this compilation and of code it runs into; never below 0 for a region)."""
    regions: tuple[tuple[RegionHeat, Heat], ...]
    """Each region with its own unattributed percent per event (its total minus its printed lines)."""
    misdecoded: int
    """`.byte 0x62` lines in the regions: hsdis could not decode EVEX (AVX-512) instructions there."""
    elsewhere: Heat
    """Percent of the run in this compilation's regions perfasm did not print at all (below its threshold)."""
    margins: Heat
    """Percent of the run on printed lines of this compilation outside its regions' ranges (shown in the margin
    of a region, counted in another region's total): block heat + `heat` - `margins` = the region totals."""


def unattributed(result: Analysis) -> Unattributed | None:
    """What the printed lines miss of the compilation's region totals; None without perfasm regions."""
    profile = result.cfg.method.profile
    if profile is None or not profile.regions:
        return None
    width = len(profile.events)
    regions = tuple((r, tuple(max(0.0, r.total[i] - r.printed[i] - (r.spilled[i] if r.spilled else 0.0))
                              for i in range(width))) for r in profile.regions)
    heat = tuple(sum(share[i] for _, share in regions) for i in range(width))
    owned = tuple(sum(r.printed[i] for r in profile.regions) for i in range(width))
    margins = tuple(max(0.0, h - o) for h, o in zip(method_heat(result), owned, strict=True))
    totals = tuple(sum(r.total[i] for r in profile.regions) for i in range(width))
    share = profile.method_share or totals
    elsewhere = tuple(max(0.0, s - t) for s, t in zip(share, totals, strict=True))
    return Unattributed(heat, regions, sum(r.misdecoded for r in profile.regions), elsewhere, margins)
