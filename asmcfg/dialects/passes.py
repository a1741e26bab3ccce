"""Passes over a mapped plain file: its chunks, the number of the line at an offset (the counts kept in the cache
for the next run of the same file), the lines that hold a string, how often it occurs. A pass over a large file is
shared with a forked process where one can be forked."""

from __future__ import annotations

import functools
import mmap
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

from asmcfg.dialects.scan import FORK, Forked
from asmcfg.sources.split import named_jdk

COUNT_BYTES = 16 << 20
"""Bytes whose newlines are counted at a time."""
SHARED_BYTES = 64 << 20
"""Bytes from which a pass over a file is shared with a forked process (forking costs more than it saves on less)."""
T = TypeVar("T")
_RELEASE: int | None = getattr(mmap, "MADV_DONTNEED", None)
"""How counted pages are let go (the file stays cached); None where mmap cannot advise."""
_VM_VERSION = b"# VM version: JDK "
REACH = 64
"""Bytes of the next chunk read with a chunk: a `# VM version: JDK N` line that starts in it may reach into them."""
_CACHED = "lines"
"""What the cache calls the newline counts it keeps of a file."""


def chunks(view: mmap.mmap, end: int | None = None, overlap: int = 0) -> Iterator[tuple[int, bytes]]:
    """(offset, bytes) of successive COUNT_BYTES of the mapped file up to `end`, each with `overlap` bytes of the
    next; each chunk's pages are let go once copied, so the process never holds the file."""
    end = len(view) if end is None else end
    for start in range(0, end, COUNT_BYTES):
        stop = min(start + COUNT_BYTES, end)
        data = view[start : min(stop + overlap, end)]
        if _RELEASE is not None:
            view.madvise(_RELEASE, start, stop - start)
        yield start, data


def line_of(view: mmap.mmap, offset: int, path: str | None = None) -> int:
    """The 1-based number of the line that starts at byte `offset` (of the file at `path`, when known: see
    `before`)."""
    return before(view, offset, path)[0]


def before(view: mmap.mmap, offset: int, path: str | None = None) -> tuple[int, int | None]:
    """The number of the line that starts at byte `offset`, and the JDK the last `# VM version: JDK N` line before
    it names (as `split.method_pieces` hints a piece). The whole COUNT_BYTES chunks before it are counted once per
    file at `path` and kept in the cache (`sources.cache`); those not kept yet are counted now, with a forked
    process on a large file."""
    whole = offset // COUNT_BYTES
    counts = _kept(path)[:whole]
    if len(counts) < whole:
        counts += _counted(view, len(counts), whole)[0]
        if path is not None:
            from asmcfg.sources import cache

            cache.store(_CACHED, path, {"chunk": COUNT_BYTES, "counts": counts})
    counts.append(_chunk(view, whole * COUNT_BYTES, offset)[0])
    named = [jdk for _, jdk in counts if jdk is not None]
    return 1 + sum(lines for lines, _ in counts), named[-1] if named else None


Counts = list[tuple[int, int | None]]
"""Per chunk: its newlines, and the JDK the last `# VM version` line that starts in it names."""


def _kept(path: str | None) -> Counts:
    """The counts the cache keeps for the file at `path`, as many chunks as it has; none when it keeps none."""
    if path is None:
        return []
    from asmcfg.sources import cache

    kept = cache.load(_CACHED, path)
    if not isinstance(kept, dict) or kept.get("chunk") != COUNT_BYTES or not isinstance(kept.get("counts"), list):
        return []
    counts: Counts = []
    for item in kept["counts"]:
        if not (isinstance(item, list) and len(item) == 2 and type(item[0]) is int
                and (item[1] is None or type(item[1]) is int)):
            return []
        counts.append((item[0], item[1]))
    return counts


Probe = Callable[[mmap.mmap, int, bytes, int], bool]
"""A look for something in one chunk, asked alongside its count: (the mapped file, the chunk's offset, its bytes
with REACH bytes of the next, how many are its own) -> found."""


def survey(view: mmap.mmap, path: str | None, probe: Probe, counting: bool = True) -> bool:
    """True when `probe` finds what it looks for in a chunk of the mapped file; shared with a forked process on a
    large file. When `counting`, the same pass counts every chunk's lines and keeps the counts in the cache (for
    `before`, as if the whole file had been counted there), so a run that will number lines from them reads the
    file once."""
    counts, found = _counted(view, 0, -(-len(view) // COUNT_BYTES), probe, counting)
    if path is not None and counting:
        from asmcfg.sources import cache

        cache.store(_CACHED, path, {"chunk": COUNT_BYTES, "counts": counts})
    return found


def _nothing(view: mmap.mmap, start: int, data: bytes, limit: int) -> bool:
    return False


def _counted(
    view: mmap.mmap, first: int, last: int, probe: Probe = _nothing, counting: bool = True
) -> tuple[Counts, bool]:
    """The counts of chunks first..last-1 (each (0, None) unless `counting`), and whether `probe` found anything in
    them; the later half made by a forked process when they are many."""
    middle = (first + last) // 2 if (last - first) * COUNT_BYTES >= SHARED_BYTES else first
    work = functools.partial(_counted_here, view, middle, last, probe, counting)
    later = _forked(work) if _shared(middle > first) else None
    counts, found = _counted_here(view, first, middle if later is not None else last, probe, counting)
    if later is not None:
        rest, elsewhere = later.result() or work()
        counts, found = counts + rest, found or elsewhere
    return counts, found


def _counted_here(
    view: mmap.mmap, first: int, last: int, probe: Probe = _nothing, counting: bool = True
) -> tuple[Counts, bool]:
    counts, found = [], False
    for n in range(first, last):
        count, probed = _chunk(view, n * COUNT_BYTES, min((n + 1) * COUNT_BYTES, len(view)), probe, counting)
        counts.append(count)
        found = found or probed
    return counts, found


def _chunk(
    view: mmap.mmap, start: int, stop: int, probe: Probe = _nothing, counting: bool = True
) -> tuple[tuple[int, int | None], bool]:
    """The newlines of bytes [start, stop) (start: a COUNT_BYTES boundary) and the JDK the last `# VM version`
    line that starts there names ((0, None) unless `counting`), and whether `probe` finds anything there; the
    chunk's pages are let go once read."""
    data = view[start : min(stop + REACH, len(view))]
    if _RELEASE is not None and stop > start:
        view.madvise(_RELEASE, start, stop - start)
    found = probe(view, start, data, stop - start)
    if not counting:
        return (0, None), found
    jdk = named_jdk(data, stop - start) if _VM_VERSION in data else None
    return (data.count(b"\n", 0, stop - start), jdk), found


def _shared(worth: bool) -> bool:
    """True when a pass worth sharing may be shared with a forked process: not where none can be forked, nor while
    other threads run (as in `serve`: a forked copy of a threaded process may wait forever on a lock one held)."""
    return worth and FORK and threading.active_count() == 1


def _forked(function: Callable[[], T]) -> Forked[T] | None:
    try:
        return Forked(function, {})
    except OSError:  # no process can be forked now: the pass is made here
        return None


def count(view: mmap.mmap, needle: bytes) -> int:
    """How many times `needle` occurs in the mapped file."""
    total = 0
    for _, data in chunks(view, overlap=len(needle) - 1):
        at = data.find(needle)
        while 0 <= at < COUNT_BYTES:
            total += 1
            at = data.find(needle, at + 1)
    return total


def lines_with(view: mmap.mmap, needle: bytes) -> list[tuple[int, int]]:
    """(start, 1-based number) of each line of the mapped file holding `needle` (which holds no newline), in one
    pass that counts the lines as it goes (shared with a forked process on a large file)."""
    middle = len(view) // 2 // COUNT_BYTES * COUNT_BYTES
    worth = len(view) >= SHARED_BYTES and middle > 0
    later = _forked(functools.partial(_lines_with, view, needle, middle, len(view))) if _shared(worth) else None
    found, lines = _lines_with(view, needle, 0, middle if later is not None else len(view))
    if later is not None:
        rest, _ = later.result() or _lines_with(view, needle, middle, len(view))
        for start, number in rest:
            if not found or start != found[-1][0]:  # a line across the middle is found by both halves
                found.append((start, lines + number))
    return found


def _lines_with(view: mmap.mmap, needle: bytes, begin: int, end: int) -> tuple[list[tuple[int, int]], int]:
    """(start, number counted from the line at `begin`) of each line where `needle` occurs at an offset in
    [begin, end) (begin: 0 or a COUNT_BYTES boundary), and the newlines in [begin, end)."""
    found: list[tuple[int, int]] = []
    number, line_start = 1, view.rfind(b"\n", 0, begin) + 1
    for base in range(begin, end, COUNT_BYTES):
        limit = min(base + COUNT_BYTES, end) - base
        data = view[base : base + limit + len(needle) - 1]
        if _RELEASE is not None:
            view.madvise(_RELEASE, base, limit)
        done = 0
        at = data.find(needle)
        while 0 <= at < limit:
            newlines = data.count(b"\n", done, at)
            if newlines:
                number += newlines
                line_start = base + data.rfind(b"\n", done, at) + 1
            if not found or found[-1][0] != line_start:
                found.append((line_start, number))
            done = at
            at = data.find(needle, at + 1)
        newlines = data.count(b"\n", done, limit)
        if newlines:
            number += newlines
            line_start = base + data.rfind(b"\n", done, limit) + 1
    return found, number - 1
