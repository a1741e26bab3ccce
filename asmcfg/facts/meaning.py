"""What HotSpot means, derived for output: calls, inlining, loop copies, runtime paths, type checks as JSON
objects, summary rows and label lines (no parsing, no printing)."""

from __future__ import annotations

from typing import Any

from asmcfg import describe
from asmcfg.analyses.hotness import is_cold
from asmcfg.model import Analysis, Compiler


def loop_fields(result: Analysis, header: int) -> dict[str, Any]:
    """`role`, `unroll`, `vector_bits`, `vector_element`, `vector_isa` of the loop with this header."""
    facts = result.loop_facts.get(header)
    if facts is None:
        return {"role": None, "unroll": None, "vector_bits": None, "vector_element": None, "vector_isa": None}
    return {"role": facts.role or None, "unroll": facts.unroll, "vector_bits": facts.vector_bits,
            "vector_element": facts.element or None, "vector_isa": facts.vector_isa or None}


def loop_label(result: Analysis, header: int) -> str:
    """`main loop x4, 512-bit float (avx512)`, or empty for a loop with nothing to say."""
    facts = result.loop_facts.get(header)
    if facts is None:
        return ""
    return describe.loop_text(facts.role, facts.unroll,
                              describe.vector_text(facts.vector_bits, facts.element, facts.vector_isa))


def method_fields(result: Analysis) -> dict[str, Any]:
    """`calls`, `inlining`, `runtime_paths` and `type_checks` of the JSON method object."""
    address = result.cfg.method.instructions
    records = result.cfg.method.log_inlines
    return {
        "calls": [c.as_dict(address[c.site].address) for c in result.calls],
        "inlining": None if records is None else [d.as_dict() for d in records],
        "runtime_paths": [p.as_dict() for p in result.runtime_paths],
        "type_checks": [t.as_dict(address[t.site].address) for t in result.type_checks],
    } | ({"inlined_by_debug_info": debug_info_inlines(result)} if logs_no_decisions(result) else {})


def block_lines(result: Analysis, block: int) -> list[str]:
    """Label lines for one block: its loop's copy and width, its calls, type checks and fast paths."""
    lines = []
    if any(loop.header == block for loop in result.loops):
        text = loop_label(result, block)
        if text:
            lines.append(f"loop: {text}")
    logged = result.cfg.method.log_inlines is not None
    for call in result.calls:
        if call.block == block:
            lines.append(describe.call_text(call.kind, call.callee, call.not_inlined_because(),
                                            logged and call.java and not call.decisions))
    lines.extend(describe.type_check_text(t.classes, t.fails_to) for t in result.type_checks if t.block == block)
    lines.extend(describe.fast_path_text(p.kind, p.slow, p.what) for p in result.runtime_paths if block in p.fast)
    return lines


def hot_blocks(result: Analysis) -> set[int]:
    """Blocks on the hot path (measured or static) or in a loop, cold blocks excluded."""
    blocks = set(result.hot_path) | {b for p in result.hot_paths for b in p.blocks}
    blocks |= {b for loop in result.loops for b in loop.blocks}
    return {b for b in blocks if not is_cold(result, b)}


def call_rows(result: Analysis) -> list[dict[str, str]]:
    """The Java calls left in hot blocks, and what the log says of each (for the summary)."""
    hot = hot_blocks(result)
    logged = result.cfg.method.log_inlines is not None
    rows = []
    for call in result.calls:
        if call.block in hot and call.java:
            frame = call.frames[0] if call.frames else None
            where = f"{frame.method}@{frame.bci}" if frame else "?"
            why = call.not_inlined_because() or (NO_DECISIONS if logs_no_decisions(result) else
                                                 "no inlining record here" if logged else "(no LogCompilation log)")
            rows.append({"block": f"B{call.block}", "kind": describe.CALL_KINDS[call.kind], "callee": call.callee,
                         "where": where, "why": why})
    return rows


def inlining_rows(result: Analysis) -> list[dict[str, str]]:
    """Every inlining decision of the compilation's log, with the block of the call left in the code, if any."""
    records = result.cfg.method.log_inlines or ()
    in_code = {d.line: c.block for c in result.calls for d in c.decisions}
    return [{"site": describe.chain_text(d.chain) or f"{d.caller}@{d.bci}", "callee": d.callee,
             "decision": describe.decision_text(d.inlined, d.reason),
             "call": f"B{in_code[d.line]}" if d.line in in_code else "-", "line": str(d.line)} for d in records]


NO_DECISIONS = "no decision data: a JVMCI compiler logs no inlining decisions"


def debug_info_inlines(result: Analysis) -> list[dict[str, str]]:
    """The methods the debug info shows inlined, each at its call site's chain (innermost first): where a
    compiler logs no inlining decisions (a JVMCI compiler), the only evidence there is; only the scopes of the
    code's calls, traps and safepoints are printed, so an inlined method with none of those is not seen."""
    seen: dict[tuple[str, tuple[tuple[str, int | None], ...]], None] = {}
    for ins in result.cfg.method.instructions:
        for depth in range(len(ins.frames) - 1):
            chain = tuple((f.method, f.bci) for f in ins.frames[depth + 1:])
            seen.setdefault((ins.frames[depth].method, chain), None)
    return [{"site": describe.chain_text(chain), "callee": callee} for callee, chain in sorted(seen, key=_by_site)]


def _by_site(item: tuple[str, tuple[tuple[str, int | None], ...]]) -> tuple[str, str]:
    return describe.chain_text(tuple(reversed(item[1]))), item[0]


def logs_no_decisions(result: Analysis) -> bool:
    """True for a compiler that logs no inlining decisions of its own (a JVMCI compiler)."""
    return result.cfg.method.header.compiler is Compiler.JVMCI


def runtime_rows(result: Analysis) -> list[dict[str, str]]:
    """Allocation, lock and barrier paths for the summary."""
    return [{"kind": describe.PATH_KINDS[p.kind], "routine": p.what, "slow": f"B{p.slow}",
             "fast": " ".join(f"B{b}" for b in p.fast) or "-"} for p in result.runtime_paths]
