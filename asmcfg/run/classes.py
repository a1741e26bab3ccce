"""Where the report's bytecode comes from: `--classpath`, else the class path a record folder's JVM ran with.

A record folder's class path is taken from its record.json only when that file is the user's own (owned by the
user running asmcfg, writable by no one else), as `asmcfg record` writes it; its relative entries are made absolute
against the recorded working folder. What it names is read as `sources.classpath` reads any class path: class
files by Java binary name, jars by their entries, nothing run."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable

from asmcfg.model import Analysis
from asmcfg.model.bytecode import ClassFiles

_LARGEST = 16 << 20
"""A larger record.json is not read."""


def recorded_class_path(folder: str, pid: int) -> list[str]:
    """The class path JVM `pid` of the record folder ran with, entries absolute; empty when record.json does not
    give one or is not the user's own."""
    path = os.path.join(folder, "record.json")
    try:
        with open(path, "rb") as stream:
            info = os.fstat(stream.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
                return []
            data = json.loads(stream.read(_LARGEST))
    except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested too deep
        return []
    if not isinstance(data, dict):
        return []
    working = data.get("working_folder")
    jvms = data.get("jvms")
    for entry in jvms if isinstance(jvms, list) else ():
        if isinstance(entry, dict) and entry.get("pid") == pid and isinstance(entry.get("class_path"), str):
            return [part if os.path.isabs(part) or not isinstance(working, str) else os.path.join(working, part)
                    for part in entry["class_path"].split(os.pathsep) if part]
    return []


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
