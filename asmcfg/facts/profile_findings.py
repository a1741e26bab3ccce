"""`profile-mismatch`: a branch C2 compiled as one the profile almost never saw go one way, whose rare side the
measured run takes often.

C2 compiles against the profile the interpreter and C1 gathered before it; its own code gathers none, so when the
run leaves the phase that profile came from, the code keeps the old layout (the rare side out of line, values
kept for the common side) until something deoptimizes it. The finding rests on a `<branch>` record tied to the
conditional jumps whose debug info names it (`branch_profile`), on the profile's figures (the rarer direction at
most `RARE` of the executions), and on the samples: the side the profile called rare (known by its debug info:
the blocks of the not-taken side of a forward `if` name only bytecodes between the `if` and its target) holds at
least `MIN_SHARE` percent of the run's samples, at a rate per instruction at least `AS_OFTEN` of the rate of the
jumps, which run every time the branch does."""

from __future__ import annotations

from dataclasses import dataclass

from asmcfg import describe
from asmcfg.analyses.heat import heat_of
from asmcfg.facts.branch_profile import BranchSite, branch_sites, chain_of
from asmcfg.facts.findings_frame import MIN_SHARE, at_site, innermost_loops, loop_where
from asmcfg.model import Analysis, Block, Edge, EdgeKind
from asmcfg.model.findings import Finding, FindingKind

RARE = 0.01
"""The profile called a direction rare when it saw it on at most this fraction of the executions."""
AS_OFTEN = 0.1
"""The rare side's samples per instruction, at least this fraction of the jumps' own."""
SUGGESTION = ("C2 compiled this branch for the warm-up's mix, and compiled code gathers no profile: warm the code "
              "with data like the run's (or run the phases in methods of their own) so C2 compiles against the "
              "profile the run keeps to; where both sides stay common, a branch-free form (compute both, select) "
              "does not depend on the profile")


def profile_findings(result: Analysis) -> list[Finding]:
    """The compilation's profile-mismatch findings; none without measured heat or a log."""
    if result.cfg.method.profile is None:
        return []
    found: list[Finding] = []
    graph: _Graph | None = None
    for site in branch_sites(result) or ():
        record = site.record
        if record.prob is None or min(record.prob, 1.0 - record.prob) > RARE or not site.blocks:
            continue
        graph = graph or _Graph.of(result)
        made = _branch_finding(result, site, graph)
        if made is not None:
            found.append(made)
    return found


@dataclass(frozen=True, slots=True)
class _Graph:
    """The lookups every branch needs, made once per compilation (linear time)."""

    spans: dict[int, Block]
    entered: dict[int, int]
    """How many edges enter each block."""
    sides: dict[int, list[Edge]]
    """The conditional edges leaving each block."""

    @staticmethod
    def of(result: Analysis) -> _Graph:
        entered: dict[int, int] = {}
        sides: dict[int, list[Edge]] = {}
        for edge in result.cfg.edges:
            if isinstance(edge.dst, int):
                entered[edge.dst] = entered.get(edge.dst, 0) + 1
                if edge.kind in (EdgeKind.TAKEN, EdgeKind.FALLTHROUGH):
                    sides.setdefault(edge.src, []).append(edge)
        return _Graph({b.id: b for b in result.cfg.blocks}, entered, sides)


def _rare_sides(result: Analysis, site: BranchSite, graph: _Graph) -> list[tuple[int, int]]:
    """(jump block, rare side block) for each of the site's jumps whose sides are known: the not-taken side is the
    one entered only from the jump whose debug info names only bytecodes between the `if` and its forward target
    (code that runs only when the jump is not taken), the other side naming none of them."""
    record = site.record
    if record.bci is None or record.target_bci is None or record.target_bci <= record.bci:
        return []
    rare_taken = (record.prob or 0.0) <= RARE
    spans, entered = graph.spans, graph.entered
    found = []
    for block in site.blocks:
        sides = [e.dst for e in graph.sides.get(block, ()) if isinstance(e.dst, int)]
        if len(sides) != 2 or sides[0] == sides[1] or any(entered.get(b, 0) != 1 for b in sides):
            continue
        inside = [_between(result, spans[b].start, spans[b].end, record.chain, record.bci, record.target_bci)
                  for b in sides]
        if inside.count(True) != 1 or inside.count(False) != 1:
            continue
        not_taken = sides[inside.index(True)]
        taken = sides[inside.index(False)]
        found.append((block, taken if rare_taken else not_taken))
    return found


def _between(result: Analysis, start: int, end: int, chain: tuple[tuple[str, int | None], ...], bci: int,
             target: int) -> bool | None:
    """True when the instructions' debug info in the branch's method (same outer chain) names only bytecodes
    between `bci` and `target`, False when it names none of them, None when mixed or none at all."""
    outer = chain[1:]
    method = chain[0][0]
    inside = outside = 0
    for ins in result.cfg.method.instructions[start:end]:
        own = chain_of(ins)
        if not own or own[1:] != outer or own[0][0] != method or own[0][1] is None:
            continue
        if bci < own[0][1] < target:
            inside += 1
        else:
            outside += 1
    if inside and not outside:
        return True
    if outside and not inside:
        return False
    return None if inside or outside else False


def _branch_finding(result: Analysis, site: BranchSite, graph: _Graph) -> Finding | None:
    pairs = _rare_sides(result, site, graph)
    if not pairs:
        return None
    spans = {b: graph.spans[b].end - graph.spans[b].start for pair in pairs for b in pair}
    rare_heat = heat_of(result, [rare for _, rare in pairs])[0]
    jump_heat = heat_of(result, [jump for jump, _ in pairs])[0]
    rare_size = sum(spans[rare] for _, rare in pairs)
    jump_size = sum(spans[jump] for jump, _ in pairs)
    if rare_heat < MIN_SHARE or jump_heat <= 0:
        return None
    ratio = (rare_heat / max(1, rare_size)) / (jump_heat / max(1, jump_size))
    if ratio < AS_OFTEN:
        return None
    record = site.record
    seen = (record.taken or 0) + (record.not_taken or 0)
    rare = min(record.taken or 0, record.not_taken or 0)
    direction = "taken" if (record.prob or 0.0) <= RARE else "not taken"
    first = pairs[0][0]
    place = at_site(result, _jump_site(graph, first))
    loop = innermost_loops(result).get(first)
    where = loop_where(result, loop) if loop is not None else None
    evidence = [
        f"log line {record.line}: <branch> of {record.method}@{record.bci} (to bci {record.target_bci}): taken "
        f"{_n(record.taken)} and not taken {_n(record.not_taken)} times in the profile (prob {_p(record.prob)})",
        f"{describe.count(len(pairs), 'jump')} whose debug info names {place.text}: "
        + ", ".join(f"B{jump} (its {direction} side B{side})" for jump, side in pairs),
        f"the {direction} side is known by its debug info: the not-taken side's blocks name only bytecodes "
        f"between bci {record.bci} and {record.target_bci}",
        f"the {direction} side took {rare_heat:.2f}% of the run's samples on "
        f"{describe.count(rare_size, 'instruction')}, the jumps "
        f"{jump_heat:.2f}% on {jump_size}: per instruction {ratio:.0%} of the jumps' rate, where the profile's "
        f"{rare:,} in {seen:,} ({100 * rare / max(1, seen):.3g}%) would give next to none",
    ]
    if where is not None:
        evidence.append(where.figure)
    cause = (f"C2 compiled the branch at {place.text} for a profile that saw it {direction} {rare:,} times in "
             f"{seen:,}, and laid that side out as one that almost never runs; the run takes it: it holds "
             f"{rare_heat:.2f}% of the run's samples")
    header = result.cfg.method.header
    return Finding(FindingKind.PROFILE_MISMATCH, header.compile_id, header.name, first, place.bci, place.line,
                   place.scope, rare_heat, None, cause, tuple(evidence), SUGGESTION)


def _jump_site(graph: _Graph, block: int) -> int:
    return next(e.site for e in graph.sides[block] if e.kind is EdgeKind.TAKEN)


def _n(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _p(prob: float | None) -> str:
    return "unknown" if prob is None else "never" if prob == 0.0 else "always" if prob == 1.0 else f"{prob:g}"
