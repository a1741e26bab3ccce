"""The records the analyses produce: decoded traps, loops, hot paths and the analysis of one method."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from asmcfg.model.code import Cfg, Edge, LogTrap


class TrapKind(str, enum.Enum):
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


@dataclass(frozen=True, slots=True)
class TrapEvidence:
    """What a LogCompilation log says about one decoded trap."""

    verdict: str
    """`agrees`: a record of the compiler names the same scope, bci, reason and action; `differs`: records at
    that scope and bci name another reason or action; `unlogged`: the compiler logged no trap there."""
    logged: tuple[LogTrap, ...]
    """The compiler's records (`origin` `parse`) at the trap's scope and bci."""
    fired: int
    """Records of the trap firing at run time (same scope, bci and reason)."""

    @property
    def disagrees(self) -> bool:
        """True when the log says something else, or nothing, where the code traps."""
        return self.verdict != "agrees"

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
class Analysis:
    """Everything the passes found about one graph."""

    cfg: Cfg
    """The graph analysed."""
    jdk: int
    """JDK version whose reason table named the traps."""
    jdk_why: str
    """How the JDK version was chosen."""
    tags: dict[int, frozenset[str]] = field(default_factory=dict)
    """Tags per block id."""
    traps: dict[int, Trap] = field(default_factory=dict)
    """Trap per block id (the block that makes the trap call)."""
    checks: dict[Edge, str] = field(default_factory=dict)
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

    def block_tags(self, block: int) -> frozenset[str]:
        """Tags of one block (empty when none)."""
        return self.tags.get(block, frozenset())
