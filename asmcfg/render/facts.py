"""`--jsonl FILE --facts`: one compact record per compilation, its facts without instruction lists (docs/json.md)."""

from __future__ import annotations

from typing import Any

from asmcfg import describe
from asmcfg.facts import report
from asmcfg.facts.counts import counts
from asmcfg.hotspot import sections
from asmcfg.model import Analysis, Call, Verdict
from asmcfg.render.json import SCHEMA, identity, marker_address, trap_dict

RECORD = "facts"
"""The value of a facts record's `record` field (full JSON Lines records have none)."""


def facts_record(result: Analysis) -> dict[str, Any]:
    """One compilation's facts: header, counts, traps, loops, check branches and calls."""
    return {
        "schema": SCHEMA,
        "record": RECORD,
        **identity(result),
        "entry": marker_address(result, sections.ENTRY),
        "verified_entry": marker_address(result, sections.VERIFIED_ENTRY),
        "counts": counts(result),
        "traps": [trap_facts(result, block) for block in sorted(result.traps)],
        "loops": [report.loop_dict(result, loop) for loop in result.loops],
        "checks": [
            {"block": edge.src, "address": site_address(result, edge.site), "kind": check, "edge": edge.kind.value,
             "to": edge.dst}
            for edge, check in result.checks.items()
        ],
        "calls": [call_facts(call) for call in result.calls],
        "skipped_lines": result.cfg.method.skipped_total,
        "trap_log": report.trap_log_counts(result),
    }


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
