"""The optional compiled build's C modules for tests: built here with the system's C compiler when they are not
installed."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
import subprocess
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = {
    "asmcfg.dialects.hsdis._scan": ROOT / "asmcfg" / "dialects" / "hsdis" / "_scan.c",
    "asmcfg.dialects._build": ROOT / "asmcfg" / "dialects" / "_build.c",
    "asmcfg.dialects.logcompilation._tags": ROOT / "asmcfg" / "dialects" / "logcompilation" / "_tags.c",
    "asmcfg.dialects._lines": ROOT / "asmcfg" / "dialects" / "_lines.c",
}
"""The C modules (`C_MODULES` and `SPEEDUPS` of setup.py) and their sources."""


def compiler() -> str:
    """The system's C compiler, or a skip when there is none."""
    found = shutil.which("cc") or shutil.which("gcc")
    if found is None:
        pytest.skip("no C compiler to build the compiled build's C modules")
    return found


def library(name: str, out: Path) -> Path:
    """Where the extension module `name` built into the folder `out` is."""
    return out / f"{name.rpartition('.')[2]}{sysconfig.get_config_var('EXT_SUFFIX')}"


def compile_module(name: str, source: Path, out: Path, flags: Sequence[str] = ("-O2",)) -> Path:
    """The extension module `name` compiled from `source` into the folder `out` with `flags`, or a skip when it
    cannot be."""
    built_at = library(name, out)
    include = sysconfig.get_paths()["include"]
    run = subprocess.run(
        [compiler(), "-shared", "-fPIC", *flags, f"-I{include}", str(source), "-o", str(built_at)],
        capture_output=True, text=True,
    )
    if run.returncode != 0:
        pytest.skip(f"the compiled build's C modules do not build here: {run.stderr.strip()[:200]}")
    return built_at


def load(name: str, path: Path) -> Any:
    """The extension module `name` loaded from the file `path`."""
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def built(name: str, source: Path, out: Path) -> Any:
    """The extension module `name` built from `source` into the folder `out`, or a skip when it cannot be."""
    return load(name, compile_module(name, source, out))
