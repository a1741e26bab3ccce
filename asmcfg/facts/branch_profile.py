"""The compile-time branch profile on the graph: each `<branch>` record C2 read, tied to the conditional jumps of
the code by its inlining chain and bci, and the side that goes to the uncommon trap C2 planted there.

A jump is tied to a record when its own debug info (HotSpot prints it at branches with `-XX:+DebugNonSafepoints`,
which `asmcfg record` passes) names the record's `if` bytecode with the same whole inlining chain; a jump that
reaches, through blocks only it enters, an `unstable_if` trap whose debug info names that chain is tied too, and
that side is the trap side. Which side of a tied jump is the bytecode's taken side is not known (C2 may invert a
branch when it lays the code out): the figures are the bytecode's, set on the jump, and only the trap side is
named. A record no jump carries is left unlabelled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from asmcfg.model import Analysis, Edge, EdgeKind, Instruction

if TYPE_CHECKING:  # the log's records are made by the dialect: a run without a log never loads them
    from asmcfg.model import LogBranch

UNSTABLE_IF = "unstable_if"
_CONDITIONAL = (EdgeKind.TAKEN, EdgeKind.FALLTHROUGH)
Chain = tuple[tuple[str, int | None], ...]
MOST_PER_CHAIN = 4
"""Records of one chain with different figures tied to its jumps, at most (C2 parses a bytecode at one chain once or
twice; further ones are left unlabelled, so that records times jumps stays small)."""


@dataclass(frozen=True, slots=True)
class BranchSite:
    """One `<branch>` record of the compilation and where the code makes it."""

    record: LogBranch
    """The log's record (the first of those with the same chain and figures: C2 may parse a bytecode twice)."""
    blocks: tuple[int, ...]
    """The blocks whose conditional jump is the record's bytecode."""
    trap_edges: tuple[Edge, ...]
    """The edges of those jumps that go to the uncommon trap C2 planted for the side the profile never saw."""

    def as_dict(self) -> dict[str, Any]:
        """The record and its place in the graph, as the JSON model writes it."""
        return {**self.record.as_dict(), "blocks": list(self.blocks),
                "trap_edges": [{"from": e.src, "to": e.dst} for e in self.trap_edges]}

    def short(self) -> str:
        """`p=0.00 (4/66,562)`: the probability C2 gave the jump and taken/all, for a graph label."""
        record = self.record
        prob = "?" if record.prob is None else _prob(record.prob)
        taken, seen = record.taken, (record.taken or 0) + (record.not_taken or 0)
        return f"p={prob} ({taken}/{seen})" if taken is not None else f"p={prob}"

    def text(self) -> str:
        """`bci 8 → 26: taken 4, not taken 66,558 (p=never)`."""
        record = self.record
        prob = "unknown" if record.prob is None else _prob(record.prob)
        return (f"{record.method}@{record.bci} → {record.target_bci}: taken {_n(record.taken)}, not taken "
                f"{_n(record.not_taken)} (p={prob})")


def _prob(prob: float) -> str:
    return "never" if prob == 0.0 else "always" if prob == 1.0 else f"{prob:.4g}"


def _n(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def chain_of(ins: Instruction) -> Chain:
    """An instruction's debug info as an inlining chain, innermost first."""
    return tuple((frame.method.replace("/", "."), frame.bci) for frame in ins.frames)


def branch_sites(result: Analysis) -> list[BranchSite] | None:
    """The compilation's branch records tied to the graph; None without a log."""
    records = result.cfg.method.log_branches
    if records is None:
        return None
    unique: dict[tuple[Chain, int | None, int | None, int | None], LogBranch] = {}
    for record in records:
        unique.setdefault((record.chain, record.target_bci, record.taken, record.not_taken), record)
    if not unique:
        return []
    jumps = _jumps_by_chain(result)
    traps = _trap_edges_by_chain(result)
    tied: dict[Chain, int] = {}
    sites = []
    for record in unique.values():
        tied[record.chain] = tied.get(record.chain, 0) + 1
        if tied[record.chain] > MOST_PER_CHAIN:  # a crafted log's: each would repeat every jump of the chain
            sites.append(BranchSite(record, (), ()))
            continue
        sites.append(BranchSite(record, tuple(sorted(jumps.get(record.chain, ()))), tuple(traps.get(record.chain, ()))))
    return sites


def _conditional_blocks(result: Analysis) -> dict[int, list[Edge]]:
    out: dict[int, list[Edge]] = {}
    for edge in result.cfg.edges:
        if edge.kind in _CONDITIONAL:
            out.setdefault(edge.src, []).append(edge)
    return {block: edges for block, edges in out.items() if len(edges) == 2}


def _jumps_by_chain(result: Analysis) -> dict[Chain, set[int]]:
    """The blocks whose conditional jump's debug info names an `if` bytecode, by its chain."""
    instructions = result.cfg.method.instructions
    found: dict[Chain, set[int]] = {}
    for block, edges in _conditional_blocks(result).items():
        ins = instructions[edges[0].site]
        if ins.frames and ins.bytecode.startswith("if"):
            found.setdefault(chain_of(ins), set()).add(block)
    return found


def _trap_edges_by_chain(result: Analysis) -> dict[Chain, list[Edge]]:
    """The conditional edges that reach an `unstable_if` trap through blocks only they enter, by the trap's chain."""
    preds: dict[int, list[Edge]] = {}
    for edge in result.cfg.edges:
        if isinstance(edge.dst, int):
            preds.setdefault(edge.dst, []).append(edge)
    conditional = _conditional_blocks(result)
    instructions = result.cfg.method.instructions
    found: dict[Chain, list[Edge]] = {}
    for block, trap in sorted(result.traps.items()):
        if trap.reason != UNSTABLE_IF:
            continue
        way = _only_way_in(block, preds, conditional)
        if way is not None:
            found.setdefault(chain_of(instructions[trap.site]), []).append(way)
    return found


def _only_way_in(block: int, preds: dict[int, list[Edge]], conditional: dict[int, list[Edge]]) -> Edge | None:
    """The conditional edge every way into `block` comes through (back over blocks entered one way), or None."""
    seen = {block}
    for _ in range(8):
        incoming = preds.get(block, [])
        if len(incoming) != 1:
            return None
        edge = incoming[0]
        if edge.src in conditional and edge.kind in _CONDITIONAL:
            return edge
        if edge.src in seen or (edge.kind is not EdgeKind.FALLTHROUGH and edge.kind is not EdgeKind.JUMP):
            return None
        seen.add(edge.src)
        block = edge.src
    return None


Labels = tuple[dict[int, str], dict[tuple[int, int | str], str]]
_last: list[tuple[Analysis, Labels]] = []
"""The labels of the last compilation asked for: a graph asks once per block and edge."""


def labels(result: Analysis) -> Labels:
    """Short graph labels: per jump block (`branch@8 p=never (4/66562)`) and per trap edge (`profile: never`)."""
    last = _last[0] if _last else None
    if last is not None and last[0] is result:
        return last[1]
    blocks: dict[int, str] = {}
    edges: dict[tuple[int, int | str], str] = {}
    for site in (branch_sites(result) or ()) if result.cfg.method.log_branches else ():
        for block in site.blocks:
            blocks.setdefault(block, f"branch@{site.record.bci} {site.short()}")
        for edge in site.trap_edges:
            edges[(edge.src, edge.dst)] = "profile: never"
    _last[:] = [(result, (blocks, edges))]
    return blocks, edges
