"""C2's traps against a JVMCI compiler's (Graal's): the two encode a deopt differently and name some reasons
otherwise (`unreached0` is `null_assert`'s number), so across the two their traps also pair by the method@bci
chain they deoptimize to (or the methods of it), and a pair whose reason or action differs is a change of its own."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from asmcfg.compare.facts import Scope
from asmcfg.compare.items import Side, TrapItem
from asmcfg.hotspot.deopt import plain_reason
from asmcfg.model import Compiler


def across(old: Side, new: Side) -> bool:
    """One side is a JVMCI compiler's and the other not."""
    compilers = {old.result.cfg.method.header.compiler, new.result.cfg.method.header.compiler}
    return Compiler.JVMCI in compilers and len(compilers) == 2


def keys(methods: Callable[[Scope], Hashable]) -> list[Callable[[TrapItem], Hashable]]:
    """Pairing keys after the strict one: the reason by its number at the same chain, the chain alone, then the
    reason in the same `methods` of the chain (Graal deoptimizes to the frame state before a check, often an
    earlier bci than C2's trap: a range check's trap at `iaload@2` in C2 is at the method's `@0` in Graal)."""
    return [lambda t: (plain_reason(t.reason), t.scope), lambda t: t.scope,
            lambda t: (plain_reason(t.reason), methods(t.scope))]


def differ(old: TrapItem, new: TrapItem) -> bool:
    """The paired traps ask for another reason or action."""
    return (plain_reason(old.reason), old.action) != (plain_reason(new.reason), new.action)
