"""What differs when asmcfg runs from its optional mypyc-compiled build (`ASMCFG_MYPYC=1 pip install .`).

mypyc gives each class it compiles a `__setstate__` that sets the fields one by one with `setattr`, which a frozen
dataclass refuses: a compiled record sent to a worker process could not be unpickled there. `picklable()` has the
worker pipes rebuild such records by calling their class with their fields instead, as `dataclasses.replace` does.
In the pure-Python build no class is compiled and nothing changes."""

from __future__ import annotations

import sys
from dataclasses import fields, is_dataclass
from multiprocessing.reduction import ForkingPickler

from asmcfg.model.make import rebuilt

_PROBE = "asmcfg.dialects.builder"
"""A module every compiled build compiles, so its file tells which build is running."""
_REGISTERED: set[type] = set()


def in_use() -> bool:
    """True when the compiled modules are the ones imported (the probe module is an extension module)."""
    __import__(_PROBE)
    path = getattr(sys.modules[_PROBE], "__file__", None) or ""
    return not path.endswith(".py")


def build_name() -> str:
    """`compiled (mypyc)` or `pure Python`, as the benchmarks label their figures."""
    return "compiled (mypyc)" if in_use() else "pure Python"


def picklable() -> None:
    """Have the worker pipes pickle every compiled frozen record of the asmcfg modules imported so far."""
    for name, module in list(sys.modules.items()):
        if name == "asmcfg" or name.startswith("asmcfg."):
            for value in list(vars(module).values()):
                if _compiled_frozen(value) and value not in _REGISTERED:
                    ForkingPickler.register(value, rebuilt)
                    _REGISTERED.add(value)


def _compiled_frozen(value: object) -> bool:
    """A frozen dataclass compiled by mypyc (it lists its fields in `__mypyc_attrs__`) whose fields all go
    through `__init__`."""
    if not isinstance(value, type) or not is_dataclass(value) or not hasattr(value, "__mypyc_attrs__"):
        return False
    params = getattr(value, "__dataclass_params__", None)
    return bool(getattr(params, "frozen", False)) and all(f.init for f in fields(value))

