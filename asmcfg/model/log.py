"""The LogCompilation log's records of one compilation: its uncommon traps, its inlining decisions and the branch
profile C2 read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asmcfg.model.words import TrapOrigin


@dataclass(frozen=True, slots=True)
class LogTrap:
    """An `<uncommon_trap>` record of the log, to set beside the traps decoded from the code."""

    compile_id: int
    """The compilation it belongs to."""
    origin: TrapOrigin
    """`parse`: the compiler emitted the trap (in `<task>`); `runtime`: the trap fired (in `<tty>`)."""
    method: str
    """`pkg.Class::name` of the scope the trap is in (an inlined method for inlined code), or empty."""
    bci: int | None
    """Bytecode index in that method."""
    reason: str
    """Deoptimization reason (`range_check`)."""
    action: str
    """Deoptimization action (`make_not_entrant`)."""
    comment: str
    """The record's `comment` attribute, if any."""
    line: int
    """Line of the record in the log."""
    chain: tuple[tuple[str, int | None], ...] = ()
    """For a run-time record, every `<jvms>` scope as (method, bci), innermost first: the inlining chain of the
    trap that fired. Empty for parse records."""

    def as_dict(self, *fields: str) -> dict[str, Any]:
        """The named fields, in that order, as the JSON model writes them."""
        return {name: getattr(self, name) for name in fields}


@dataclass(frozen=True, slots=True)
class LogInline:
    """One inlining decision of a LogCompilation `<task>`: a `<call>` and its `<inline_success>`/`<inline_fail>`."""

    compile_id: int
    """The compilation it belongs to."""
    caller: str
    """`pkg.Class::name` of the method being parsed at the call (an inlined method for a call inside inlined code)."""
    bci: int | None
    """Bytecode index of the call in the caller (from the last `<bc>` of that parse)."""
    callee: str
    """`pkg.Class::name` of the method called (the `<call method=…>`)."""
    inlined: bool
    """True for `<inline_success>` and C2's `<intrinsic>`, False for `<inline_fail>`."""
    reason: str
    """The record's reason (`inline (hot)`, `hot method too big`, `virtual call`, `no static binding`); for C2's
    `<intrinsic id=…>`, `intrinsic` and the id (`intrinsic _dsqrt`, `intrinsic _hashCode, virtual`)."""
    line: int
    """Line of the decision in the log."""
    chain: tuple[tuple[str, int | None], ...] = ()
    """The call's inlining chain as (method, bci), innermost first: (`caller`, `bci`), then the method `caller` was
    inlined into and the bci of that call, out to the compiled method. It tells apart the decisions at one method
    and bci inlined at several places (a recursive method inlined into itself)."""
    count: int | None = None
    """The `<call>`'s `count`: how often the profile saw the call site run, when the log says."""
    callee_bytes: int | None = None
    """The callee's bytecode size (its `<method bytes=…>`), when the log says."""
    receivers: tuple[tuple[str, int], ...] = ()
    """The receiver types the profile recorded at the call site with their counts (`receiver`, `receiver2`)."""

    def as_dict(self) -> dict[str, Any]:
        """The decision's fields but its compile id, as the JSON model writes them."""
        return {"caller": self.caller, "bci": self.bci, "callee": self.callee, "inlined": self.inlined,
                "reason": self.reason, "line": self.line,
                "chain": [{"method": method, "bci": bci} for method, bci in self.chain],
                "count": self.count, "callee_bytes": self.callee_bytes,
                "receivers": [{"type": name, "count": count} for name, count in self.receivers]}


@dataclass(frozen=True, slots=True)
class LogBranch:
    """One `<branch>` record of a C2 `<task>`'s parse: the profile of a conditional bytecode as C2 read it."""

    compile_id: int
    """The compilation it belongs to."""
    method: str
    """`pkg.Class::name` of the method being parsed at the branch (an inlined method for inlined code)."""
    bci: int | None
    """Bytecode index of the `if` bytecode (from the last `<bc>` of that parse)."""
    target_bci: int | None
    """Where the bytecode jumps when taken."""
    taken: int | None
    """How often the profile saw the jump taken."""
    not_taken: int | None
    """How often the profile saw it fall through."""
    prob: float | None
    """The probability C2 gave the jump being taken: 0.0 for `never`, 1.0 for `always`, None when unreadable."""
    line: int
    """Line of the record in the log."""
    chain: tuple[tuple[str, int | None], ...] = ()
    """The branch's inlining chain as (method, bci), innermost first: (`method`, `bci`) and outwards."""

    def as_dict(self) -> dict[str, Any]:
        """The record's fields but its compile id, as the JSON model writes them."""
        return {"method": self.method, "bci": self.bci, "target_bci": self.target_bci, "taken": self.taken,
                "not_taken": self.not_taken, "prob": self.prob, "line": self.line,
                "chain": [{"method": method, "bci": bci} for method, bci in self.chain]}


