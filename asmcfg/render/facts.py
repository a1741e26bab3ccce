"""`--jsonl FILE --facts`: one compact record per compilation, its facts without instruction lists (docs/json.md);
with its measured heat when the input, `--profile` or a record folder's samples measured it."""

from __future__ import annotations

from typing import Any

from asmcfg import describe
from asmcfg.facts import heat_report, report
from asmcfg.facts.counts import counts
from asmcfg.hotspot import sections
from asmcfg.model import Analysis, Call, Loop, Verdict
from asmcfg.render.json import SCHEMA, identity, marker_address, trap_dict

RECORD = "facts"
"""The value of a facts record's `record` field (full JSON Lines records have none)."""


def facts_record(result: Analysis) -> dict[str, Any]:
    """One compilation's facts: header, counts, traps, loops, check branches and calls; and, when its heat was
    measured, the heat the full record gives (`profile`, `unattributed`, `hot_paths`), each loop's and each sampled
    block's."""
    measured = result.cfg.method.profile is not None
    record = {
        "schema": SCHEMA,
        "record": RECORD,
        **identity(result),
        "entry": marker_address(result, sections.ENTRY),
        "verified_entry": marker_address(result, sections.VERIFIED_ENTRY),
        "counts": counts(result),
        "traps": [trap_facts(result, block) for block in sorted(result.traps)],
        "loops": [loop_facts(result, loop) if measured else report.loop_dict(result, loop) for loop in result.loops],
        "checks": [
            {"block": edge.src, "address": site_address(result, edge.site), "kind": check, "edge": edge.kind.value,
             "to": edge.dst}
            for edge, check in result.checks.items()
        ],
        "calls": [call_facts(call) for call in result.calls],
        "skipped_lines": result.cfg.method.skipped_total,
        "trap_log": report.trap_log_counts(result),
    }
    if measured:
        record.update(report.profile_fields(result))
        record["block_heat"] = block_heat(result)
    return record


def loop_facts(result: Analysis, loop: Loop) -> dict[str, Any]:
    """A loop as the JSON model has it, with its measured heat: its blocks' (`heat.loop_blocks`), per event."""
    return {**report.loop_dict(result, loop), "heat": report.heat_dict(result, heat_report.loop_heat(result, loop))}


def block_heat(result: Analysis) -> list[dict[str, Any]]:
    """The blocks that hold measured heat, in block order: each one's heat per event as the full record's block
    gives it, and its samples when the heat was counted from `perf` samples."""
    profile = result.cfg.method.profile
    assert profile is not None
    instructions = result.cfg.method.instructions
    found: list[dict[str, Any]] = []
    seen: set[int] = set()  # an address counts once, as in the block's heat (`heat.block_heat`)
    for block in result.cfg.blocks:
        heat = result.block_heat.get(block.id, ())
        addresses = {ins.address for ins in instructions[block.start : block.end]} - seen
        seen |= addresses
        if not any(v > 0 for v in heat):
            continue
        item: dict[str, Any] = {"block": block.id, "heat": report.heat_dict(result, heat)}
        if profile.samples:
            item["samples"] = sum(profile.samples.get(address, 0) for address in addresses)
        found.append(item)
    return found


def site_address(result: Analysis, index: int) -> str | None:
    """The address of instruction `index` as JSON writes addresses."""
    return describe.address(result.cfg.method.instructions[index].address)


def call_facts(call: Call) -> dict[str, Any]:
    """A call as the calls pass found it: block, kind, callee, the innermost scope when printed, and the log's
    reasons for not inlining it when there are any."""
    item: dict[str, Any] = {"block": call.block, "kind": call.kind, "callee": call.callee}
    if call.frames:
        item["scope"] = call.frames[0].as_dict()
    reason = call.not_inlined_because()
    if reason:
        item["not_inlined"] = reason
    return item


def trap_facts(result: Analysis, block: int) -> dict[str, Any]:
    """A decoded trap as in the JSON model, its log evidence cut to the verdict, the run-time count and, when
    the log differs, the reasons and actions it names."""
    trap = result.traps[block]
    item = {"block": block, "address": site_address(result, trap.site), **trap_dict(result, trap, block)}
    log = item.pop("log")
    item["verdict"] = None if log is None else log["verdict"]
    item["fired"] = None if log is None else log["fired"]
    evidence = result.trap_log.get(block)
    if evidence is not None and evidence.verdict is Verdict.DIFFERS:
        item["logged"] = [r.as_dict("reason", "action") for r in evidence.logged]
    return item
