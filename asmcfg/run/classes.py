"""Where the report's bytecode comes from: `--classpath`, else the class path a record folder's JVM ran with.

A record folder's class path is taken from its record.json only when that file is the user's own (owned by the
user running asmcfg, writable by no one else), as `asmcfg record` writes it; its relative entries are made absolute
against the recorded working folder. What it names is read as `sources.classpath` reads any class path: class
files by Java binary name, jars by their entries, nothing run."""

from __future__ import annotations

import os
from collections.abc import Iterable

from asmcfg.model import Analysis
from asmcfg.model.bytecode import ClassFiles
from asmcfg.run import recordjson

_LARGEST = 16 << 20
"""A larger record.json is not read."""


def recorded_class_path(folder: str, pid: int) -> list[str]:
    """The class path JVM `pid` of the record folder ran with, entries absolute; empty when record.json does not
    give one or is not the user's own."""
    manifest = recordjson.read(folder, _LARGEST, own_only=True)
    class_path = recordjson.jvm(manifest, pid).get("class_path")
    if not isinstance(class_path, str):
        return []
    return recordjson.absolute([part for part in class_path.split(os.pathsep) if part], manifest.get("working_folder"))


def class_path_of(given: Iterable[str], folder: str | None, pid: int | None) -> tuple[str, ...]:
    """`--classpath`'s entries (each must exist), else those of the record folder's JVM `pid` (not checked: an
    entry gone since the recording gives no class)."""
    from asmcfg.sources.classpath import entries

    chosen = entries(given)
    if chosen or folder is None or pid is None:
        return tuple(chosen)
    return tuple(recorded_class_path(folder, pid))


def classes_for(results: list[Analysis], class_path: tuple[str, ...]) -> ClassFiles | None:
    """The class files of every method the compilations name, None without a class path."""
    if not class_path:
        return None
    from asmcfg.facts.bytecode import methods_named
    from asmcfg.sources.classpath import find_classes

    return find_classes(list(class_path), {name for r in results for name in methods_named(r)})
