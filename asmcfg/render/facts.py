"""`--jsonl FILE --facts`: one compact record per compilation, its facts without instruction lists (README)."""

from __future__ import annotations

from typing import Any

from asmcfg import describe, report
from asmcfg.analyses.counts import counts
from asmcfg.analyses.traps import trap_kind
from asmcfg.isa import for_name
from asmcfg.model import Analysis, Flow, Instruction
from asmcfg.render.json import SCHEMA, marker_address, trap_dict

RECORD = "facts"
"""The value of a facts record's `record` field (full JSON Lines records have none)."""


def facts_record(result: Analysis) -> dict[str, Any]:
    """One compilation's facts: header, counts, traps, loops, check branches and calls."""
    method = result.cfg.method
    header = method.header
    return {
        "schema": SCHEMA,
        "record": RECORD,
        "name": header.name,
        "compiler": header.compiler,
        "compile_id": header.compile_id,
        "level": header.level,
        "osr_bci": header.osr_bci,
        "flags": header.flags,
        "bytecode_size": header.bytecode_size,
        "source": method.source,
        "line": header.line,
        "dialect": method.dialect,
        "jdk": result.jdk,
        "jdk_assumption": result.jdk_why,
        "isa": method.isa,
        "entry": marker_address(result, "Entry Point"),
        "verified_entry": marker_address(result, "Verified Entry Point"),
        "counts": counts(result),
        "traps": [trap_facts(result, block) for block in sorted(result.traps)],
        "loops": [report.loop_dict(result, loop) for loop in result.loops],
        "checks": [
            {"block": edge.src, "address": _site(result, edge.site), "kind": check, "edge": edge.kind.value,
             "to": edge.dst}
            for edge, check in result.checks.items()
        ],
        "calls": calls(result),
        "skipped_lines": len(method.skipped),
        "trap_log": report.trap_log_counts(result),
    }


def trap_facts(result: Analysis, block: int) -> dict[str, Any]:
    """A decoded trap as in the JSON model, its log evidence cut to the verdict, the run-time count and, when
    the log differs, the reasons and actions it names."""
    trap = result.traps[block]
    item = {"block": block, "address": _site(result, trap.site), **trap_dict(result, trap, block)}
    log = item.pop("log")
    item["verdict"] = None if log is None else log["verdict"]
    item["fired"] = None if log is None else log["fired"]
    if log is not None and log["verdict"] == "differs":
        item["logged"] = [{"reason": r["reason"], "action": r["action"]} for r in log["logged"]]
    return item


def _site(result: Analysis, index: int) -> str | None:
    return describe.address(result.cfg.method.instructions[index].address)


def calls(result: Analysis) -> list[dict[str, Any]]:
    """Every call that is not a trap call (those are in `traps`), in address order: its block and kind, the
    runtime routine it calls (or the operand of a call without relocation), and the bytecode and innermost
    scope that made it when HotSpot printed them."""
    table = for_name(result.cfg.method.isa)
    instructions = result.cfg.method.instructions
    found = []
    for block in result.cfg.blocks:
        for ins in instructions[block.start : block.end]:
            if table.flow(ins) is not Flow.CALL or trap_kind(ins) is not None:
                continue
            kind, target = call_kind(ins)
            item: dict[str, Any] = {"block": block.id, "kind": kind}
            if target:
                item["target"] = target
            if ins.bytecode:
                item["bytecode"] = ins.bytecode
            if ins.frames:
                scope = ins.frames[0]
                item["scope"] = {"method": scope.method, "bci": scope.bci, "line": scope.line}
            found.append(item)
    return found


def call_kind(ins: Instruction) -> tuple[str, str]:
    """(kind, target) of a call that is not a trap call: HotSpot's relocation type (`static_call`,
    `optimized_virtual_call`, `virtual_call`, `runtime_call`) or `unrelocated`; the target is the runtime
    routine HotSpot names, the operand text of an unrelocated call, and empty for calls of Java methods."""
    runtime = ins.runtime_call()
    if runtime:
        return "runtime_call", runtime
    for reloc in ins.relocs:
        if reloc.endswith("call"):
            return reloc.replace(" ", "_"), ""
    return "unrelocated", ins.operands
