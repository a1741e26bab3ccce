"""A compiler task's first line in a LogCompilation log: where one is, and the compile id it names."""

from __future__ import annotations

import mmap

from asmcfg.dialects.logcompilation.logxml import tags, to_int

_TASK = b"\n<task"
_TASK_NEXT = (b" ", b"\t", b"/", b">")
"""What follows `<task` in a task's own tag (a tuple: a bytearray's slice is no set member)."""


def task_id(line: bytes | bytearray) -> int | None:
    """The compile id of a line that holds one opening `<task>` tag and nothing else; None for any other line."""
    found = tags(line.decode("utf-8", "replace"))
    if len(found) != 1 or found[0].closing or found[0].empty:
        return None
    return to_int(found[0].attrs.get("compile_id"))


def task_line(data: bytes | bytearray | mmap.mmap, pos: int, end: int) -> int:
    """Where the first line from `pos` (a line start) that opens with a `<task>` tag starts, before `end`; `end` if
    none does. `data`: a buffer of whole lines, or a mapped file."""
    if opens_task(data, pos):
        return pos
    found = data.find(_TASK, pos, end)
    while found >= 0:
        if opens_task(data, found + 1):
            return found + 1
        found = data.find(_TASK, found + 1, end)
    return end


def opens_task(data: bytes | bytearray | mmap.mmap, at: int) -> bool:
    """True when the line starting at `at` opens with a `<task` tag (`<task_queued>` and others do not)."""
    return data[at : at + 5] == _TASK[1:] and data[at + 5 : at + 6] in _TASK_NEXT
