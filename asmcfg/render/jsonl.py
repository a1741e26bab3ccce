"""Full `--jsonl` records as compact JSON text, written without a dict per instruction.

`record_line(result)` is the text `json.dumps(json.jsonl_record(result), separators=(",", ":"))` gives, made
directly from the instructions for most of its length: the instruction lists are nearly all of a record.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _string
from typing import Any

from asmcfg.model import Analysis, Block, Frame, Instruction
from asmcfg.render.json import SCHEMA, block_bounds, block_tail, jsonl_record, method_head, method_tail

COMPACT = json.JSONEncoder(separators=(",", ":"), check_circular=False)
"""`json.dumps(record, separators=(",", ":"))`, without the cycle check a tree of fresh dicts does not need."""


def record_line(result: Analysis) -> str:
    """`jsonl_record(result)` as one line of compact JSON (no newline)."""
    if result.cfg.method.profile is not None:  # measured heat: floats in every instruction, as the encoder writes them
        return COMPACT.encode(jsonl_record(result))
    head = COMPACT.encode({"schema": SCHEMA, **method_head(result)})
    blocks = ",".join(block_line(result, block) for block in result.cfg.blocks)
    return f'{head[:-1]},"blocks":[{blocks}],{COMPACT.encode(method_tail(result))[1:]}'


def block_line(result: Analysis, block: Block) -> str:
    """One block's JSON object, as `json.block_dict` encodes without a profile."""
    instructions = result.cfg.method.instructions[block.start : block.end]
    start, end = block_bounds(instructions)
    own = ",".join(map(instruction_line, instructions))
    tail = ",".join(f"{_string(key)}:{_value(value)}" for key, value in block_tail(result, block).items())
    return f'{{"id":{block.id:d},"start":"{start}","end":"{end}","instructions":[{own}],{tail}}}'


def _value(value: Any) -> str:
    """A block field's JSON: the tags and an absent trap or source here, other values by the encoder."""
    if value is None:
        return "null"
    if type(value) is list and all(type(item) is str for item in value):
        return f"[{','.join(map(_string, value))}]"
    return COMPACT.encode(value)


def instruction_line(ins: Instruction) -> str:
    """One instruction's JSON object, as `Instruction.as_dict()` encodes."""
    text = f'{{"address":"0x{ins.address:x}","mnemonic":{_string(ins.mnemonic)},"operands":{_string(ins.operands)}'
    if ins.relocs:
        text += f',"relocs":[{",".join(map(_string, ins.relocs))}]'
    if ins.bytecode:
        text += f',"bytecode":{_string(ins.bytecode)}'
    if ins.frames:
        text += f',"frames":[{",".join(map(_frame, ins.frames))}]'
    if ins.implicit_target is not None:
        text += f',"implicit_exception":"0x{ins.implicit_target:x}"'
    if ins.patching_stub is not None:
        text += f',"patching_stub":"0x{ins.patching_stub:x}"'
    return f'{text},"line":{ins.line:d}}}'


def _frame(frame: Frame) -> str:
    line = "null" if frame.line is None else f"{frame.line:d}"
    return f'{{"method":{_string(frame.method)},"bci":{frame.bci:d},"line":{line}}}'
