"""The Java source files `--source-path` found for the methods of a dump."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class JavaSources:
    """The `.java` files found for a set of classes."""

    files: dict[str, tuple[str, ...]]
    """Relative path (`com/x/Foo.java`) -> its lines, for every file found."""
    missing: tuple[str, ...]
    """Relative paths looked for and not found in any folder."""
