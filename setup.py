"""The build: the Python package, with the C modules of `SPEEDUPS` when a C compiler is at hand (without one, the
build goes on without them and the Python code does their work), and the optional compiled build:
`ASMCFG_MYPYC=1 pip install .` also compiles the modules of `COMPILED` with mypyc.

Without the variable no mypy is needed and every module but those of `SPEEDUPS` is Python. The same
variable gives a developer the compiled modules in place: `ASMCFG_MYPYC=1 python setup.py build_ext --inplace`
(remove them with `git clean -fdX asmcfg build`)."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent
COMPILED = (
    "asmcfg/sources/*.py",
    "asmcfg/dialects/builder.py",
    "asmcfg/dialects/annotations.py",
    "asmcfg/dialects/interleave.py",
    "asmcfg/dialects/hsdis/reader.py",
    "asmcfg/dialects/logcompilation/*.py",
    "asmcfg/model/*.py",
    "asmcfg/isa/*.py",
    "asmcfg/cfg/*.py",
    "asmcfg/analyses/*.py",
    "asmcfg/facts/*.py",
    "asmcfg/render/facts.py",
    "asmcfg/render/json.py",
    "asmcfg/run/pipeline.py",
)
"""The modules the compiled build compiles (globs from the project root, less `INTERPRETED`): the whole-log path's
reading, model, graph, passes, facts and JSON. The CLI, the summary, HTML, SVG, the parallel driver and the
JSON Lines text writer stay interpreted (`render/jsonl.py` writes full records 9% slower compiled than
interpreted)."""
INTERPRETED = (
    "asmcfg/sources/lines.py",
    "asmcfg/model/__init__.py",
    "asmcfg/model/make.py",
    "asmcfg/dialects/logcompilation/__init__.py",
    "asmcfg/dialects/logcompilation/seek.py",
)
"""Modules of `COMPILED`'s globs left interpreted: compiling `sources/lines.py` gains nothing measurable and binds
its `open` at build time (a test replaces it to fake an unreadable file); `model/__init__.py` loads its names on
first use through a module `__getattr__`, which crashes the interpreter once compiled; `model/make.py` generates the
quick `__init__` of the hot records with `exec` and reads their slots through the class, which gains nothing
compiled; `dialects/logcompilation/__init__.py` and `seek.py` define subclasses of the interpreted `Dialect` and
`TextSeek` (which enter the registry when defined), and run once per input."""


def speedup(name: str, source: str) -> Extension:
    """The optional C module `name` built from `source`, stamped with the source's digest (its `SOURCE`, which
    `asmcfg.model.make.compiled` compares with the file beside the module: one built from an older file, left in a
    checkout that moved on, is not used)."""
    digest = hashlib.sha256((ROOT / source).read_bytes()).hexdigest()[:16]
    return Extension(name, [source], extra_compile_args=["-O3"], define_macros=[("ASMCFG_SOURCE", f'"{digest}"')],
                     depends=["asmcfg/dialects/_stamp.h"], optional=True)


SPEEDUPS = (
    speedup("asmcfg.dialects._lines", "asmcfg/dialects/_lines.c"),
    speedup("asmcfg.dialects.hsdis._scan", "asmcfg/dialects/hsdis/_scan.c"),
    speedup("asmcfg.dialects._build", "asmcfg/dialects/_build.c"),
    speedup("asmcfg.dialects.logcompilation._tags", "asmcfg/dialects/logcompilation/_tags.c"),
)
"""C modules every build makes when it can (a compile that fails leaves that module out and the build goes on; the
Python code does its work, slower): the newline count and the heat look's search of a byte range
(`dialects/_lines.c`), which the passes over a large file (`dialects/passes.py`, `dialects/perfasm/saved.py`) use
instead of a copy and `bytes.count`, and the pattern's search, several times slower, and the header index's search
and its newline counts a page at a time (`dialects/index.py`, `dialects/numbering.py`); the hsdis reader's line
scanner (`hsdis/_scan.c`), which reads the instruction and comment lines of a method's code that the reader
otherwise reads one Python call at a time; the maker of a method's Instructions and reader of their comments
(`dialects/_build.c`); the LogCompilation markup reader (`logcompilation/_tags.c`), which reads a line's tags and
attributes without two patterns and a dict comprehension per tag. Each has a Python twin giving the same records
(tests/test_compiled_readers.py, tests/test_compiled_tags.py)."""
BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}
"""setup.py commands that build extensions; pip's metadata steps (`egg_info`, `dist_info`) compile nothing."""


def compiled_build() -> bool:
    """True when `ASMCFG_MYPYC=1` asks for the compiled build (the backend's test, read here without it)."""
    return os.environ.get("ASMCFG_MYPYC", "").strip() == "1"


def compiled_modules() -> list[str]:
    """The files `COMPILED` names and `INTERPRETED` does not, relative to the project root, in a stable order."""
    found = {path.relative_to(ROOT).as_posix() for pattern in COMPILED for path in ROOT.glob(pattern)}
    return sorted(found - set(INTERPRETED))


def ext_modules() -> list[object]:
    """When a command builds extensions: `SPEEDUPS`, and for the compiled build mypyc's extensions too; else
    none."""
    if not BUILDING.intersection(sys.argv[1:]):
        return []
    if not compiled_build():
        return [*SPEEDUPS]
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit("ASMCFG_MYPYC=1 needs mypy (it holds mypyc) in the build environment: pip install mypy")
    os.chdir(ROOT)
    return [*mypycify(compiled_modules(), opt_level="3"), *SPEEDUPS]


if __name__ == "__main__":
    setup(ext_modules=ext_modules())
