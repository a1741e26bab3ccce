"""Human words for calls, inlining, loop copies, vectors, runtime paths and type checks."""

from __future__ import annotations

from asmcfg.model import CallKind, LoopRole, PathKind

ROLE_LABELS: dict[LoopRole, str] = {
    LoopRole.PRE: "pre-loop",
    LoopRole.MAIN: "main loop",
    LoopRole.POST: "post-loop",
    LoopRole.DRAIN: "vector drain loop",
    LoopRole.STRIP_MINED_OUTER: "strip-mined outer",
}
"""C2's loop copies, as the loops table and the graph name them."""

CALL_KINDS: dict[CallKind, str] = {
    CallKind.STATIC: "static",
    CallKind.OPTIMIZED_VIRTUAL: "optimized virtual",
    CallKind.VIRTUAL: "virtual",
    CallKind.INTERFACE: "interface",
    CallKind.RUNTIME: "runtime",
    CallKind.STUB: "stub",
    CallKind.UNKNOWN: "unnamed",
}
"""Call kinds as labels show them."""

PATH_KINDS: dict[PathKind, str] = {
    PathKind.ALLOCATION: "allocation",
    PathKind.LOCK: "monitor enter",
    PathKind.UNLOCK: "monitor exit",
    PathKind.GC_BARRIER: "GC barrier",
}
"""Runtime path kinds as labels show them."""


def vector_text(bits: int | None, element: str, isa: str) -> str:
    """`512-bit float (avx512)`, `SVE int (scalable width)`, or empty for a scalar loop."""
    if not isa:
        return ""
    if bits is None:
        return f"SVE {element or 'vector'} (scalable width)".replace("  ", " ")
    return f"{bits}-bit {element} ({isa})".replace("  ", " ") if element else f"{bits}-bit ({isa})"


def loop_text(role: LoopRole, unroll: int | None, vector: str) -> str:
    """`main loop x4, 512-bit float (avx512)`: a loop's copy role, unroll factor and vector width."""
    parts = [ROLE_LABELS.get(role, "")]
    if unroll is not None and unroll > 1:
        parts[0] = (parts[0] + f" x{unroll}").strip()
    parts.append(vector)
    return ", ".join(p for p in parts if p)


def chain_text(chain: tuple[tuple[str, int | None], ...]) -> str:
    """`Chain::fib@12 <- Chain::fib@18 <- Chain::run@14`: an inlining chain, innermost first."""
    return " <- ".join(f"{method}@{bci}" for method, bci in chain)


def inline_reason(inlined: bool, reason: str) -> str:
    """The log's reason as said after `inlined`/`NOT inlined`: C2's `inline (hot)` is `hot` and its plain `inline`
    says nothing more (`inlined (inline (hot))` said `inline` twice); every other reason as logged."""
    if inlined and reason.startswith("inline (") and reason.endswith(")"):
        return reason[len("inline ("):-1]
    return "" if inlined and reason == "inline" else reason


def decision_text(inlined: bool, reason: str) -> str:
    """`inlined (hot)`, `inlined` or `NOT inlined: hot method too big`."""
    why = inline_reason(inlined, reason)
    if inlined:
        return f"inlined ({why})" if why else "inlined"
    return f"NOT inlined: {why}"


def call_text(kind: CallKind, callee: str, not_inlined: str, logged: bool) -> str:
    """One call as a label line: kind, callee and, with a log, why it was not inlined."""
    text = f"call: {CALL_KINDS[kind]} {callee or '?'}"
    if not_inlined:
        return f"{text} -- NOT inlined: {not_inlined}"
    return f"{text} -- no inlining record here" if logged else text


def type_check_text(classes: tuple[str, ...], fails_to: str) -> str:
    """`type check: Shapes$Circle -> class_check trap` (or the subtype-check stub)."""
    tested = ", ".join(classes) if classes else "subtype-check stub"
    if not fails_to:
        return f"type check: {tested}"
    return f"type check: {tested} -> {fails_to}" + ("" if fails_to.endswith("call") else " trap")


def fast_path_text(kind: PathKind, slow: int, routine: str) -> str:
    """`allocation fast path -> B54 (_new_instance_Java)`."""
    return f"{PATH_KINDS[kind]} fast path -> B{slow} ({routine})"
