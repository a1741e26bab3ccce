"""Records of what HotSpot means by the code: calls and their inlining, loop copies and vectors, runtime paths,
type checks. Kept as data on the analysis so that two compilations can be compared without recomputing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asmcfg.model import Frame


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
    """True for `<inline_success>`, False for `<inline_fail>`."""
    reason: str
    """The record's reason (`inline (hot)`, `hot method too big`, `virtual call`, `no static binding`)."""
    line: int
    """Line of the decision in the log."""


@dataclass(frozen=True, slots=True)
class Call:
    """A real call the compiled code makes (trap calls excluded: they are traps)."""

    site: int
    """Index of the call instruction."""
    block: int
    """Block that makes it."""
    kind: str
    """`static`, `optimized_virtual`, `virtual`, `interface` (Java calls, from the call relocation and the
    bytecode), `runtime` (a VM function), `stub` (generated code: StubRoutines, C2/C1 runtime stubs), `unknown`."""
    callee: str
    """What it calls: the log's `pkg.Class::name`, else the bytecode's method name, else the runtime routine."""
    frames: tuple[Frame, ...]
    """Scope of the call, innermost first (empty when the dump prints none)."""
    decisions: tuple[LogInline, ...] = ()
    """The log's inlining decisions at this call's scope and bci (empty without a log or a record there)."""

    @property
    def java(self) -> bool:
        """True for a call of a Java method (one C2 could have inlined)."""
        return self.kind in ("static", "optimized_virtual", "virtual", "interface")

    def not_inlined_because(self) -> str:
        """The log's `inline_fail` reasons here, joined, or an empty string."""
        return "; ".join(dict.fromkeys(d.reason for d in self.decisions if not d.inlined))


@dataclass(frozen=True, slots=True)
class LoopFacts:
    """What one natural loop is among C2's copies of a source loop, and whether it does vector work."""

    header: int
    """Header block id of the loop."""
    role: str
    """`pre`, `main`, `post`, `drain` (a vector post-loop), `strip_mined_outer`, or empty when not recognised."""
    unroll: int
    """Copies of the body one trip of a main or drain loop executes (see analyses.copies); 1 for other loops."""
    vector_bits: int | None
    """Width of the widest packed SIMD register the loop's own blocks use (None: scalar, or SVE's scalable width)."""
    element: str
    """Element type the packed arithmetic names (`float`, `double`, `byte`, `short`, `int`, `long`), or empty."""
    vector_isa: str = ""
    """`sse`/`avx`/`avx512` (x86), `neon` or `sve` (AArch64) when the loop is vectorized, else empty."""

    @property
    def vectorized(self) -> bool:
        """True when the loop's body does packed SIMD work."""
        return bool(self.vector_isa)


@dataclass(frozen=True, slots=True)
class RuntimePath:
    """A GC barrier, an allocation or a monitor operation: its slow-path call and the fast path branching to it."""

    kind: str
    """`gc_barrier`, `allocation`, `lock` or `unlock`."""
    what: str
    """The routine named (`_new_instance_Java`, `G1BarrierSetRuntime::write_ref_field_pre_entry`)."""
    slow: int
    """Block holding the slow-path (or stub) call."""
    fast: tuple[int, ...]
    """Blocks whose conditional branch leads to the slow path: the inline fast path (empty when none branches)."""
    site: int
    """Index of the call instruction."""


@dataclass(frozen=True, slots=True)
class TypeCheck:
    """A class-check or subtype-check guard."""

    block: int
    """Block holding the compare (or the subtype-check stub call)."""
    site: int
    """Index of the compare (or call) instruction."""
    classes: tuple[str, ...]
    """Classes the compare names (`Shapes$Circle`), from its `metadata(…)` relocation; empty when not printed."""
    fails_to: str
    """Where the failing side goes: a trap reason (`class_check`, `bimorphic`), `virtual call`, or empty."""
    bytecode: str
    """Bytecode the guard belongs to, when the code nearby prints one (`checkcast`, `invokeinterface area`)."""
