"""Every human label and colour asmcfg shows, shared by all renderers.

The words for what HotSpot means (loop copies, calls, runtime paths, type checks) are in `meaning.py`, named
here too.
"""

from __future__ import annotations

import math

from asmcfg.describe.diff import (  # re-exported: callers read every label from `describe`
    CHANGE_LABELS as CHANGE_LABELS,
    DIFF_COLOURS as DIFF_COLOURS,
    DIFF_FILLS as DIFF_FILLS,
)
from asmcfg.describe.drawing import (  # re-exported: callers read every label from `describe`
    DRAWN_COUNTS as DRAWN_COUNTS,
    NOT_DRAWN_LISTING as NOT_DRAWN_LISTING,
    drawing_note as drawing_note,
    failures_text as failures_text,
)
from asmcfg.describe.meaning import (  # re-exported: callers read every label from `describe`
    CALL_KINDS as CALL_KINDS,
    PATH_KINDS as PATH_KINDS,
    ROLE_LABELS as ROLE_LABELS,
    call_text as call_text,
    chain_text as chain_text,
    decision_text as decision_text,
    fast_path_text as fast_path_text,
    inline_reason as inline_reason,
    loop_text as loop_text,
    type_check_text as type_check_text,
    vector_text as vector_text,
)
from asmcfg.describe.names import (  # re-exported: callers read every label from `describe`
    SHORT_NAME as SHORT_NAME,
    short_name as short_name,
)
from asmcfg.describe.profile import (  # re-exported: callers read every label from `describe`
    EVEX_ADVICE as EVEX_ADVICE,
    EVEX_CAUSE as EVEX_CAUSE,
    EVEX_ON_HEX as EVEX_ON_HEX,
    FIRST_PATH as FIRST_PATH,
    HOT_PATHS_TITLE as HOT_PATHS_TITLE,
    PLACE_LABELS as PLACE_LABELS,
    UNATTRIBUTED as UNATTRIBUTED,
    UNCOUNTED_CYCLE as UNCOUNTED_CYCLE,
    percent as percent,
    run_label as run_label,
    share_basis as share_basis,
    skid_note as skid_note,
    unprinted as unprinted,
)
from asmcfg.model import NOT_IN_LOG, EdgeKind, Header, Tag, Trap, TrapEvidence, Verdict

TAG_ORDER: tuple[Tag, ...] = tuple(Tag)
"""Tags in the order labels list them; also the legend order."""

TAG_LABELS: dict[Tag, str] = {
    Tag.ENTRY: "entry (inline-cache check)",
    Tag.VERIFIED_ENTRY: "verified entry",
    Tag.OSR_ENTRY: "OSR entry",
    Tag.LOOP_HEADER: "loop header",
    Tag.SAFEPOINT_POLL: "safepoint poll",
    Tag.RETURN_POLL: "return poll",
    Tag.RANGE_CHECK: "range-check failure path",
    Tag.NULL_CHECK: "null-check failure path",
    Tag.UNCOMMON_TRAP: "uncommon trap (deopt)",
    Tag.EXCEPTION_HANDLER: "exception handler",
    Tag.DEOPT_HANDLER: "deopt handler",
    Tag.STUB: "stub / slow path",
    Tag.IC_MISS: "inline-cache miss",
    Tag.PADDING: "padding (never executed)",
    Tag.VECTOR: "packed SIMD work in a loop",
    Tag.JAVA_CALL: "call of a Java method (not inlined)",
    Tag.RUNTIME_CALL: "call into the VM runtime or a stub",
    Tag.TYPE_CHECK: "type check (class compare / subtype stub)",
    Tag.ALLOCATION: "allocation (TLAB fast path)",
    Tag.ALLOCATION_SLOW: "allocation slow path",
    Tag.LOCK: "monitor enter fast path",
    Tag.LOCK_SLOW: "monitor enter slow path",
    Tag.UNLOCK: "monitor exit fast path",
    Tag.UNLOCK_SLOW: "monitor exit slow path",
    Tag.GC_BARRIER: "GC barrier fast path",
    Tag.GC_BARRIER_SLOW: "GC barrier slow path",
}

TAG_COLOURS: dict[Tag, str] = {
    Tag.ENTRY: "#d9f2d9",
    Tag.VERIFIED_ENTRY: "#b3e6b3",
    Tag.OSR_ENTRY: "#8fd98f",
    Tag.LOOP_HEADER: "#cce0ff",
    Tag.SAFEPOINT_POLL: "#e6f0ff",
    Tag.RETURN_POLL: "#f2f2f2",
    Tag.RANGE_CHECK: "#ffd9b3",
    Tag.NULL_CHECK: "#ffe6cc",
    Tag.UNCOMMON_TRAP: "#ffb3b3",
    Tag.EXCEPTION_HANDLER: "#e6ccff",
    Tag.DEOPT_HANDLER: "#f0e0ff",
    Tag.STUB: "#e6e6e6",
    Tag.IC_MISS: "#f5f5dc",
    Tag.PADDING: "#fafafa",
    Tag.VECTOR: "#c2f0f0",
    Tag.JAVA_CALL: "#fff2a8",
    Tag.RUNTIME_CALL: "#f7f0d9",
    Tag.TYPE_CHECK: "#e8d9f7",
    Tag.ALLOCATION: "#d9f0e6",
    Tag.ALLOCATION_SLOW: "#b8dcc9",
    Tag.LOCK: "#f2dcd0",
    Tag.LOCK_SLOW: "#e0bca8",
    Tag.UNLOCK: "#f2e6d0",
    Tag.UNLOCK_SLOW: "#dcc7a3",
    Tag.GC_BARRIER: "#dde3f0",
    Tag.GC_BARRIER_SLOW: "#b9c4de",
}
"""Fill colour of a block, by its most important tag (the first in TAG_ORDER it carries)."""

FILL_PRIORITY: tuple[Tag, ...] = (
    Tag.UNCOMMON_TRAP,
    Tag.RANGE_CHECK,
    Tag.NULL_CHECK,
    Tag.EXCEPTION_HANDLER,
    Tag.DEOPT_HANDLER,
    Tag.ALLOCATION_SLOW,
    Tag.LOCK_SLOW,
    Tag.UNLOCK_SLOW,
    Tag.GC_BARRIER_SLOW,
    Tag.STUB,
    Tag.IC_MISS,
    Tag.OSR_ENTRY,
    Tag.VERIFIED_ENTRY,
    Tag.ENTRY,
    Tag.GC_BARRIER,
    Tag.ALLOCATION,
    Tag.LOCK,
    Tag.UNLOCK,
    Tag.TYPE_CHECK,
    Tag.JAVA_CALL,
    Tag.VECTOR,
    Tag.LOOP_HEADER,
    Tag.RUNTIME_CALL,
    Tag.SAFEPOINT_POLL,
    Tag.RETURN_POLL,
    Tag.PADDING,
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
FLAG_LABELS = {
    "%": "OSR: compiled for on-stack replacement, entered at a loop's bytecode",
    "s": "synchronized method",
    "!": "the method has exception handlers",
    "b": "blocking: the thread that asked waited for this compilation",
    "n": "native method (a wrapper HotSpot generates)",
}
"""The attribute characters HotSpot prints after a compile id (and a title shows in brackets, `[!]`)."""
RUN_HEAT_TOP = 20.0
"""The share of the run's samples (percent) whose block the run scale fills full red (`run_heat_colour`)."""
RUN_HEAT_LEGEND = (f"heat: the block's share of the run's samples, the same scale on both sides and in every pair: "
                   f"white (no samples) to red ({RUN_HEAT_TOP:g}% or more)")
RUN_HEAT_STEPS = (0.0, 1.0, 5.0, 10.0, RUN_HEAT_TOP)
"""The shares the run scale's legend shows."""
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


def fill_for(tags: frozenset[Tag]) -> str:
    """The fill colour of a block with these tags (white when none matters)."""
    for tag in FILL_PRIORITY:
        if tag in tags:
            return TAG_COLOURS[tag]
    return "#ffffff"


def ordered_tags(tags: frozenset[Tag]) -> list[Tag]:
    """Tags in display order."""
    return [t for t in TAG_ORDER if t in tags]




def not_in_log(compile_id: int | None, compiler: str, method: str) -> str:
    """The error for opening a compilation whose code the log does not hold."""
    number = "" if compile_id is None else f" {compile_id}"
    return (f"compile id{number} ({compiler} {method}): {NOT_IN_LOG}: the log records the compilation, but the "
            "VM never printed its assembly (it exited first, or printing was not asked for it)")


def compilation(header: Header) -> str:
    """One line naming a compilation: `c2 id 9 tier 4 Tensor4D::sum4 (97 bytes)`."""
    parts: list[str] = [header.compiler]
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


def run_heat_colour(share: float) -> str:
    """A fill on the white-to-red scale of `heat_colour` for a block holding `share` percent of the run's samples,
    the same for every method: the square root of its share of RUN_HEAT_TOP (0.61% a pale pink, 19% near red)."""
    return heat_colour(math.sqrt(max(0.0, min(share, RUN_HEAT_TOP)) / RUN_HEAT_TOP), 1.0)


def address(value: int | None) -> str | None:
    """`0x7f6e3cec8140` (no leading zeros), or None."""
    return None if value is None else f"0x{value:x}"


def trap_log_line(evidence: TrapEvidence) -> str:
    """What the LogCompilation log says of a decoded trap, in one ASCII line."""
    fired = f"; fired {evidence.fired}x at run time" if evidence.fired else ""
    if evidence.verdict is Verdict.AGREES:
        return f"log agrees{fired}"
    if evidence.verdict is Verdict.NO_RECORDS:
        return f"fired {evidence.fired}x at run time" if evidence.fired else "not fired (the compiler logs no traps)"
    if evidence.verdict is Verdict.UNLOGGED:
        return f"LOG DIFFERS: the compiler logged no trap at this bci{fired}"
    return f"LOG DIFFERS: the compiler logged {', '.join(evidence.logged_as())} here{fired}"


def loop_label(header: int, depth: int) -> str:
    """The caption of a loop's cluster: `loop B9 (depth 2)`."""
    return f"loop B{header} (depth {depth})"


def patching_site(stub: int) -> str:
    """The note on a C1 patching site's instruction."""
    return f"C1 patching site: the dump holds jmp {stub:x} (patching stub) here until the first run patches it"


def loop_fill(depth: int) -> str:
    """The fill of a loop's cluster at nesting `depth`."""
    return LOOP_FILLS[min(depth, len(LOOP_FILLS)) - 1]


def trap_summary(trap: Trap) -> str:
    """`trap: range_check / make_not_entrant at aaload@42 line 25`."""
    where = f" at {trap.bytecode}@{trap.bci}" if trap.bci is not None else ""
    line = f" line {trap.line}" if trap.line is not None else ""
    return f"trap: {trap.reason} / {trap.action}{where}{line}"


def count(number: int, word: str, plural: str = "") -> str:
    """`1 loop`, `0 loops`, `2 type checks`: the number and the word, plural (`plural`, else `word` + s) unless
    the number is one."""
    return f"{number} {word if number == 1 else plural or word + 's'}"
