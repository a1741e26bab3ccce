"""The records the analyses produce: decoded traps, loops, hot paths, what HotSpot means by the code (calls and
their inlining, loop copies and vectors, runtime paths, type checks) and the analysis of one method."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from asmcfg.model.code import Cfg, Edge, Frame
from asmcfg.model.words import CallKind, Check, LoopRole, PathKind, Tag, VectorIsa, Verdict, Word

if TYPE_CHECKING:
    from asmcfg.model.log import LogInline, LogTrap


class TrapKind(Word):
    """What a trap call does: deoptimize (C2's UncommonTrapBlob, C1's deoptimize stub) or throw (a C1 stub)."""

    UNCOMMON_TRAP = "uncommon_trap"
    THROW = "throw"


@dataclass(frozen=True, slots=True)
class Trap:
    """A decoded uncommon trap (or C1 deopt/throw stub call)."""

    site: int
    """Index of the call instruction."""
    kind: TrapKind
    """Whether the call deoptimizes or throws."""
    request: int | None
    """The trap_request as a signed 32-bit value, None if not found."""
    reason: str
    """Reason name from the JDK's table (`range_check`), or `unknown`."""
    action: str
    """Action name (`make_not_entrant`), or `unknown`."""
    bytecode: str
    """Bytecode at the trap (`aaload`)."""
    bci: int | None
    """Bytecode index of the innermost frame."""
    line: int | None
    """Source line of the innermost frame."""
    method: str
    """Method of the innermost frame."""
    speculation: int | None = None
    """A JVMCI deopt's failed speculation as its code stores it (None for C2's and C1's traps)."""

    def as_dict(self, log: dict[str, Any] | None = None) -> dict[str, Any]:
        """The trap as the JSON model writes it, with what a LogCompilation log says of it (`log`)."""
        request = None if self.request is None else f"0x{self.request & 0xFFFFFFFF:08x}"
        item = {"kind": self.kind, "request": request, "reason": self.reason, "action": self.action,
                "bytecode": self.bytecode, "bci": self.bci, "line": self.line, "method": self.method, "log": log}
        if self.speculation is not None:
            item["speculation"] = self.speculation
        return item


@dataclass(frozen=True, slots=True)
class TrapEvidence:
    """What a LogCompilation log says about one decoded trap."""

    verdict: Verdict
    """`agrees`: a record of the compiler names the same scope, bci, reason and action; `differs`: records at
    that scope and bci name another reason or action; `unlogged`: the compiler logged no trap there."""
    logged: tuple[LogTrap, ...]
    """The compiler's records (`origin` `parse`) at the trap's scope and bci."""
    fired: int
    """Records of the trap firing at run time (same reason and the same whole inlining chain)."""

    @property
    def disagrees(self) -> bool:
        """True when the log says something else, or nothing, where the code traps."""
        return self.verdict is not Verdict.AGREES and self.verdict is not Verdict.NO_RECORDS

    def as_dict(self) -> dict[str, Any]:
        """The evidence as the JSON model writes it: the verdict, the compiler's records, the firings."""
        logged = [r.as_dict("reason", "action", "comment", "line") for r in self.logged]
        return {"verdict": self.verdict, "logged": logged, "fired": self.fired}

    def logged_as(self) -> list[str]:
        """The distinct `reason / action` pairs the compiler logged here, sorted."""
        return sorted({f"{r.reason} / {r.action}" for r in self.logged})


@dataclass(frozen=True, slots=True)
class Loop:
    """A natural loop."""

    header: int
    """Header block id."""
    blocks: tuple[int, ...]
    """Member block ids, sorted."""
    depth: int
    """Nesting depth, 1 for outermost."""
    back_edges: tuple[int, ...]
    """Blocks whose edges go back to the header."""
    has_poll: bool
    """True when a member block holds a `{poll}`."""

    def as_dict(self, strip_mined_outer: bool) -> dict[str, Any]:
        """The loop as the JSON model writes it, with whether it is C2's strip-mined outer loop."""
        return {"header": self.header, "blocks": list(self.blocks), "depth": self.depth, "has_poll": self.has_poll,
                "strip_mined_outer": strip_mined_outer, "back_edges": list(self.back_edges)}


@dataclass(frozen=True, slots=True)
class HotPath:
    """A path through the graph ranked by measured heat."""

    blocks: tuple[int, ...]
    """Block ids in order."""
    share: tuple[float, ...]
    """Summed percent per event over the path's blocks."""
    first: str = ""
    """For the first path only: `loop` (it goes round the hottest loop) or `entry` (no loop is sampled)."""


@dataclass(frozen=True, slots=True)
class Call:
    """A real call the compiled code makes (trap calls excluded: they are traps)."""

    site: int
    """Index of the call instruction."""
    block: int
    """Block that makes it."""
    kind: CallKind
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
        return self.kind.java

    def as_dict(self, address: int) -> dict[str, Any]:
        """The call as the JSON model writes it; `address` is its instruction's."""
        return {"block": self.block, "address": f"0x{address:x}", "kind": self.kind, "callee": self.callee,
                "frames": [f.as_dict() for f in self.frames], "inlining": [d.as_dict() for d in self.decisions]}

    def not_inlined_because(self) -> str:
        """The log's `inline_fail` reasons here, joined, or an empty string."""
        return "; ".join(dict.fromkeys(d.reason for d in self.decisions if not d.inlined))


@dataclass(frozen=True, slots=True)
class LoopFacts:
    """What one natural loop is among C2's copies of a source loop, and whether it does vector work."""

    header: int
    """Header block id of the loop."""
    role: LoopRole
    """`pre`, `main`, `post`, `drain` (a vector post-loop), `strip_mined_outer`, or empty when not recognised."""
    unroll: int | None
    """Copies of the body one trip of a main or drain loop executes (see analyses.copies); None for other loops
    and where the code does not say."""
    vector_bits: int | None
    """Width of the widest packed SIMD register the loop's own blocks use (None: scalar, or SVE's scalable width)."""
    element: str
    """Element type the packed arithmetic names (`float`, `double`, `byte`, `short`, `int`, `long`), or empty."""
    vector_isa: VectorIsa = VectorIsa.NONE
    """`sse`/`avx`/`avx512` (x86), `neon` or `sve` (AArch64) when the loop is vectorized, else empty."""

    @property
    def vectorized(self) -> bool:
        """True when the loop's body does packed SIMD work."""
        return bool(self.vector_isa)


@dataclass(frozen=True, slots=True)
class RuntimePath:
    """A GC barrier, an allocation or a monitor operation: its slow-path call and the fast path branching to it."""

    kind: PathKind
    """`gc_barrier`, `allocation`, `lock` or `unlock`."""
    what: str
    """The routine named (`_new_instance_Java`, `G1BarrierSetRuntime::write_ref_field_pre_entry`)."""
    slow: int
    """Block holding the slow-path (or stub) call."""
    fast: tuple[int, ...]
    """Blocks whose conditional branch leads to the slow path: the inline fast path (empty when none branches)."""
    site: int
    """Index of the call instruction."""

    def as_dict(self) -> dict[str, Any]:
        """The path as the JSON model writes it."""
        return {"kind": self.kind, "routine": self.what, "slow_block": self.slow, "fast_blocks": list(self.fast)}


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

    def as_dict(self, address: int) -> dict[str, Any]:
        """The guard as the JSON model writes it; `address` is its compare's (or call's)."""
        return {"block": self.block, "address": f"0x{address:x}", "classes": list(self.classes),
                "fails_to": self.fails_to or None, "bytecode": self.bytecode or None}


@dataclass(frozen=True, slots=True)
class Analysis:
    """Everything the passes found about one graph."""

    cfg: Cfg
    """The graph analysed."""
    jdk: int
    """JDK version whose reason table named the traps."""
    jdk_why: str
    """How the JDK version was chosen."""
    tags: dict[int, frozenset[Tag]] = field(default_factory=dict)
    """Tags per block id."""
    traps: dict[int, Trap] = field(default_factory=dict)
    """Trap per block id (the block that makes the trap call)."""
    checks: dict[Edge, Check] = field(default_factory=dict)
    """`range_check`/`null_check` per check edge (a branch's taken edge, or an implicit-exception edge)."""
    loops: tuple[Loop, ...] = ()
    """Natural loops, outermost first."""
    hot_path: tuple[int, ...] = ()
    """The static hot path, block ids in order."""
    block_heat: dict[int, tuple[float, ...]] = field(default_factory=dict)
    """Summed percent per event for each block, when the method has a profile."""
    hot_paths: tuple[HotPath, ...] = ()
    """Measured hot paths, hottest first, when the method has a profile."""
    trap_log: dict[int, TrapEvidence] = field(default_factory=dict)
    """Per trap block id, what the LogCompilation log says of that trap (only for methods read with one)."""
    fired_elsewhere: tuple[LogTrap, ...] = ()
    """Traps the log saw fire at run time that match no decoded trap call (an implicit null check, say)."""
    calls: tuple[Call, ...] = ()
    """Every real call in address order, with its kind, callee and the log's inlining decision at its site."""
    loop_facts: dict[int, LoopFacts] = field(default_factory=dict)
    """Per loop header: C2's loop copy role, unroll and vector width."""
    runtime_paths: tuple[RuntimePath, ...] = ()
    """GC barriers, allocations and monitor operations with their slow and fast paths."""
    type_checks: tuple[TypeCheck, ...] = ()
    """Class-check and subtype-check guards."""

    def block_tags(self, block: int) -> frozenset[Tag]:
        """Tags of one block (empty when none)."""
        return self.tags.get(block, frozenset())
