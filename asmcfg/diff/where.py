"""One-line names for the places a diff talks about: a scope chain, a trap, a check, a call, a loop."""

from __future__ import annotations

from asmcfg.diff.facts import Call, Inlined, Scope
from asmcfg.diff.items import CheckItem, LoopItem, PollItem, TrapItem


def scope(chain: Scope) -> str:
    """`Shapes$Circle::area@3 <- Shapes::total@27`, innermost first; `?` without debug info."""
    return " <- ".join(f"{method}@{bci}" for method, bci in chain) or "?"


def trap(item: TrapItem) -> str:
    """`class_check / maybe_recompile at invokeinterface area, Shapes::total@27 (B12)`."""
    at = f"{item.bytecode}, " if item.bytecode else ""
    return f"{item.reason} / {item.action} at {at}{scope(item.scope)} (B{item.block})"


def check(item: CheckItem) -> str:
    """`range_check of iaload at Foo::sum@12, in loop B9 (branch in B10)`."""
    kind = f"implicit {item.kind}" if item.implicit else item.kind
    place = f"in loop B{item.loop}" if item.loop is not None else "outside loops"
    return f"{kind} of {item.bytecode or '?'} at {scope(item.scope)}, {place} (B{item.block})"


def call(item: Call | Inlined | None) -> str:
    """`interface call area at Shapes::total@27 (B8)`, or an inlined invoke."""
    if item is None:
        return "?"
    if isinstance(item, Inlined):
        return f"{item.callee} inlined at {scope(item.scope)}"
    return f"{item.kind} call {item.callee} at {scope(item.scope)} (B{item.block})"


def poll(item: PollItem) -> str:
    """`poll at Foo::sum@40 in loop B5 (B7)`."""
    place = f"in loop B{item.loop}" if item.loop is not None else "outside loops"
    return f"poll at {scope(item.scope)} {place} (B{item.block})"


def loop(item: LoopItem) -> str:
    """`B9` with its role: `B8 (strip-mined outer)`."""
    return f"B{item.header}" + (" (strip-mined outer)" if item.strip_mined else "")
