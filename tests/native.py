"""The optional compiled build's C modules for tests: built here with the system's C compiler when they are not
installed."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest


def built(name: str, source: Path, out: Path) -> Any:
    """The extension module `name` built from `source` into the folder `out`, or a skip when it cannot be."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the compiled build's C modules")
    library = out / f"{name.rpartition('.')[2]}{sysconfig.get_config_var('EXT_SUFFIX')}"
    include = sysconfig.get_paths()["include"]
    run = subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", f"-I{include}", str(source), "-o", str(library)],
        capture_output=True, text=True,
    )
    if run.returncode != 0:
        pytest.skip(f"the compiled build's C modules do not build here: {run.stderr.strip()[:200]}")
    loader = importlib.machinery.ExtensionFileLoader(name, str(library))
    spec = importlib.util.spec_from_file_location(name, library, loader=loader)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
