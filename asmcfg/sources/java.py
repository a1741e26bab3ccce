"""Java source files of the methods in a dump, found by package path under `--source-path` folders.

A class name comes from the log, which may be crafted: only a Java binary name (identifiers separated by dots)
names a file, and a file is only read when its real path (symlinks and `..` resolved) is inside the real path of
a `--source-path` folder."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from asmcfg.errors import InputError
from asmcfg.model.java import JavaSources

_MAX_BYTES = 4 << 20
"""A larger `.java` file is not shown: it is not a hand-written class."""


def java_file(method: str) -> str | None:
    """`com.x.Foo$Inner::m` -> `com/x/Foo.java`: the file javac compiles a top-level class from; None when the
    class is not a Java binary name (a hidden class `Foo/0x…`, a name holding a path)."""
    cls = method.split("::", 1)[0]
    parts = cls.split(".")
    if not all(_identifier(part) for part in parts):
        return None
    last = parts[-1]
    nested = last.find("$", 1)
    parts[-1] = last if nested < 0 else last[:nested]
    return "/".join(parts) + ".java"


def _identifier(part: str) -> bool:
    """A Java identifier (letters, digits, `_` and `$`, not starting with a digit): no path separator, NUL or dot."""
    return part.replace("$", "_").isidentifier()


def java_lines(text: str) -> tuple[str, ...]:
    """The lines of a `.java` file as javac numbers them: split at `\\n`, `\\r` and `\\r\\n` only (never at a form
    feed or U+2028, which `str.splitlines` also breaks at); no empty line after a final line break."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return tuple(lines)


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
    roots = [Path(folder).resolve() for folder in dirs]
    files: dict[str, tuple[str, ...]] = {}
    missing: list[str] = []
    wanted = {java_file(m) for m in methods if "::" in m}
    for relative in sorted(name for name in wanted if name is not None):
        text = _read_first(roots, relative)
        if text is None:
            missing.append(relative)
        else:
            files[relative] = java_lines(text)
    return JavaSources(files, tuple(missing))


def _read_first(roots: list[Path], relative: str) -> str | None:
    for root in roots:
        for candidate in (root / relative, root / os.path.basename(relative)):
            text = _read_inside(root, candidate)
            if text is not None:
                return text
    return None


def _read_inside(root: Path, candidate: Path) -> str | None:
    """The text of `candidate` when its real path is a regular file inside `root` (a real path), else None."""
    try:
        real = candidate.resolve()
        if not real.is_relative_to(root) or not real.is_file() or real.stat().st_size > _MAX_BYTES:
            return None
        with open(real, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except (OSError, RuntimeError):  # unreadable, a name too long, a symlink loop (RuntimeError before 3.13)
        return None
