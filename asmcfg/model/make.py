"""A fast constructor for any frozen slots record, for the records made by the hundred thousand; it imports no
record module, so the fast `--list` can use it without loading them."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import fields
from types import GetSetDescriptorType, MemberDescriptorType
from typing import Any, TypeVar

R = TypeVar("R")
FIELD_DESCRIPTORS = (MemberDescriptorType, GetSetDescriptorType)
"""What holds a record's field in its class: a slot, or the attribute of a class mypyc compiled (the optional
compiled build), whose `__set__` also writes past the frozen dataclass's `__setattr__`."""


Setters = tuple[tuple[str, Callable[[Any, Any], None]], ...]
"""(field name, the setter of the field's slot) per field of a record, in order."""


def field_descriptors(cls: type) -> tuple[Any, ...]:
    """The descriptors that hold the fields of the frozen slots record `cls`, in order; empty for a class whose
    instances need more than their fields set (not a dataclass, a `__post_init__`, an `init=False` field, or a
    field not held in a slot)."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return ()
    found = fields(cls)
    slots = tuple(cls.__dict__.get(f.name) for f in found)
    if not all(f.init for f in found) or not all(isinstance(slot, FIELD_DESCRIPTORS) for slot in slots):
        return ()
    return slots


def field_setters(cls: type) -> Setters:
    """The setters that fill every field of the frozen slots record `cls` past its frozen `__setattr__`; empty
    where `field_descriptors` is."""
    slots = field_descriptors(cls)
    return tuple((f.name, slot.__set__) for f, slot in zip(fields(cls), slots, strict=True)) if slots else ()


def compiled(module: str, attribute: str | None = None) -> Any:
    """The C module `module` of the optional compiled build, or its `attribute`; None in the pure-Python build."""
    try:
        found = importlib.import_module(module)
    except ImportError:
        return None
    return found if attribute is None else getattr(found, attribute)


COMPILED = compiled("asmcfg.model._make")
"""`_make` (`maker(cls, descriptors)`, `copy(record, descriptors, names, changes)`), or None: then records are
made by generated Python functions and copied field by field."""


def maker(cls: type[R]) -> Callable[..., R]:
    """A constructor of the frozen slots record `cls` that takes every field positionally, in order, and sets
    each slot directly instead of through the frozen dataclass's `object.__setattr__`: the result equals
    `cls(*fields)`. It is generated as the dataclass generates its `__init__`, with one statement per field (in
    the compiled build, it is `_make.maker`, which does the same in C)."""
    setters = field_setters(cls)
    if not setters:
        return cls
    if COMPILED is not None:
        made: Callable[..., R] = COMPILED.maker(cls, field_descriptors(cls))
        return made
    names = [name for name, _ in setters]
    cells = ", ".join(f"_set_{name}" for name in names)
    body = "".join(f"        _set_{name}(_record, {name})\n" for name in names)
    scope: dict[str, Any] = {}
    exec(  # the setters are the closure's cells, the quickest names for the function to reach
        f"def closure(_new, _cls, {cells}):\n    def make({', '.join(names)}):\n        _record = _new(_cls)\n"
        f"{body}        return _record\n    return make\n",
        scope,
    )
    make: Callable[..., R] = scope["closure"](cls.__new__, cls, *(setter for _, setter in setters))
    make.__doc__ = f"`{cls.__name__}({', '.join(names)})`, every field given."
    return make
