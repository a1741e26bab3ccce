"""Every human label and colour asmcfg shows, shared by all renderers."""

from __future__ import annotations

from asmcfg.describe.meaning import (  # re-exported: callers read every label from `describe`
    CALL_KINDS as CALL_KINDS,
    PATH_KINDS as PATH_KINDS,
    ROLE_LABELS as ROLE_LABELS,
    call_text as call_text,
    decision_text as decision_text,
    fast_path_text as fast_path_text,
    loop_text as loop_text,
    type_check_text as type_check_text,
    vector_text as vector_text,
)
from asmcfg.describe.profile import (  # re-exported: callers read every label from `describe`
    EVEX_ADVICE as EVEX_ADVICE,
    EVEX_CAUSE as EVEX_CAUSE,
    EVEX_ON_HEX as EVEX_ON_HEX,
    FIRST_PATH as FIRST_PATH,
    HOT_PATHS_TITLE as HOT_PATHS_TITLE,
    UNATTRIBUTED as UNATTRIBUTED,
    percent as percent,
    unprinted as unprinted,
)
from asmcfg.model import EdgeKind, Header, Trap, TrapEvidence

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
LOOP_COLOUR = "#7f9fcf"
"""Border of a loop's cluster."""
LOOP_FILLS = ("#f4f8ff", "#e8f0fd", "#dce8fb", "#d0e0f9")
"""Fill of a loop's cluster by nesting depth (1 first); deeper loops are darker."""
HEAT_LEGEND = "heat: white (no samples) to red (the hottest block)"
HOT_PATH_LABEL = "hot path (bold red border and edges)"
FOLD_LABEL = "folded chain of cold blocks (F…; click to expand in the page, --no-fold to draw)"
CHECK_LABEL = "check edge to a failure path (orange)"
VIA_CHECK = "no debug info in the block: the line of the trap its check leads to"
NO_DEBUG_INFO = (
    "HotSpot prints debug info (bytecode, method@bci, line, inlining chain) only where the code records it: at "
    "safepoints, calls, and trap and implicit-exception sites; other instructions carry none."
)
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


def loop_label(header: int, depth: int) -> str:
    """The caption of a loop's cluster: `loop B9 (depth 2)`."""
    return f"loop B{header} (depth {depth})"


def loop_fill(depth: int) -> str:
    """The fill of a loop's cluster at nesting `depth`."""
    return LOOP_FILLS[min(depth, len(LOOP_FILLS)) - 1]


def trap_summary(trap: Trap) -> str:
    """`trap: range_check / make_not_entrant at aaload@42 line 25`."""
    where = f" at {trap.bytecode}@{trap.bci}" if trap.bci is not None else ""
    line = f" line {trap.line}" if trap.line is not None else ""
    return f"trap: {trap.reason} / {trap.action}{where}{line}"
