"""asmcfg's build backend: setuptools' own, plus mypy as a build requirement when `ASMCFG_MYPYC=1` asks for the
optional compiled build (`setup.py` then compiles the modules it lists with mypyc).

Without the variable every hook is setuptools' and no mypy is needed: the package is Python, with the one small C
module `setup.py` builds where a C compiler is at hand (its `SPEEDUPS`; none is needed)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (the hooks this module does not change)

VARIABLE = "ASMCFG_MYPYC"
"""The environment variable that asks for the compiled build; `1` means yes."""
MYPYC_REQUIRES = ("mypy>=1.10",)
"""What the compiled build needs besides setuptools: mypyc ships inside mypy."""


def compiled_build(environ: Mapping[str, str] = os.environ) -> bool:
    """True when the environment asks for the mypyc-compiled build."""
    return environ.get(VARIABLE, "").strip() == "1"


def extra_requires(environ: Mapping[str, str] = os.environ) -> list[str]:
    """Build requirements on top of setuptools': mypy for the compiled build, nothing otherwise."""
    return list(MYPYC_REQUIRES) if compiled_build(environ) else []


def get_requires_for_build_wheel(config_settings: dict[str, str | list[str]] | None = None) -> list[str]:
    """setuptools' requirements for a wheel, plus mypy when the compiled build is asked for."""
    return [*_setuptools.get_requires_for_build_wheel(config_settings), *extra_requires()]


def get_requires_for_build_editable(config_settings: dict[str, str | list[str]] | None = None) -> list[str]:
    """setuptools' requirements for an editable install, plus mypy when the compiled build is asked for."""
    return [*_setuptools.get_requires_for_build_editable(config_settings), *extra_requires()]
