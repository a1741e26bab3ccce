"""How a record is made: by calling its class, and copied with `dataclasses.replace`, the one way everywhere.

`quick` gives the records made by the hundred thousand (an Instruction per instruction printed, a Block per basic
block, an Edge per edge, the notes of a comment) an `__init__` that fills each slot directly instead of through the
frozen dataclass's `object.__setattr__`; the class is called as before, with the same fields, defaults and
keywords, and makes an equal record. Measured with timeit, interleaved, Python 3.11: an Instruction of eleven
fields takes 0.65 times as long as through the dataclass's own `__init__` (the 336 MB LogCompilation log's
Python reader makes about 2.7 million). Copies go through `dataclasses.replace`, twice the time of a copy slot by
slot, but the passes make about 20 per method: under 1 % of `--jsonl --facts` of that log. This module imports no
record module, so the fast `--list` can use it without loading them."""

from __future__ import annotations

import dataclasses
import functools
import importlib
from pathlib import Path
from types import GetSetDescriptorType, MemberDescriptorType
from typing import Any, TypeVar

R = TypeVar("R")


def compiled(module: str, attribute: str | None = None) -> Any:
    """The optional C module `module` (setup.py's `SPEEDUPS`), or its `attribute`; None where it was not built, or
    was built from another version of its source than the one beside it (a checkout that moved on since its last
    build: its Python twin does the work, rightly)."""
    found = _current(module)
    return found if found is None or attribute is None else getattr(found, attribute, None)


@functools.cache
def _current(module: str) -> Any:
    """`module` imported, unless it cannot be or its `SOURCE` is not the digest of the C file beside it (an installed
    module has no file beside it: nothing to compare)."""
    try:
        found = importlib.import_module(module)
    except ImportError:
        return None
    where = getattr(found, "__file__", None)
    source = Path(where).with_name(module.rpartition(".")[2] + ".c") if where else None
    if source is not None and source.is_file():
        import hashlib

        digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
        if getattr(found, "SOURCE", None) != digest:
            return None
    return found


def field_descriptors(cls: type) -> tuple[Any, ...]:
    """The slot descriptors that hold the fields of the frozen slots record `cls`, in order; empty for a class whose
    instances need more than their fields set (not a dataclass, a `__post_init__`, an `init=False` field, a default
    factory, or a field held neither in a slot nor, in the optional mypyc build, in a compiled class's attribute).
    `dialects/_build.c` fills an Instruction's fields through them."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return ()
    found = dataclasses.fields(cls)
    if not all(f.init and f.default_factory is dataclasses.MISSING for f in found):
        return ()
    slots = tuple(cls.__dict__.get(f.name) for f in found)
    if not all(isinstance(slot, (MemberDescriptorType, GetSetDescriptorType)) for slot in slots):
        return ()
    return slots


def quick(cls: type[R]) -> type[R]:
    """`cls`, a frozen slots dataclass, with an `__init__` that sets each slot through its descriptor: the same
    parameters, defaults and record as the dataclass's, without a call of `object.__setattr__` per field. A class
    `field_descriptors` refuses is left as it is."""
    slots = field_descriptors(cls)
    if not slots or not isinstance(slots[0], MemberDescriptorType):  # a class mypyc compiled keeps its own
        return cls
    found = dataclasses.fields(cls)  # type: ignore[arg-type]  # a dataclass: field_descriptors checked
    params = [f.name if f.default is dataclasses.MISSING else f"{f.name}=_default_{f.name}" for f in found]
    defaults = {f"_default_{f.name}": f.default for f in found if f.default is not dataclasses.MISSING}
    cells = [f"_set_{f.name}" for f in found]
    body = "".join(f"        _set_{f.name}(self, {f.name})\n" for f in found)
    scope: dict[str, Any] = {}
    exec(  # the setters and defaults are the closure's cells, the quickest names for the function to reach
        f"def closure({', '.join([*cells, *defaults])}):\n    def __init__(self, {', '.join(params)}):\n"
        f"{body}    return __init__\n",
        scope,
    )
    init = scope["closure"](*(slot.__set__ for slot in slots), *defaults.values())
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    type.__setattr__(cls, "__init__", init)
    return cls


def rebuilt(record: Any) -> tuple[type, tuple[Any, ...]]:
    """How pickle sends a frozen record of the optional mypyc build: its class and its fields, which the class is
    called with to rebuild it. mypyc gives a compiled class a `__setstate__` that sets the fields one by one, which a
    frozen class refuses; a Python record (the default build) pickles as it is."""
    return type(record), tuple(getattr(record, f.name) for f in dataclasses.fields(record))
