"""Derived per-method figures the JSON and summary renderers share (no parsing, no printing)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from asmcfg import describe
from asmcfg.analyses import copies, heat
from asmcfg.analyses.hotness import is_cold
from asmcfg.facts import meaning
from asmcfg.isa import for_name
from asmcfg.model import (
    Analysis,
    Block,
    Check,
    Feature,
    Flow,
    Loop,
    Tag,
    TrapOrigin,
    Unprinted,
    Verdict,
)

if TYPE_CHECKING:
    from asmcfg.facts import heat_report
    from asmcfg.model import Profile

_CHECK_TAGS = frozenset({Tag.RANGE_CHECK, Tag.NULL_CHECK})


def block_source(result: Analysis, block: Block) -> dict[str, Any] | None:
    """The dominant source line and inlined method of a block, from its debug info."""
    frames: dict[tuple[str, int | None], int] = {}
    for ins in result.cfg.method.instructions[block.start : block.end]:
        if ins.frames:
            key = (ins.frames[0].method, ins.frames[0].line)
            frames[key] = frames.get(key, 0) + 1
    if not frames:
        return _source_from_checks(result, block)
    (method, line), _ = max(frames.items(), key=lambda kv: (kv[1], kv[0][1] or 0, kv[0][0]))
    return {"method": method, "line": line, "via": "debug_info"}


def block_lines(result: Analysis, block: Block) -> list[tuple[str, int]]:
    """Every (method, line) the block's debug info names, inlining chains included, in first-seen order."""
    seen: dict[tuple[str, int], None] = {}
    for ins in result.cfg.method.instructions[block.start : block.end]:
        for frame in ins.frames:
            if frame.line is not None:
                seen.setdefault((frame.method, frame.line), None)
    return list(seen)


def _source_from_checks(result: Analysis, block: Block) -> dict[str, Any] | None:
    """Without debug info in the block, the line of the trap its checks lead to."""
    for edge in result.checks:  # check edges only, in graph order within a block
        if edge.src == block.id and isinstance(edge.dst, int):
            target = failure_trap(result, edge.dst)
            trap = result.traps.get(target) if target is not None else None
            if trap is not None and trap.line is not None:
                return {"method": trap.method, "line": trap.line, "via": "check", "trap_block": target}
    return None


def failure_trap(result: Analysis, first: int) -> int | None:
    """The trap block a check's failure path starting at block `first` reaches (straight-line, check-tagged)."""
    for target in range(first, len(result.cfg.blocks)):
        if target in result.traps:
            return target
        if not result.block_tags(target) & _CHECK_TAGS:
            return None
    return None


def check_paths(result: Analysis) -> list[dict[str, Any]]:
    """Each check edge: the block that checks, the failure path's first block, and the trap it ends in."""
    return [
        {"from": edge.src, "to": edge.dst, "check": check, "site": edge.site,
         "trap_block": failure_trap(result, edge.dst)}
        for edge, check in result.checks.items()
        if isinstance(edge.dst, int)
    ]


def focus_loop(result: Analysis) -> int | None:
    """The header of the loop to show first: the loop the measured hot path goes round (the hottest loop, then the
    inner loop holding most of its heat, see heat.hottest_loop), else the innermost on the static hot path."""
    if result.block_heat and result.loops:
        hottest = heat.hottest_loop(result)
        if hottest is not None:
            return hottest.header
    on_path = [loop for loop in result.loops if loop.header in result.hot_path]
    if not on_path:
        return None
    return max(on_path, key=lambda loop: (loop.depth, -loop.header)).header


def focus_blocks(result: Analysis, most: int = 3) -> list[int]:
    """The hottest sampled blocks (at most `most`, hottest first) of the loop focus_loop names, else of the method;
    empty without a profile."""
    if not result.block_heat:
        return []
    header = focus_loop(result)
    loop = next((lp for lp in result.loops if lp.header == header), None)
    blocks = heat.loop_blocks(loop) if loop is not None else tuple(result.block_heat)
    warm = [b for b in blocks if result.block_heat.get(b) and result.block_heat[b][0] > 0]
    return sorted(warm, key=lambda b: (-result.block_heat[b][0], b))[:most]


def calls_in(result: Analysis, blocks: list[int]) -> list[str]:
    """Names of the calls made in `blocks` (trap calls excluded)."""
    table = for_name(result.cfg.method.isa)
    names = []
    for block_id in blocks:
        block = result.cfg.blocks[block_id]
        for ins in result.cfg.method.instructions[block.start : block.end]:
            if table.flow(ins) is Flow.CALL and block_id not in result.traps:
                names.append(_callee(ins.relocs) or ins.operands)
    return names


def _callee(relocs: tuple[str, ...]) -> str:
    for reloc in relocs:
        if "call" in reloc:
            return reloc
    return ""


def checks_in(result: Analysis, blocks: set[int]) -> Counter[Check]:
    """Range and null checks whose branch lies in `blocks`."""
    return Counter(check for edge, check in result.checks.items() if edge.src in blocks)


def loop_dict(result: Analysis, loop: Loop) -> dict[str, Any]:
    """A loop with what one iteration executes and pays for."""
    warm = [b for b in loop.blocks if not is_cold(result, b)]
    checks = checks_in(result, set(warm))
    polls = sum(
        1
        for b in warm
        for ins in result.cfg.method.instructions[result.cfg.blocks[b].start : result.cfg.blocks[b].end]
        if ins.relocs and ins.poll
    )
    return {
        **loop.as_dict(strip_mined_outer(result, loop)),
        "instructions": sum(result.cfg.blocks[b].end - result.cfg.blocks[b].start for b in warm),
        "polls": polls,
        "range_checks": checks.get(Check.RANGE, 0),
        "null_checks": checks.get(Check.NULL, 0),
        "calls": calls_in(result, warm),
        **meaning.loop_fields(result, loop.header),
    }


def strip_mined_outer(result: Analysis, loop: Loop) -> bool:
    """C2's strip-mined outer loop: it polls, and holds exactly one inner loop that does not."""
    return copies.strip_mined_outer(result, loop)


def trap_table(result: Analysis) -> list[dict[str, Any]]:
    """Traps grouped by reason and action, with where they are."""
    groups: dict[tuple[str, str], list[str]] = {}
    for block_id in sorted(result.traps):
        trap = result.traps[block_id]
        where = f"{trap.bytecode or '?'}@{trap.bci}" if trap.bci is not None else "?"
        if trap.line is not None:
            where += f" line {trap.line}"
        groups.setdefault((trap.reason, trap.action), []).append(where)
    rows = [{"reason": r, "action": a, "count": len(w), "where": w} for (r, a), w in groups.items()]
    return sorted(rows, key=lambda row: (-row["count"], row["reason"]))


def heat_dict(result: Analysis, values: tuple[float, ...] | None) -> dict[str, float]:
    """Percent per event name."""
    profile = result.cfg.method.profile
    if profile is None or values is None:
        return {}
    return {event: round(v, 4) for event, v in zip(profile.events, values, strict=False)}


def profile_fields(result: Analysis) -> dict[str, Any]:
    """`profile` and `hot_paths` for a method that carries measured heat."""
    profile = result.cfg.method.profile
    if profile is None:
        return {}
    from asmcfg.facts import heat_report  # the heat figures: loaded for a method with heat only

    cold = heat_report.cold_share(result)
    return {
        "profile": {
            "source": profile.source,
            "events": list(profile.events),
            "matched": True,
            "method_share": heat_dict(result, profile.method_share or heat_report.method_heat(result)),
            "cold_share": heat_dict(result, cold.heat),
            **_counted(profile),
        },
        "unattributed": unattributed_dict(result),
        "hot_paths": [
            {
                "blocks": list(p.blocks),
                "first": p.first or None,
                "share": heat_dict(result, p.share),
                "instructions": heat_report.path_facts(result, p).instructions,
            }
            for p in result.hot_paths
        ],
    }


def _counted(profile: Profile) -> dict[str, Any]:
    """For heat counted from `perf` samples: the compilation's samples, the skid rule and what it means."""
    if not profile.samples:
        return {}
    return {
        "samples": sum(profile.samples.values()),
        "share_of": describe.share_basis(True),
        "skid": "previous" if profile.skid else "sampled",
        "skid_note": describe.skid_note(profile.skid),
    }


def trap_log_counts(result: Analysis) -> dict[str, Any] | None:
    """How the decoded traps compare with the LogCompilation log's records; None without such a log."""
    records = result.cfg.method.log_traps
    if records is None:
        return None
    verdicts = Counter(e.verdict for e in result.trap_log.values())
    counts = {
        "records": sum(1 for r in records if r.origin is TrapOrigin.PARSE),
        "agrees": verdicts[Verdict.AGREES],
        "differs": verdicts[Verdict.DIFFERS],
        "unlogged": verdicts[Verdict.UNLOGGED],
        "fired": sum(1 for r in records if r.origin is TrapOrigin.RUNTIME),
        "fired_elsewhere": [
            r.as_dict("reason", "action", "method", "bci", "line") for r in result.fired_elsewhere
        ],
    }
    if verdicts[Verdict.NO_RECORDS]:
        counts["no_records"] = verdicts[Verdict.NO_RECORDS]
    return counts


def trap_log_disagreements(result: Analysis) -> list[dict[str, Any]]:
    """The decoded traps the log disagrees with: block, what the code says, what the log says."""
    rows = []
    for block_id in sorted(result.trap_log):
        evidence = result.trap_log[block_id]
        if not evidence.disagrees:
            continue
        trap = result.traps[block_id]
        rows.append({
            "block": block_id, "code": f"{trap.reason} / {trap.action}", "log": evidence.logged_as() or ["(no record)"],
            "where": f"{trap.method}@{trap.bci}", "log_lines": sorted(r.line for r in evidence.logged),
        })
    return rows


def unattributed_dict(result: Analysis) -> dict[str, Any] | None:
    """The samples perfasm's regions count but print on no line: in all, per region, the likely cause."""
    from asmcfg.facts import heat_report

    found = heat_report.unattributed(result)
    if found is None:
        return None
    return {
        "share": heat_dict(result, found.heat),
        "regions": [
            {"region": r.number, "total": heat_dict(result, r.total), "printed": heat_dict(result, r.printed),
             "unattributed": heat_dict(result, share), "too_big_lines": r.too_big or None}
            for r, share in found.regions
        ],
        "cause": "evex_misdecoded" if found.misdecoded else None,
        "advice": unattributed_advice(result, found),
        "outside_regions": heat_dict(result, found.elsewhere),
        "margins": heat_dict(result, found.margins),
    }


def unattributed_advice(result: Analysis, found: heat_report.Unattributed) -> str | None:
    """What explains the unattributed samples and how to place them, when the EVEX signature is there."""
    if not found.misdecoded:
        return None
    text = describe.EVEX_CAUSE.format(count=found.misdecoded)
    hex_input = Feature.DECODED in result.cfg.method.features
    return f"{text}; {describe.EVEX_ON_HEX if hex_input else describe.EVEX_ADVICE}"


def unprinted_dict(item: Unprinted) -> dict[str, Any]:
    """A compilation perfasm did not print, with its share and how to get it."""
    header = item.header
    return {
        "name": header.name, "compiler": header.compiler, "compile_id": header.compile_id, "level": header.level,
        "run": item.run, "benchmark": item.benchmark, "region": item.region,
        "share": {e: round(v, 4) for e, v in zip(item.events, item.share, strict=False)},
        "lines": item.lines, "threshold": item.threshold,
        "advice": describe.unprinted(header.name, item.share, item.lines, item.threshold, header.compile_id),
    }
