"""Java source files of the methods in a dump, found by package path under `--source-path` folders."""

from __future__ import annotations

import os
from collections.abc import Iterable

from asmcfg.errors import InputError
from asmcfg.model.java import JavaSources

_MAX_BYTES = 4 << 20
"""A larger `.java` file is not shown: it is not a hand-written class."""


def java_file(method: str) -> str:
    """`com.x.Foo$Inner::m` -> `com/x/Foo.java`: the file javac compiles a top-level class from."""
    cls = method.split("::", 1)[0].split("$", 1)[0].replace("/", ".")
    return cls.replace(".", "/") + ".java"


def folders(values: Iterable[str]) -> list[str]:
    """The `--source-path` values, each split at `os.pathsep`, empty parts dropped."""
    found = [part for value in values for part in value.split(os.pathsep) if part]
    for folder in found:
        if not os.path.isdir(folder):
            raise InputError("no such folder (--source-path takes folders of .java files)", folder)
    return found


def find_sources(dirs: list[str], methods: Iterable[str]) -> JavaSources:
    """Read the `.java` file of each method's class from the first folder that holds it (the package path under
    the folder, or the file directly in it)."""
    files: dict[str, tuple[str, ...]] = {}
    missing: list[str] = []
    for relative in sorted({java_file(m) for m in methods if "::" in m}):
        text = _read_first(dirs, relative)
        if text is None:
            missing.append(relative)
        else:
            files[relative] = tuple(text.splitlines())
    return JavaSources(files, tuple(missing))


def _read_first(dirs: list[str], relative: str) -> str | None:
    for folder in dirs:
        for candidate in (os.path.join(folder, relative), os.path.join(folder, os.path.basename(relative))):
            if os.path.isfile(candidate) and os.path.getsize(candidate) <= _MAX_BYTES:
                with open(candidate, encoding="utf-8", errors="replace") as handle:
                    return handle.read()
    return None
