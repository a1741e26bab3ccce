"""The records of one compile id of a plain LogCompilation log, found by a search for it rather than a read of the
whole log.

Opening one compilation through the index needs only its own trap records and inlining decisions. In a log as
HotSpot writes it, each fired trap is one `<uncommon_trap thread=… compile_id='N' …>` element in the `<tty>`, and
each compiler task one `<task compile_id='N' …>` element in a `<compilation_log>` after it; both hold the text
`compile_id='N'` on their first line, at its start. The lines holding it (`passes.lines_with`, one pass that also
numbers them) are read as `tasks.index_log` reads them, and the result is that index's `part` for N. A log laid out
otherwise (indented, as a JMH saveLog; a fired trap after a task line; a task line that is not one `<task>` tag
alone) is left to the whole index.
"""

from __future__ import annotations

import mmap

from asmcfg.dialects.logcompilation.inline import InlineCollector, LogRecords, collect
from asmcfg.dialects.logcompilation.logxml import TrapCollector
from asmcfg.dialects.logcompilation.tasklines import opens_task, task_id, task_line
from asmcfg.dialects.logcompilation.tasks import LogIndex, Span
from asmcfg.dialects.passes import line_end

_TASK_END = b"</task>"
_TRAP = b"<uncommon_trap"
_TRAP_TAGS = frozenset(_TRAP + bytes([c]) for c in b" \t/>")
TRAP_REACH = 64 << 10
"""Bytes after a fired trap's first line its closing tag is looked for (HotSpot's take a few hundred)."""
_TRAP_END = b"</uncommon_trap>"
_BLANKS = frozenset((b" ", b"\t"))


def needle(compile_id: int) -> bytes:
    """The text every line that names `compile_id` holds."""
    return b"compile_id='%d'" % compile_id


def index_one(view: mmap.mmap, path: str, compile_id: int, lines: list[tuple[int, int]]) -> LogIndex | None:
    """The index of `compile_id`'s records (`tasks.index_log(path).part([compile_id])` reads the same), from
    `lines`, the (start, number) of every line of the mapped log holding `needle(compile_id)`, in file order; None
    when the log is not laid out as HotSpot writes it."""
    traps, inlines = TrapCollector(), InlineCollector()
    spans: list[Span] = []
    last_fired = covered = -1
    for start, number in lines:
        if start < covered:  # inside a task or a fired trap read already
            continue
        end = line_end(view, start)
        if view[start : start + 1] in _BLANKS:  # an indented log (a JMH saveLog): its tasks are read as text
            return None
        if opens_task(view, start):
            if task_id(view[start:end]) != compile_id:
                return None
            covered = _task_end(view, end + 1)
            spans.append(Span(start, covered, number))
        elif view[start : start + len(_TRAP) + 1] in _TRAP_TAGS:
            covered = _trap_end(view, start, end)
            if covered < 0:
                return None
            collect((traps, inlines), view[start:covered], number - 1)
            last_fired = start
    if last_fired >= 0 and task_line(view, 0, last_fired) < last_fired:  # a fired trap after a task line
        return None
    outside = LogRecords({compile_id: traps.traps[compile_id]} if compile_id in traps.traps else {}, {}, {})
    return LogIndex(path, outside, {compile_id: spans} if spans else {})


def _trap_end(view: mmap.mmap, start: int, end: int) -> int:
    """Where the `<uncommon_trap>` element whose line starts at `start` (and ends at `end`) ends, past its last
    line's newline; -1 when its closing tag is not within TRAP_REACH bytes."""
    if view[start:end].rstrip().endswith(b"/>"):
        return end + 1
    close = view.find(_TRAP_END, start, end + TRAP_REACH)
    return -1 if close < 0 else line_end(view, close) + 1


def _task_end(view: mmap.mmap, after: int) -> int:
    """Where the task whose line ends before offset `after` ends: past its `</task>` line, or where the next task
    opens first (as `tasks` ends it), or the end of the file."""
    close = view.find(_TASK_END, after)
    limit = len(view) if close < 0 else close
    following = task_line(view, after, limit)
    if following < limit:
        return following
    return len(view) if close < 0 else line_end(view, close) + 1
