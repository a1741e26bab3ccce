"""A finding: one place that costs the run's time, why, and what to try (`--findings`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asmcfg.model.words import Word


class FindingKind(Word):
    """What a finding says costs time."""

    CHECK_IN_LOOP = "check-in-loop"
    """A range or null check left inside a hot loop."""
    NOT_INLINED = "not-inlined"
    """A hot call site of a method the compiler could bind but did not inline."""
    MEGAMORPHIC = "megamorphic"
    """A virtual or interface call in hot code whose profile saw more receiver types than C2 inlines."""
    ALLOCATION_IN_LOOP = "allocation-in-loop"
    """An allocation (its slow path a runtime call) inside a hot loop."""
    LOCK_IN_LOOP = "lock-in-loop"
    """A monitor enter (its fast path, or its slow call) inside a hot loop: the lock was not eliminated."""
    DEOPT_CYCLE = "deopt-cycle"
    """A method made not entrant and compiled again repeatedly."""
    NOT_VECTORIZED = "not-vectorized"
    """A hot loop over primitive arrays whose element work C2 left scalar."""
    INTERPRETED = "interpreted"
    """A method the log shows hot enough to compile that ran in the interpreter: never compiled, or failed."""
    C1_HOT = "c1-hot"
    """A method whose C1 code took a share of the run while C2 never compiled it (refused, failed, or queued)."""
    PROFILE_MISMATCH = "profile-mismatch"
    """A branch or call C2 compiled for a profile the measured run does not keep to."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding of one compilation (or, for `deopt-cycle`, of one method's compilations)."""

    kind: FindingKind
    """What it says costs time."""
    compile_id: int | None
    """The compilation it is in (the latest one for `deopt-cycle`)."""
    method: str
    """`pkg.Class::name` of the compilation."""
    block: int | None
    """The block it is in, or the loop's header block for the loop kinds; None when it names no block."""
    bci: int | None
    """Bytecode index of the access, call or allocation, in `scope`."""
    line: int | None
    """Java source line of that bytecode."""
    scope: str
    """The method that bytecode belongs to (an inlined method for inlined code), or empty."""
    share: float | None
    """Percent of the run's samples spent there, None when the run was not measured."""
    estimate: int | None
    """Without measured heat: the static estimate it is ranked by (loop depth × the loop's instructions)."""
    cause: str
    """One sentence: why it costs."""
    evidence: tuple[str, ...]
    """The instructions, log records and figures it rests on."""
    suggestion: str
    """A source change or a flag to try."""
    whatif: str | None = None
    """The `asmcfg whatif` command that tests the suggestion, where one can."""
    bytecode: str | None = None
    """`iaload@17`: the bytecode at `bci` of `scope`, from its class file (`--classpath`, a record folder's class
    path); None without one."""

    def as_dict(self) -> dict[str, Any]:
        """The finding as the JSON model writes it."""
        return {"kind": self.kind, "compile_id": self.compile_id, "method": self.method, "block": self.block,
                "bci": self.bci, "line": self.line, "scope": self.scope or None,
                "share": None if self.share is None else round(self.share, 4), "estimate": self.estimate,
                "cause": self.cause, "evidence": list(self.evidence), "suggestion": self.suggestion,
                "whatif": self.whatif, **({"bytecode": self.bytecode} if self.bytecode is not None else {})}
