"""Which build runs: the optional mypyc-compiled one (`ASMCFG_MYPYC=1 pip install .`) or pure Python (how the
compiled build's records go between processes: `processes.start.picklable`)."""

from __future__ import annotations

import sys

_PROBE = "asmcfg.dialects.builder"
"""A module every compiled build compiles, so its file tells which build is running."""


def in_use() -> bool:
    """True when the compiled modules are the ones imported (the probe module is an extension module)."""
    __import__(_PROBE)
    path = getattr(sys.modules[_PROBE], "__file__", None) or ""
    return not path.endswith(".py")


def build_name() -> str:
    """`compiled (mypyc)` or `pure Python`, as the benchmarks label their figures."""
    return "compiled (mypyc)" if in_use() else "pure Python"
