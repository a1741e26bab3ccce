"""A record folder's `record.json` read back: untrusted input (a folder may come from anyone), so a file that is not
JSON of an object, or is nested too deep, reads as nothing, and each reader bounds what it reads."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable

NAME = "record.json"


def read(folder: str, largest: int, *, own_only: bool = False) -> dict[str, object]:
    """The folder's record.json (at most `largest` bytes of it read); empty when missing, unreadable or not an
    object, and with `own_only` when it is not the user's own (a regular file owned by the user running asmcfg,
    writable by no one else, as `asmcfg record` writes it)."""
    try:
        with open(os.path.join(folder, NAME), "rb") as stream:
            if own_only:
                info = os.fstat(stream.fileno())
                if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
                    return {}
            data = json.loads(stream.read(largest))
    except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested too deep
        return {}
    return data if isinstance(data, dict) else {}


def jvm(manifest: dict[str, object], pid: int) -> dict[str, object]:
    """The manifest's entry of JVM `pid` (empty when it has none)."""
    jvms = manifest.get("jvms")
    for entry in jvms if isinstance(jvms, list) else ():
        if isinstance(entry, dict) and entry.get("pid") == pid:
            return entry
    return {}


def absolute(entries: Iterable[str], working: object) -> list[str]:
    """Class or module path entries, the relative ones made absolute against the recorded working folder (when the
    manifest gives one)."""
    if not isinstance(working, str):
        return list(entries)
    return [entry if os.path.isabs(entry) else os.path.join(working, entry) for entry in entries]
