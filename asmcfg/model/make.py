"""A fast constructor for any frozen slots record, for the records made by the hundred thousand; it imports no
record module, so the fast `--list` can use it without loading them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from types import GetSetDescriptorType, MemberDescriptorType
from typing import Any, TypeVar

R = TypeVar("R")
FIELD_DESCRIPTORS = (MemberDescriptorType, GetSetDescriptorType)
"""What holds a record's field in its class: a slot, or the attribute of a class mypyc compiled (the optional
compiled build), whose `__set__` also writes past the frozen dataclass's `__setattr__`."""


def maker(cls: type[R]) -> Callable[..., R]:
    """A constructor of the frozen slots record `cls` that takes every field positionally, in order, and sets
    each slot directly instead of through the frozen dataclass's `object.__setattr__`: the result equals
    `cls(*fields)`. It is generated as the dataclass generates its `__init__`, with one statement per field."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    slots = [cls.__dict__.get(name) for name in names]
    if hasattr(cls, "__post_init__") or not all(isinstance(slot, FIELD_DESCRIPTORS) for slot in slots):
        return cls
    setters = ", ".join(f"_set_{name}" for name in names)
    body = "".join(f"        _set_{name}(_record, {name})\n" for name in names)
    scope: dict[str, Any] = {}
    exec(  # the setters are the closure's cells, the quickest names for the function to reach
        f"def closure(_new, _cls, {setters}):\n    def make({', '.join(names)}):\n        _record = _new(_cls)\n"
        f"{body}        return _record\n    return make\n",
        scope,
    )
    make: Callable[..., R] = scope["closure"](cls.__new__, cls, *(slot.__set__ for slot in slots))  # type: ignore[union-attr]
    make.__doc__ = f"`{cls.__name__}({', '.join(names)})`, every field given."
    return make
