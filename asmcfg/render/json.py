"""The machine-readable model: a versioned JSON document (schema in docs/json.md)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from asmcfg import describe
from asmcfg.facts import compile_profile, lineheat, meaning, report
from asmcfg.facts.counts import counts
from asmcfg.hotspot import sections
from asmcfg.model import Analysis, Block, Instruction, Trap, Unprinted
from asmcfg.render import indented

if TYPE_CHECKING:
    from asmcfg.model import Profile

SCHEMA = 1


def _hex(value: int | None) -> str | None:
    return describe.address(value)


def marker_address(result: Analysis, label: str) -> str | None:
    """Address of the first instruction after a section marker, or None."""
    method = result.cfg.method
    for index, name in method.markers:
        if name == label and index < len(method.instructions):
            return _hex(method.instructions[index].address)
    return None


def instruction_dict(ins: Instruction, profile: Profile | None = None) -> dict[str, Any]:
    """One instruction as JSON, with its measured heat when a profile is given."""
    if profile is None or ins.address not in profile.heat:
        return ins.as_dict()
    item = ins.as_dict({e: round(v, 4) for e, v in zip(profile.events, profile.heat[ins.address], strict=False)})
    if ins.address in profile.samples:
        item["samples"] = profile.samples[ins.address]
    return item


def trap_dict(result: Analysis, trap: Trap, block: int) -> dict[str, Any]:
    """A decoded trap as JSON, with what a LogCompilation log says of it (`log`, null without one)."""
    evidence = result.trap_log.get(block)
    return trap.as_dict(None if evidence is None else evidence.as_dict())


def block_dict(result: Analysis, block: Block) -> dict[str, Any]:
    """One block as JSON."""
    instructions = result.cfg.method.instructions[block.start : block.end]
    start, end = block_bounds(instructions)
    profile = result.cfg.method.profile
    return {
        "id": block.id,
        "start": start,
        "end": end,
        "instructions": [instruction_dict(i, profile) for i in instructions],
        **block_tail(result, block),
    }


def block_bounds(instructions: Sequence[Instruction]) -> tuple[str, str]:
    """A block's `start` and `end` addresses, from its instructions, as JSON writes them (`end`: past its last
    instruction when its size is known, else that instruction's address)."""
    first, last = instructions[0], instructions[-1]
    end = last.address + last.size if last.size else last.address
    return f"0x{first.address:x}", f"0x{end:x}"


def block_tail(result: Analysis, block: Block) -> dict[str, Any]:
    """The fields of a block's JSON object after its instructions."""
    trap = result.traps.get(block.id)
    item: dict[str, Any] = {
        "tags": describe.ordered_tags(result.block_tags(block.id)),
        "trap": trap_dict(result, trap, block.id) if trap else None,
        "source": report.block_source(result, block),
    }
    if result.block_heat:
        item["heat"] = report.heat_dict(result, result.block_heat.get(block.id))
    return item


def identity(result: Analysis) -> dict[str, Any]:
    """What the compilation is and how it was read: the fields the JSON model and the facts records open with."""
    method = result.cfg.method
    header = method.header
    return {
        "name": header.name,
        "compiler": header.compiler,
        "compile_id": header.compile_id,
        "level": header.level,
        "osr_bci": header.osr_bci,
        "flags": header.flags,
        "bytecode_size": header.bytecode_size,
        **method.loc.as_dict(),
        "dialect": method.dialect,
        "jdk": result.jdk,
        "jdk_assumption": result.jdk_why,
        "isa": method.isa,
    }


def method_dict(result: Analysis) -> dict[str, Any]:
    """One analysed method as the JSON object docs/json.md documents."""
    doc: dict[str, Any] = {
        **method_head(result),
        "blocks": [block_dict(result, b) for b in result.cfg.blocks],
        **method_tail(result),
    }
    if result.cfg.method.profile is not None:
        doc.update(report.profile_fields(result))
        doc.update(lineheat.json_fields(result))
    return doc


def method_head(result: Analysis) -> dict[str, Any]:
    """The fields of a method's JSON object before its blocks."""
    return {
        **identity(result),
        "syntax": result.cfg.method.syntax,
        "entry": marker_address(result, sections.ENTRY),
        "verified_entry": marker_address(result, sections.VERIFIED_ENTRY),
    }


def method_tail(result: Analysis) -> dict[str, Any]:
    """The fields of a method's JSON object after its blocks, measured heat aside."""
    return {
        "edges": [e.as_dict(result.checks.get(e)) for e in result.cfg.edges],
        "loops": [report.loop_dict(result, loop) for loop in result.loops],
        "hot_path": list(result.hot_path),
        "hot_path_kind": "static",
        "counts": counts(result),
        "skipped_lines": [{"line": n, "text": t} for n, t in result.cfg.method.skipped],
        "skipped_lines_total": result.cfg.method.skipped_total,
        "trap_log": report.trap_log_counts(result),
        **meaning.method_fields(result),
        **compile_profile.method_fields(result),
    }


def write_json(results: Iterable[Analysis], out: TextIO, not_printed: Sequence[Unprinted] | None = None) -> None:
    """Write `{"schema": 1, "methods": [...]}`, with `not_printed` (compilations perfasm measured but did not
    print) when the input or the profile is perfasm output."""
    document: dict[str, Any] = {"schema": SCHEMA, "methods": [method_dict(r) for r in results]}
    if not_printed is not None:
        document["not_printed"] = [report.unprinted_dict(item) for item in not_printed]
    out.write(indented.dumps(document))
    out.write("\n")


def jsonl_record(result: Analysis) -> dict[str, Any]:
    """One method as a JSON Lines record: the method object plus its schema number."""
    return {"schema": SCHEMA, **method_dict(result)}
