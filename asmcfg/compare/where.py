"""One-line names for the places a diff talks about: a scope chain, a trap, a check, a call, a loop."""

from __future__ import annotations

from asmcfg import describe
from asmcfg.compare.facts import Inlined, Scope
from asmcfg.compare.items import CallItem, CheckItem, LoopItem, PollItem, TrapItem
from asmcfg.model import LoopRole


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


def call(item: CallItem | Inlined | None) -> str:
    """`interface call area at Shapes::total@27 (B8)` (with the log's reason when it has one: `, not inlined: hot
    method too big`), or an inlined invoke (`tiny inlined at Inlining::run@11 (log: inline (hot))`)."""
    if item is None:
        return "?"
    if isinstance(item, Inlined):
        said = f" (log: {item.reason})" if item.evidence == "log" else ""
        return f"{item.callee} inlined at {scope(item.scope)}{said}"
    why = f", not inlined: {item.why}" if item.why else ""
    kind = describe.CALL_KINDS[item.kind]
    return f"{kind} call {item.callee or '?'} at {scope(item.scope)} (B{item.block}){why}"


def poll(item: PollItem) -> str:
    """`poll at Foo::sum@40 in loop B5 (B7)`."""
    place = f"in loop B{item.loop}" if item.loop is not None else "outside loops"
    return f"poll at {scope(item.scope)} {place} (B{item.block})"


def loop(item: LoopItem) -> str:
    """`B9` with its copy role: `B8 (strip-mined outer)`, `B12 (main loop x4)`."""
    outer = LoopRole.STRIP_MINED_OUTER if item.strip_mined else LoopRole.NONE
    role = describe.loop_text(item.role or outer, item.unroll, "")
    return f"B{item.header}" + (f" ({role})" if role else "")
