"""The calls of a compilation with their kind, for the facts records (`--jsonl FILE --facts`)."""

from __future__ import annotations

from typing import Any

from asmcfg import describe
from asmcfg.analyses.traps import trap_kind
from asmcfg.isa import for_name
from asmcfg.model import Analysis, Flow, Instruction


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


def site_address(result: Analysis, index: int) -> str | None:
    """The address of instruction `index` as JSON writes addresses."""
    return describe.address(result.cfg.method.instructions[index].address)
