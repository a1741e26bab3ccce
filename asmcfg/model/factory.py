"""Fast ways to make records: an Instruction per instruction printed, and copies of records with a few fields
changed (each analysis pass makes one)."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from asmcfg.model.code import Block, Edge, Instruction
from asmcfg.model.make import COMPILED, Setters, field_descriptors, field_setters, maker

R = TypeVar("R")

new_instruction = maker(Instruction)
"""Builds an Instruction from all eleven fields in order (the readers make one per instruction printed)."""
new_block = maker(Block)
"""Builds a Block from its id, start and end (the graph makes one per basic block)."""
new_edge = maker(Edge)
"""Builds an Edge from its source, destination, kind and site (the graph makes one or two per block)."""


_PLANS: dict[type, tuple[Setters, tuple[Any, ...], tuple[str, ...]]] = {}
"""Per record class: its fields' setters, descriptors and names (empty for a class `dataclasses.replace` copies)."""


def replace(record: R, /, **changes: Any) -> R:
    """`dataclasses.replace` for the frozen slots records: a copy with `changes`, made without calling `__init__`
    (the records have no `__post_init__` and no `init=False` field); other classes go to `dataclasses.replace`."""
    cls = type(record)
    plan = _PLANS.get(cls)
    if plan is None:
        setters = field_setters(cls)
        plan = _PLANS[cls] = (setters, field_descriptors(cls), tuple(name for name, _ in setters))
    setters, descriptors, names = plan
    if not setters:
        return dataclasses.replace(record, **changes)  # type: ignore[type-var]
    if COMPILED is not None:
        copy: R = COMPILED.copy(record, descriptors, names, changes)
    else:
        copy = cls.__new__(cls)
        for name, setter in setters:
            setter(copy, changes.pop(name) if name in changes else getattr(record, name))
    if changes:
        raise TypeError(f"{cls.__name__} has no field {', '.join(changes)}")
    return copy


def rebuilt(record: Any) -> tuple[type, tuple[Any, ...]]:
    """How pickle sends a frozen record: its class and its fields, which the class is called with to rebuild it (mypyc
    gives a compiled class a `__setstate__` that sets the fields one by one, which a frozen class refuses)."""
    return type(record), tuple(getattr(record, f.name) for f in dataclasses.fields(record))
