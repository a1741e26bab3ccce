"""Range checks and null checks: branches whose taken path reaches a range_check/null_check trap.

A range check is an unsigned compare and branch of either polarity: `cmp; jae <trap>`, or, as C2 lays out some
loops (OSR loops among them), `cmp; jb <loop body>` with the trap on the not-taken side, right after the branch.
"""

from __future__ import annotations

from dataclasses import replace

from asmcfg.analyses.context import Context, add_tags
from asmcfg.model import Analysis, Check, Edge, EdgeKind, Flow, Tag

_MAX_HOPS = 32
_CHECKS = {check.value: check for check in Check}
"""The checks by the trap reason their failure path ends in."""


def run(ctx: Context, result: Analysis) -> Analysis:
    """Mark check edges and tag the failure paths they lead to."""
    checks = dict(result.checks)
    tags: dict[int, set[Tag]] = {}
    for edges in ctx.successors.values():
        for edge in edges:
            reason, path = _check_of(ctx, result, edge)
            if reason is None:
                continue
            checks[edge] = reason
            for block in path:
                tags.setdefault(block, set()).add(reason.tag)
    return add_tags(replace(result, checks=checks), tags)


def _check_of(ctx: Context, result: Analysis, edge: Edge) -> tuple[Check | None, list[int]]:
    kind, site, dst = edge.kind, edge.site, edge.dst
    if not isinstance(dst, int):
        return None, []
    if kind is EdgeKind.EXCEPTION:
        return Check.NULL, [dst]
    if kind is EdgeKind.FALLTHROUGH:
        return _fallthrough_check(ctx, result, edge.src, site, dst)
    if kind is not EdgeKind.TAKEN:
        return None, []
    path = failure_path(ctx, result, dst)
    if not path:
        return None, []
    reason = _CHECKS.get(result.traps[path[-1]].reason)
    if reason is None:
        return None, []
    if reason is Check.RANGE and not _unsigned(ctx, site):
        return None, []
    return reason, path


def _fallthrough_check(
    ctx: Context, result: Analysis, src: int, site: int, dst: int
) -> tuple[Check | None, list[int]]:
    """A range check whose trap is on the not-taken side of an unsigned branch whose taken side is no failure
    path (`cmp; jb <body>`, then the trap)."""
    if ctx.layout.flows[site] is not Flow.COND or not _unsigned(ctx, site):
        return None, []
    path = failure_path(ctx, result, dst)
    if not path or _CHECKS.get(result.traps[path[-1]].reason) is not Check.RANGE:
        return None, []
    taken = [e.dst for e in ctx.successors.get(src, ()) if e.kind is EdgeKind.TAKEN]
    if any(isinstance(other, int) and failure_path(ctx, result, other) for other in taken):
        return None, []
    return Check.RANGE, path


def _unsigned(ctx: Context, site: int) -> bool:
    return ctx.table.base_mnemonic(ctx.cfg.method.instructions[site].mnemonic) in ctx.table.unsigned_conditional


def failure_path(ctx: Context, result: Analysis, start: int) -> list[int]:
    """Blocks from `start` to a trap through straight-line code and jumps only, or [] if none."""
    path: list[int] = []
    current: int | None = start
    while current is not None and current not in path and len(path) < _MAX_HOPS:
        path.append(current)
        if current in result.traps:
            return path if _straight(ctx, current, result.traps[current].site) else []
        block = ctx.block(current)
        if not _straight(ctx, current, block.end):
            return []
        current = _next_hop(ctx, current)
    return []


_BLOCKED = frozenset({Flow.CALL, Flow.COND, Flow.RETURN, Flow.INDIRECT, Flow.HALT})


def _straight(ctx: Context, block_id: int, stop: int) -> bool:
    """No call, conditional branch or return in the block before index `stop`."""
    block = ctx.block(block_id)
    return _BLOCKED.isdisjoint(ctx.layout.flows[block.start : min(stop, block.end)])


def _next_hop(ctx: Context, block_id: int) -> int | None:
    edges = [e for e in ctx.successors.get(block_id, ()) if e.kind in (EdgeKind.JUMP, EdgeKind.FALLTHROUGH)]
    if len(edges) == 1 and isinstance(edges[0].dst, int):
        return edges[0].dst
    return None
