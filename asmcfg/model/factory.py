"""Fast ways to make records: an Instruction per instruction printed, and copies of records with a few fields
changed (each analysis pass makes one)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

from asmcfg.model.code import Instruction
from asmcfg.model.make import FIELD_DESCRIPTORS, maker

R = TypeVar("R")

new_instruction = maker(Instruction)
"""Builds an Instruction from all eleven fields in order (the readers make one per instruction printed)."""


_Plan = tuple[tuple[str, Callable[[Any, Any], None]], ...]
_PLANS: dict[type, _Plan] = {}


def replace(record: R, /, **changes: Any) -> R:
    """`dataclasses.replace` for the frozen slots records: a copy with `changes`, made without calling `__init__`
    (the records have no `__post_init__` and no `init=False` field); other classes go to `dataclasses.replace`."""
    cls = type(record)
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _plan(cls)
    if not plan:
        return dataclasses.replace(record, **changes)  # type: ignore[type-var]
    copy = cls.__new__(cls)
    for name, setter in plan:
        setter(copy, changes.pop(name) if name in changes else getattr(record, name))
    if changes:
        raise TypeError(f"{cls.__name__} has no field {', '.join(changes)}")
    return copy


def _plan(cls: type) -> _Plan:
    """(field name, slot setter) per field of a record `replace` can copy by its slots; empty for any other class."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return ()
    names = [f.name for f in fields(cls) if f.init]
    slots = [cls.__dict__.get(name) for name in names]
    if len(names) != len(fields(cls)) or not all(isinstance(slot, FIELD_DESCRIPTORS) for slot in slots):
        return ()
    return tuple((name, slot.__set__) for name, slot in zip(names, slots, strict=True))  # type: ignore[union-attr]
