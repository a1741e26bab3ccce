"""The inlining of a compilation as a tree: each call site of the log's parse (caller, bci, callee, decision and
reason, the callee's bytecode size, the profile's count and receiver types), nested under the inlined call it
is in, with the share of the run's samples under it.

A node's share sums the measured heat (first event) of the instructions whose debug info names that inlined
frame: the callee's own code at that call site and what was inlined into it. HotSpot prints debug info at
safepoints, calls, traps and, with `-XX:+DebugNonSafepoints` (which `asmcfg record` passes), at most other
instructions: samples on an instruction that carries none are counted in no node, and the root's `share` is the
whole compilation's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from asmcfg import describe
from asmcfg.model import Analysis

if TYPE_CHECKING:  # the log's records are made by the dialect: a run without a log never loads them
    from asmcfg.model import LogInline

Chain = tuple[tuple[str, int | None], ...]
MOST_DEPTH = 256
"""Frames, at most, of an instruction whose heat is shared out (each frame's key holds the chain outside it: a crafted
dump's deeper debug info would cost its depth squared); as the log's calls are kept (`logcompilation.inline`)."""


@dataclass(slots=True)
class Node:
    """One inlining decision, and the decisions made inside the method it inlined."""

    decision: LogInline
    share: float | None
    children: list[Node] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The node as the JSON model writes it."""
        d = self.decision
        return {"caller": d.caller, "bci": d.bci, "callee": d.callee, "inlined": d.inlined, "reason": d.reason,
                "callee_bytes": d.callee_bytes, "count": d.count,
                "receivers": [{"type": name, "count": count} for name, count in d.receivers],
                "share": None if self.share is None else round(self.share, 4), "line": d.line,
                "children": [child.as_dict() for child in self.children]}


def tree(result: Analysis) -> list[Node] | None:
    """The compilation's call sites as a tree (its own call sites first level); None without a log."""
    decisions = result.cfg.method.log_inlines
    if decisions is None:
        return None
    shares = _shares(result)
    parents: dict[tuple[str, Chain], Node] = {}
    roots: list[Node] = []
    for decision in decisions:
        node = Node(decision, None if shares is None or not decision.inlined else
                    shares.get((decision.callee, decision.chain), 0.0))
        parent = parents.get((decision.chain[0][0], decision.chain[1:])) if len(decision.chain) > 1 else None
        (parent.children if parent is not None else roots).append(node)
        if decision.inlined:
            parents.setdefault((decision.callee, decision.chain), node)
    return roots


def _shares(result: Analysis) -> dict[tuple[str, Chain], float] | None:
    """Measured heat (first event) under each (inlined method, call-site chain); None without heat."""
    profile = result.cfg.method.profile
    if profile is None:
        return None
    sums: dict[tuple[str, Chain], float] = {}
    for ins in result.cfg.method.instructions:
        heat = profile.heat.get(ins.address)
        if not heat or not ins.frames or len(ins.frames) > MOST_DEPTH:
            continue
        chain = tuple((frame.method.replace("/", "."), frame.bci) for frame in ins.frames)
        for depth in range(1, len(chain)):
            key = (chain[depth - 1][0], chain[depth:])
            sums[key] = sums.get(key, 0.0) + heat[0]
    return sums


def as_json(result: Analysis) -> dict[str, Any] | None:
    """`inlining_tree`: the compiled method, its share, and its call sites' tree; None without a log."""
    nodes = tree(result)
    if nodes is None:
        return None
    profile = result.cfg.method.profile
    share = None if profile is None else round(sum(h[0] for h in profile.heat.values() if h), 4)
    return {"method": result.cfg.method.header.name, "share": share, "calls": [n.as_dict() for n in nodes]}


def text_lines(result: Analysis, limit: int = 200) -> list[str]:
    """The tree as indented text lines (`@12 Foo::bar  inlined (hot)  27 bytes  12.50%`)."""
    nodes = tree(result)
    if nodes is None:
        return ["no inlining decisions (no LogCompilation log)"]
    profile = result.cfg.method.profile
    total = "" if profile is None else f"  {sum(h[0] for h in profile.heat.values() if h):.2f}%"
    lines = [f"{result.cfg.method.header.name}{total}"]
    stack = [(node, 1) for node in reversed(nodes)]
    while stack and len(lines) <= limit:
        node, depth = stack.pop()
        d = node.decision
        size = "" if d.callee_bytes is None else f"  {d.callee_bytes} byte{'' if d.callee_bytes == 1 else 's'}"
        share = "" if node.share is None else f"  {node.share:.2f}%"
        receivers = ", ".join(f"{name} {count:,}" for name, count in d.receivers)
        seen = f"  receivers: {receivers}" if receivers else ""
        why = describe.inline_reason(d.inlined, d.reason)
        verdict = ("inlined" if d.inlined else "NOT inlined") + (f" ({why})" if why else "")
        lines.append(f"{'  ' * depth}@{d.bci} {d.callee}  {verdict}{size}{share}{seen}")
        stack.extend((child, depth + 1) for child in reversed(node.children))
    if stack:
        lines.append(f"… {sum(1 for _ in stack)} more call sites (see --json)")
    return lines
