"""Fast ways to make records: an Instruction per instruction printed, and copies of records with a few fields
changed (each analysis pass makes one)."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from asmcfg.model.code import Instruction
from asmcfg.model.make import Setters, field_setters, maker

R = TypeVar("R")

new_instruction = maker(Instruction)
"""Builds an Instruction from all eleven fields in order (the readers make one per instruction printed)."""


_PLANS: dict[type, Setters] = {}


def replace(record: R, /, **changes: Any) -> R:
    """`dataclasses.replace` for the frozen slots records: a copy with `changes`, made without calling `__init__`
    (the records have no `__post_init__` and no `init=False` field); other classes go to `dataclasses.replace`."""
    cls = type(record)
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = field_setters(cls)
    if not plan:
        return dataclasses.replace(record, **changes)  # type: ignore[type-var]
    copy = cls.__new__(cls)
    for name, setter in plan:
        setter(copy, changes.pop(name) if name in changes else getattr(record, name))
    if changes:
        raise TypeError(f"{cls.__name__} has no field {', '.join(changes)}")
    return copy
