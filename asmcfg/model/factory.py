"""A fast constructor of the record the readers make most of: one Instruction per instruction printed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from types import MemberDescriptorType

from asmcfg.model.code import Frame, Instruction


def _instruction_factory() -> Callable[..., Instruction]:
    """`Instruction(address, mnemonic, operands, line, …)` with every field given, positionally, without the
    frozen dataclass's `object.__setattr__` per field: the readers make one per instruction printed."""
    slots = [Instruction.__dict__.get(name) for name in Instruction.__slots__]
    if [f.name for f in fields(Instruction)] != list(Instruction.__slots__) or not all(
        isinstance(slot, MemberDescriptorType) for slot in slots
    ):
        return Instruction  # a compiled build: its own constructor is fast
    address, mnemonic, operands, line, comment, relocs, bytecode, frames, implicit, size, patching = (
        slot.__set__ for slot in slots  # type: ignore[union-attr]
    )
    new = object.__new__

    def make(a: int, m: str, o: str, n: int, c: str, r: tuple[str, ...], b: str, f: tuple[Frame, ...],
             i: int | None, s: int | None, p: int | None) -> Instruction:
        ins = new(Instruction)
        address(ins, a)
        mnemonic(ins, m)
        operands(ins, o)
        line(ins, n)
        comment(ins, c)
        relocs(ins, r)
        bytecode(ins, b)
        frames(ins, f)
        implicit(ins, i)
        size(ins, s)
        patching(ins, p)
        return ins

    return make


new_instruction = _instruction_factory()
"""Builds an Instruction from all eleven fields in order (equal to calling the class)."""
