"""What one run learnt of a large input file that the next run of the same file reuses, kept in the platform's cache
folder for the user (`platformdirs`: `$XDG_CACHE_HOME/asmcfg`, else `~/.cache/asmcfg` on Linux; `ASMCFG_CACHE_DIR`
names another folder, an empty value turns the cache off).

An entry is keyed by what it is, by asmcfg's version and the cache's `FORMAT` (an entry written under other reading
rules is never used), and by the file's identity: its path, device, inode, size, modification and change times, and
a hash of its first and last `SAMPLED` bytes. A file that changed, even rewritten in place with its size and
modification time set back, or another in its place, has another key. Entries are written whole to a temporary name
and renamed, so a reader never sees half of one; each kind keeps at most `KEPT` entries and the decompressed copies
at most `PLAIN_KEPT` files and `PLAIN_BYTES` bytes, the least recently used let go first. A cache that cannot be read
or written is passed over: the run does the work."""

from __future__ import annotations

import contextlib
import hashlib
import json
import lzma
import os
import time
import zlib
from pathlib import Path
from typing import Any

ENV = "ASMCFG_CACHE_DIR"
"""The environment variable naming the cache folder (empty: no cache)."""
FORMAT = 1
"""The cache's format: raised when what an entry holds, or how an input is read into one, changes."""
SAMPLED = 64 << 10
"""Bytes at each end of a file whose hash is part of its key."""
KEPT = 256
"""Entries of one kind kept at most (each a few KB): the least recently written go first."""


def folder() -> Path | None:
    """The cache folder (not made yet, perhaps), or None when the cache is off."""
    chosen = os.environ.get(ENV)
    if chosen is not None:
        return Path(chosen) if chosen else None
    import platformdirs

    return Path(platformdirs.user_cache_dir("asmcfg", appauthor=False))


def identity(path: str) -> str | None:
    """A key for the file at `path` as it is now, under this version of asmcfg; None when it is no regular file."""
    from asmcfg import __version__

    try:
        info = os.stat(path)
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as file:
            ends = file.read(SAMPLED)
            if info.st_size > SAMPLED:
                file.seek(max(SAMPLED, info.st_size - SAMPLED))
                ends += file.read(SAMPLED)
    except OSError:
        return None
    text = (f"{__version__}\0{FORMAT}\0{os.path.realpath(path)}\0{info.st_dev}\0{info.st_ino}\0{info.st_size}\0"
            f"{info.st_mtime_ns}\0{info.st_ctime_ns}\0{hashlib.sha256(ends).hexdigest()}")
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def entry(kind: str, path: str, suffix: str = ".json") -> Path | None:
    """Where the cache keeps `kind` for the file at `path`; None when there is no cache or no such file."""
    root, key = folder(), identity(path)
    return None if root is None or key is None else root / kind / f"{key}{suffix}"


def load(kind: str, path: str) -> Any:
    """The JSON value kept as `kind` for the file at `path`, None when none is (or it cannot be read)."""
    where = entry(kind, path)
    if where is None:
        return None
    try:
        with open(where, encoding="utf-8") as file:
            return json.load(file)
    except (OSError, ValueError):
        return None


def store(kind: str, path: str, value: Any) -> None:
    """Keep `value` (JSON) as `kind` for the file at `path`; nothing when the cache cannot be written."""
    where = entry(kind, path)
    if where is None:
        return
    import tempfile

    with contextlib.suppress(OSError):
        where.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=where.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(value, file, separators=(",", ":"))
            os.replace(partial, where)
            _let_go(where.parent, KEPT, keep=where)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise


PLAIN = "plain"
"""What the cache calls the decompressed copies it keeps of compressed inputs."""
PLAIN_KEPT = 4
"""Decompressed copies kept at most: the least recently used goes first."""
PLAIN_BYTES = 32 << 30
"""Bytes of decompressed copies kept at most: the least recently used go first (the one just made stays)."""
PLAIN_MAX = 16 << 30
"""Bytes past which a decompressed copy is not made (a compression bomb, or a disk filling up): the input is read
as a stream instead."""
FREE_MARGIN = 1 << 30
"""Bytes left free on the cache's disk: a copy that would leave less is not made."""
_BLOCK = 4 << 20


def plain_copy(path: str) -> tuple[str, bool] | None:
    """A plain copy of the compressed file at `path`, made once and kept (the least recently used of more than
    PLAIN_KEPT let go), and True when this call made it; None when it cannot be had (no cache, the disk nearly full,
    PLAIN_MAX bytes or more, an input that does not decompress: its read says why)."""
    where = entry(PLAIN, path, "")
    if where is None:
        return None
    if where.is_file():
        _used(where)
        return str(where), False
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        _let_go(where.parent, PLAIN_KEPT - 1)
        if not _decompress(path, where):
            return None
        _let_go(where.parent, PLAIN_KEPT, PLAIN_BYTES, keep=where)
    except OSError:
        return None
    _used(where)
    return str(where), True


def _used(copy: Path) -> None:
    """Mark `copy` used now (its modification time, to the nanosecond: the file system's own clock is coarser)."""
    now = time.time_ns()
    with contextlib.suppress(OSError):
        os.utime(copy, ns=(now, now))


def _decompress(path: str, where: Path) -> bool:
    """Write the decompressed bytes of `path` to `where` (through a temporary name); False, and nothing written,
    when they are too many or do not decompress."""
    import shutil
    import tempfile

    from asmcfg.errors import AsmcfgError
    from asmcfg.sources.lines import open_binary

    handle, partial = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=where.parent)
    done = False
    try:
        room = min(PLAIN_MAX, shutil.disk_usage(where.parent).free - FREE_MARGIN)
        written = 0
        with os.fdopen(handle, "wb") as out, open_binary(path) as stream:
            while block := stream.read(_BLOCK):
                written += len(block)
                if written > room:
                    return False
                out.write(block)
        os.replace(partial, where)
        done = True
        return True
    except (AsmcfgError, EOFError, ValueError, lzma.LZMAError, zlib.error):  # it does not decompress
        return False
    finally:
        if not done:
            with contextlib.suppress(OSError):
                os.unlink(partial)


def _let_go(kept: Path, count: int, size: int | None = None, keep: Path | None = None) -> None:
    """Remove the least recently used entries in `kept` (never `keep`) until at most `count` remain and, with `size`,
    they hold at most `size` bytes."""
    entries = []
    for entry in kept.iterdir():
        with contextlib.suppress(OSError):
            if entry.is_file() and not entry.name.startswith("."):
                info = entry.stat()
                entries.append((info.st_mtime_ns, info.st_size, entry))
    entries.sort(key=lambda found: found[0])
    total = sum(found[1] for found in entries)
    left = len(entries)
    for _, bytes_, old in entries:
        if left <= count and (size is None or total <= size):
            break
        if old == keep:
            continue
        with contextlib.suppress(OSError):
            old.unlink()
            left -= 1
            total -= bytes_
