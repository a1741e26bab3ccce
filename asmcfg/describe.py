"""Every human label and colour asmcfg shows, shared by all renderers."""

from __future__ import annotations

from asmcfg.model import EdgeKind, Header, TrapEvidence

TAG_ORDER = (
    "entry",
    "verified_entry",
    "osr_entry",
    "loop_header",
    "safepoint_poll",
    "return_poll",
    "range_check",
    "null_check",
    "uncommon_trap",
    "exception_handler",
    "deopt_handler",
    "stub",
    "ic_miss",
    "vector",
    "java_call",
    "runtime_call",
    "type_check",
    "allocation",
    "allocation_slow",
    "lock",
    "lock_slow",
    "unlock",
    "unlock_slow",
    "gc_barrier",
    "gc_barrier_slow",
)
"""Tags in the order labels list them; also the legend order."""

TAG_LABELS = {
    "entry": "entry (inline-cache check)",
    "verified_entry": "verified entry",
    "osr_entry": "OSR entry",
    "loop_header": "loop header",
    "safepoint_poll": "safepoint poll",
    "return_poll": "return poll",
    "range_check": "range-check failure path",
    "null_check": "null-check failure path",
    "uncommon_trap": "uncommon trap (deopt)",
    "exception_handler": "exception handler",
    "deopt_handler": "deopt handler",
    "stub": "stub / slow path",
    "ic_miss": "inline-cache miss",
    "vector": "packed SIMD work in a loop",
    "java_call": "call of a Java method (not inlined)",
    "runtime_call": "call into the VM runtime or a stub",
    "type_check": "type check (class compare / subtype stub)",
    "allocation": "allocation (TLAB fast path)",
    "allocation_slow": "allocation slow path",
    "lock": "monitor enter fast path",
    "lock_slow": "monitor enter slow path",
    "unlock": "monitor exit fast path",
    "unlock_slow": "monitor exit slow path",
    "gc_barrier": "GC barrier fast path",
    "gc_barrier_slow": "GC barrier slow path",
}

TAG_COLOURS = {
    "entry": "#d9f2d9",
    "verified_entry": "#b3e6b3",
    "osr_entry": "#8fd98f",
    "loop_header": "#cce0ff",
    "safepoint_poll": "#e6f0ff",
    "return_poll": "#f2f2f2",
    "range_check": "#ffd9b3",
    "null_check": "#ffe6cc",
    "uncommon_trap": "#ffb3b3",
    "exception_handler": "#e6ccff",
    "deopt_handler": "#f0e0ff",
    "stub": "#e6e6e6",
    "ic_miss": "#f5f5dc",
    "vector": "#c2f0f0",
    "java_call": "#fff2a8",
    "runtime_call": "#f7f0d9",
    "type_check": "#e8d9f7",
    "allocation": "#d9f0e6",
    "allocation_slow": "#b8dcc9",
    "lock": "#f2dcd0",
    "lock_slow": "#e0bca8",
    "unlock": "#f2e6d0",
    "unlock_slow": "#dcc7a3",
    "gc_barrier": "#dde3f0",
    "gc_barrier_slow": "#b9c4de",
}
"""Fill colour of a block, by its most important tag (the first in TAG_ORDER it carries)."""

FILL_PRIORITY = (
    "uncommon_trap",
    "range_check",
    "null_check",
    "exception_handler",
    "deopt_handler",
    "allocation_slow",
    "lock_slow",
    "unlock_slow",
    "gc_barrier_slow",
    "stub",
    "ic_miss",
    "osr_entry",
    "verified_entry",
    "entry",
    "gc_barrier",
    "allocation",
    "lock",
    "unlock",
    "type_check",
    "java_call",
    "vector",
    "loop_header",
    "runtime_call",
    "safepoint_poll",
    "return_poll",
)

EDGE_STYLES: dict[EdgeKind, dict[str, str]] = {
    EdgeKind.FALLTHROUGH: {"color": "#333333", "style": "solid"},
    EdgeKind.TAKEN: {"color": "#1f5fbf", "style": "solid"},
    EdgeKind.JUMP: {"color": "#333333", "style": "solid", "arrowhead": "vee"},
    EdgeKind.EXCEPTION: {"color": "#b30000", "style": "dashed"},
    EdgeKind.INDIRECT: {"color": "#7a3db8", "style": "dotted"},
}

EDGE_LABELS = {
    EdgeKind.FALLTHROUGH: "fall-through",
    EdgeKind.TAKEN: "branch taken",
    EdgeKind.JUMP: "unconditional jump",
    EdgeKind.EXCEPTION: "implicit exception",
    EdgeKind.INDIRECT: "jump table",
}

CHECK_COLOUR = "#d95f00"
HOT_COLOUR = "#c00000"
EXIT_COLOUR = "#999999"
FOLD_COLOUR = "#eeeeee"
DIFFERS_COLOUR = "#7b2cbf"
"""Border of a trap block the LogCompilation log disagrees with."""
FONT = "Courier"
"""A font both Graphviz and graphviz-pure have metrics for."""


def fill_for(tags: frozenset[str]) -> str:
    """The fill colour of a block with these tags (white when none matters)."""
    for tag in FILL_PRIORITY:
        if tag in tags:
            return TAG_COLOURS[tag]
    return "#ffffff"


def ordered_tags(tags: frozenset[str]) -> list[str]:
    """Tags in display order."""
    return [t for t in TAG_ORDER if t in tags] + sorted(tags - set(TAG_ORDER))


def compilation(header: Header) -> str:
    """One line naming a compilation: `c2 id 9 tier 4 Tensor4D::sum4 (97 bytes)`."""
    parts = [header.compiler]
    if header.compile_id is not None:
        parts.append(f"id {header.compile_id}")
    if header.level is not None:
        parts.append(f"tier {header.level}")
    if header.flags:
        parts.append(f"[{header.flags}]")
    name = header.name + (f" @ {header.osr_bci} (OSR)" if header.osr_bci is not None else "")
    parts.append(name)
    if header.bytecode_size is not None:
        parts.append(f"({header.bytecode_size} bytes)")
    return " ".join(parts)


def heat_colour(share: float, hottest: float) -> str:
    """A fill on one white-to-red scale for a block holding `share` of samples."""
    ratio = 0.0 if hottest <= 0 else max(0.0, min(1.0, share / hottest))
    green_blue = int(255 - ratio * 200)
    return f"#ff{green_blue:02x}{green_blue:02x}"


def address(value: int | None) -> str | None:
    """`0x7f6e3cec8140` (no leading zeros), or None."""
    return None if value is None else f"0x{value:x}"


def trap_log_line(evidence: TrapEvidence) -> str:
    """What the LogCompilation log says of a decoded trap, in one ASCII line."""
    fired = f"; fired {evidence.fired}x at run time" if evidence.fired else ""
    if evidence.verdict == "agrees":
        return f"log agrees{fired}"
    if evidence.verdict == "unlogged":
        return f"LOG DIFFERS: the compiler logged no trap at this bci{fired}"
    return f"LOG DIFFERS: the compiler logged {', '.join(evidence.logged_as())} here{fired}"


def percent(values: tuple[float, ...]) -> str:
    """`12.34%`, one figure per event joined by ` / `."""
    return " / ".join(f"{v:.2f}%" for v in values)


EVEX_CAUSE = (
    "likely cause: hsdis mis-decoded EVEX (AVX-512) instructions ({count} `.byte 0x62` lines followed by garbage, "
    "the mark of an hsdis built on capstone 4); samples on the real instructions inside those bytes are on no "
    "printed line"
)
EVEX_ADVICE = (
    "to place them, decode the same code with something that knows EVEX: an hsdis built on capstone 5 or "
    "binutils, or the `[MachCode]` hex a JVM without hsdis prints (asmcfg decodes it with capstone 5) with "
    "`--profile` carrying the perfasm output of that same run"
)
EVEX_ON_HEX = (
    "this graph is decoded from `[MachCode]` hex with a capstone that knows EVEX, so its instructions are right, "
    "but perfasm printed these samples on no line, so no address says where they go"
)
UNATTRIBUTED = "samples on no printed line (region totals minus the printed lines)"


def unprinted(name: str, share: tuple[float, ...], lines: int, threshold: int, compile_id: int | None) -> str:
    """Why a compilation perfasm measured is missing, and how to get it."""
    select = f"--compile-id {compile_id}" if compile_id is not None else f"--method '{name}'"
    return (
        f"not printed by perfasm: {name} holds {percent(share)} of the run, but its region is too big to display "
        f"({lines} lines, threshold {threshold}); to see it rerun with -prof 'perfasm:tooBigThreshold={lines + 1}', "
        f"or read the saveLog of the same run (-prof 'perfasm:saveLog=true'): asmcfg SAVELOG {select} "
        "(its lines carry the percentages), adding --profile PERFASM for the event names"
    )

HOT_PATHS_TITLE = "Hot paths (measured: 1 goes round the hottest loop, or from the entry; 2.. by share, highest first)"
FIRST_PATH = {"loop": "1 loop", "entry": "1 entry"}
"""The first hot path's rank cell: it goes round the hottest loop (or starts at the entry), whatever its share."""


ROLE_LABELS = {
    "pre": "pre-loop",
    "main": "main loop",
    "post": "post-loop",
    "drain": "vector drain loop",
    "strip_mined_outer": "strip-mined outer",
}
"""C2's loop copies, as the loops table and the graph name them."""

CALL_KINDS = {
    "static": "static",
    "optimized_virtual": "optimized virtual",
    "virtual": "virtual",
    "interface": "interface",
    "runtime": "runtime",
    "stub": "stub",
    "unknown": "unnamed",
}
"""Call kinds as labels show them."""

PATH_KINDS = {"allocation": "allocation", "lock": "monitor enter", "unlock": "monitor exit", "gc_barrier": "GC barrier"}
"""Runtime path kinds as labels show them."""


def vector_text(bits: int | None, element: str, isa: str) -> str:
    """`512-bit float (avx512)`, `SVE int (scalable width)`, or empty for a scalar loop."""
    if not isa:
        return ""
    if bits is None:
        return f"SVE {element or 'vector'} (scalable width)".replace("  ", " ")
    return f"{bits}-bit {element} ({isa})".replace("  ", " ") if element else f"{bits}-bit ({isa})"


def loop_text(role: str, unroll: int, vector: str) -> str:
    """`main loop x4, 512-bit float (avx512)`: a loop's copy role, unroll factor and vector width."""
    parts = [ROLE_LABELS.get(role, "")]
    if unroll > 1:
        parts[0] = (parts[0] + f" x{unroll}").strip()
    parts.append(vector)
    return ", ".join(p for p in parts if p)


def decision_text(inlined: bool, reason: str) -> str:
    """`inlined (inline (hot))` or `NOT inlined: hot method too big`."""
    return f"inlined ({reason})" if inlined else f"NOT inlined: {reason}"


def call_text(kind: str, callee: str, not_inlined: str, logged: bool) -> str:
    """One call as a label line: kind, callee and, with a log, why it was not inlined."""
    text = f"call: {CALL_KINDS.get(kind, kind)} {callee or '?'}"
    if not_inlined:
        return f"{text} -- NOT inlined: {not_inlined}"
    return f"{text} -- no inlining record here" if logged else text


def type_check_text(classes: tuple[str, ...], fails_to: str) -> str:
    """`type check: Shapes$Circle -> class_check trap` (or the subtype-check stub)."""
    tested = ", ".join(classes) if classes else "subtype-check stub"
    if not fails_to:
        return f"type check: {tested}"
    return f"type check: {tested} -> {fails_to}" + ("" if fails_to.endswith("call") else " trap")


def fast_path_text(kind: str, slow: int, routine: str) -> str:
    """`allocation fast path -> B54 (_new_instance_Java)`."""
    return f"{PATH_KINDS.get(kind, kind)} fast path -> B{slow} ({routine})"
