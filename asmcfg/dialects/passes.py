"""Passes over a mapped plain file, a chunk at a time, each chunk read once for a few looks: its newlines (the
number of the line at an offset; the counts kept in the cache for the next run of the same file), how often a
string occurs, the lines that hold one, and any look of the caller's. The looks read the mapped file itself, not a
copy of the chunk; newlines are counted by the optional C module `_lines` where it is built (`newline_count`). A
pass over a large file is shared with a forked process where one can be forked."""

from __future__ import annotations

import functools
import mmap
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from asmcfg.model.make import compiled
from asmcfg.processes.child import Child
from asmcfg.processes.start import forkable
from asmcfg.sources.split import named_jdk

COUNT_BYTES = 16 << 20
"""Bytes read at a time: the chunks whose newlines are counted (and kept)."""
SHARED_BYTES = 64 << 20
"""Bytes from which a pass over a file is shared with a forked process (forking costs more than it saves on less)."""
T = TypeVar("T")
_RELEASE: int | None = getattr(mmap, "MADV_DONTNEED", None)
"""How read pages are let go (the file stays cached); None where mmap cannot advise."""
_VM_VERSION = b"# VM version: JDK "
_HASHES = 4096
"""`#`s of a chunk looked at one by one for a `# VM version` line (PrintAssembly text holds about 1,000 per 16 MB)."""
_REACH = 64
"""Bytes of the next chunk read with a chunk: a `# VM version: JDK N` line, or a string looked for, that starts in
the chunk may reach into them."""
_CACHED = "lines"
"""What the cache calls the newline counts it keeps of a file."""
_COUNT: Callable[[Any, int, int], int] | None = compiled("asmcfg.dialects._lines", "newlines")
"""`newlines(buffer, start, stop)` of the C module `_lines`, built by `pip install .` when a C compiler is at hand;
None without it."""

Look = Callable[[mmap.mmap, int, int], Any]
"""A look at one chunk: (the mapped file, the chunk's offset, how many bytes from there are the chunk's own) -> what
it finds there. A look may read _REACH bytes past the chunk."""
Found = tuple[Any, ...]
"""What each look found in one chunk, in the order of the looks."""
Count = tuple[int, int | None]
"""A chunk's newlines, and the JDK the last `# VM version` line that starts in it names (`newlines`)."""
Held = tuple[list[tuple[int | None, int]], int | None]
"""A chunk's lines holding a string (`holding`): (where each starts, None when before the chunk; the chunk's
newlines before it), and where the chunk's last line starts (None when it has no newline)."""


def survey(view: mmap.mmap, looks: Sequence[Look], first: int = 0, last: int | None = None) -> list[Found]:
    """What each of `looks` finds in each chunk `first`..`last`-1 (to the end by default), in one read of each; the
    later half looked at by a forked process when they are many."""
    last = -(-len(view) // COUNT_BYTES) if last is None else last
    middle = (first + last) // 2 if (last - first) * COUNT_BYTES >= SHARED_BYTES else first
    work = functools.partial(_looked, view, looks, middle, last)
    later = _forked(work) if middle > first and forkable() else None
    found = _looked(view, looks, first, middle if later is not None else last)
    if later is not None:
        try:
            found += later.result() or work()
        finally:
            later.cancel()
    return found


def counted(view: mmap.mmap, path: str | None, looks: Sequence[Look]) -> tuple[list[Count], list[Found]]:
    """The newline counts of every chunk of the file at `path`, and what `looks` find in each, in one pass (none
    when the cache keeps the counts and no look is asked). The counts are kept in the cache, as if `before` had
    counted the whole file, so a later run that numbers lines from them reads none."""
    counts = _kept(path)
    if len(counts) == -(-len(view) // COUNT_BYTES):
        return counts, survey(view, looks) if looks else [() for _ in counts]
    found = survey(view, (newlines, *looks))
    counts = [chunk[0] for chunk in found]
    _keep(path, counts)
    return counts, [chunk[1:] for chunk in found]


def _looked(view: mmap.mmap, looks: Sequence[Look], first: int, last: int) -> list[Found]:
    return [_chunk(view, n * COUNT_BYTES, min((n + 1) * COUNT_BYTES, len(view)), looks) for n in range(first, last)]


def _chunk(view: mmap.mmap, start: int, stop: int, looks: Sequence[Look]) -> Found:
    """What `looks` find in bytes [start, stop) (start: a COUNT_BYTES boundary); their pages are let go once read."""
    found = tuple(look(view, start, stop - start) for look in looks)
    if _RELEASE is not None and stop > start:
        view.madvise(_RELEASE, start, stop - start)
    return found


def _reach(view: mmap.mmap, start: int, limit: int) -> int:
    """Where a look at the chunk of `limit` bytes from `start` may read to: _REACH bytes past it, within the file."""
    return min(start + limit + _REACH, len(view))


def newline_count(view: mmap.mmap, start: int, stop: int) -> int:
    """The newlines in bytes [start, stop) of the mapped file: counted where they are by the C module `_lines`
    when it is built (several times faster), else in a copy by `bytes.count`."""
    return _COUNT(view, start, stop) if _COUNT is not None else view[start:stop].count(b"\n")


def newlines(view: mmap.mmap, start: int, limit: int) -> Count:
    """The look that counts a chunk's newlines and names the JDK its last `# VM version: JDK N` line does."""
    end = _reach(view, start, limit)
    named = named_jdk(view[start:end], limit) if _names_jdk(view, start, end) else None
    return newline_count(view, start, start + limit), named


def _names_jdk(view: mmap.mmap, start: int, end: int) -> bool:
    """True when bytes [start, end) hold a `# VM version: JDK ` line: their `#`s are looked at one by one (a
    `find` of one byte is several times faster than one of the whole string), unless there are more than _HASHES."""
    at = view.find(b"#", start, end)
    for _ in range(_HASHES):
        if at < 0:
            return False
        if at + len(_VM_VERSION) <= end and view[at : at + len(_VM_VERSION)] == _VM_VERSION:
            return True
        at = view.find(b"#", at + 1, end)
    return view.find(_VM_VERSION, at, end) >= 0


def occurrences(needle: bytes) -> Look:
    """The look that counts the places `needle` (of at most _REACH bytes) starts in a chunk."""
    return functools.partial(_occurrences, needle)


def _occurrences(needle: bytes, view: mmap.mmap, start: int, limit: int) -> int:
    stop, end = start + limit, _reach(view, start, limit)
    total, at = 0, view.find(needle, start, end)
    while 0 <= at < stop:
        total += 1
        at = view.find(needle, at + 1, end)
    return total


def holding(needle: bytes) -> Look:
    """The look that finds the lines of a chunk that hold `needle` (of at most _REACH bytes, no newline in it), as
    `Held`; `numbered` gives their numbers."""
    return functools.partial(_holding, needle)


def _holding(needle: bytes, view: mmap.mmap, start: int, limit: int) -> Held:
    found: list[tuple[int | None, int]] = []
    line: int | None = None
    stop, end = start + limit, _reach(view, start, limit)
    done, seen = start, 0
    at = view.find(needle, start, end)
    while 0 <= at < stop:
        more = newline_count(view, done, at)
        if more:
            seen += more
            line = view.rfind(b"\n", done, at) + 1
        if not found or found[-1][0] != line:
            found.append((line, seen))
        done = at
        at = view.find(needle, at + 1, end)
    last = view.rfind(b"\n", done, stop)
    return found, last + 1 if last >= 0 else line


def numbered(counts: Sequence[Count], held: Sequence[Held]) -> list[tuple[int, int]]:
    """(start, 1-based number) of each line that `holding` found in the chunks, from the chunks' newline counts."""
    lines: list[tuple[int, int]] = []
    number, line_start = 1, 0
    for (count, _), (found, last) in zip(counts, held, strict=True):
        for start, before in found:
            start = line_start if start is None else start
            if not lines or lines[-1][0] != start:  # a line across chunks is found in each
                lines.append((start, number + before))
        number += count
        line_start = line_start if last is None else last
    return lines


def lines_with(view: mmap.mmap, needle: bytes, path: str | None = None) -> list[tuple[int, int]]:
    """(start, 1-based number) of each line of the mapped file (at `path`, when known: its counts are kept) holding
    `needle` (of at most _REACH bytes, no newline in it), in one pass that counts the lines as it goes unless the
    cache keeps their counts."""
    counts, found = counted(view, path, (holding(needle),))
    return numbered(counts, [chunk[0] for chunk in found])


def line_end(view: mmap.mmap, at: int) -> int:
    """Where the line holding byte `at` of a mapped file ends (its newline, or the end of the file)."""
    end = view.find(b"\n", at)
    return len(view) if end < 0 else end


def first_lines(view: mmap.mmap, count: int, limit: int) -> list[bytes]:
    """The first `count` lines of `view` that start in its first `limit` bytes, without their newlines (the last
    one cut at `limit`): `view[:limit].split(b"\\n", count)[:count]`, without copying the `limit` bytes."""
    end = 0
    for _ in range(count):
        end = view.find(b"\n", end, limit) + 1
        if not end:
            end = limit
            break
    return view[:end].split(b"\n")[:count]


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
        counts += [chunk[0] for chunk in survey(view, (newlines,), len(counts), whole)]
        _keep(path, counts)
    counts.append(_chunk(view, whole * COUNT_BYTES, offset, (newlines,))[0])
    named = [jdk for _, jdk in counts if jdk is not None]
    return 1 + sum(lines for lines, _ in counts), named[-1] if named else None


def all_kept(view: mmap.mmap, path: str) -> bool:
    """True when the cache keeps the newline counts of every chunk of the mapped file at `path`."""
    return len(_kept(path)) == -(-len(view) // COUNT_BYTES)


def keep_windows(view: mmap.mmap, path: str, looked: Sequence[tuple[int, int, Found]]) -> bool:
    """Keep the newline counts of every chunk of the mapped file at `path` in the cache, as `counted` keeps them,
    from the `newlines` looks (the first of each) of windows that cover the file in order, each inside one chunk
    (`index.index_looking`'s); False, and nothing kept, when the windows are not so."""
    counts: list[Count] = [(0, None)] * -(-len(view) // COUNT_BYTES)
    reached = 0
    for offset, length, found in looked:
        chunk = offset // COUNT_BYTES
        if offset != reached or (length and (offset + length - 1) // COUNT_BYTES != chunk):
            return False
        lines, jdk = found[0]
        counts[chunk] = (counts[chunk][0] + lines, counts[chunk][1] if jdk is None else jdk)
        reached += length
    if reached != len(view):
        return False
    _keep(path, counts)
    return True


def _kept(path: str | None) -> list[Count]:
    """The counts the cache keeps for the file at `path`, as many chunks as it has; none when it keeps none."""
    if path is None:
        return []
    from asmcfg.sources import cache

    entry = cache.load(_CACHED, path)
    if not isinstance(entry, dict) or entry.get("chunk") != COUNT_BYTES or not isinstance(entry.get("counts"), list):
        return []
    counts: list[Count] = []
    for item in entry["counts"]:
        if not (isinstance(item, list) and len(item) == 2 and type(item[0]) is int
                and (item[1] is None or type(item[1]) is int)):
            return []
        counts.append((item[0], item[1]))
    return counts


def _keep(path: str | None, counts: list[Count]) -> None:
    if path is not None:
        from asmcfg.sources import cache

        cache.store(_CACHED, path, {"chunk": COUNT_BYTES, "counts": counts})


def _forked(function: Callable[[], T]) -> Child[T] | None:
    """`function` run in a forked process (it reads the mapped file); None when no process can be forked now (the
    pass is made here)."""
    try:
        return Child(lambda send: send(function()), "asmcfg-pass", forked=True)
    except OSError:
        return None
