"""Lines of input with their origin: files, stdin, .gz and .xz, read as a stream."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
import zlib
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import IO, cast

from asmcfg.errors import InputError
from asmcfg.sources.numbers import DIGITS

STDIN = "-"
MAX_LINE = 1 << 20
"""Longest line kept, in bytes: the rest of a longer line is dropped, so one huge line cannot exhaust memory."""
HEAD_LINES = 400
"""How many first lines of an input `read_lines` keeps for error messages (stdin or a pipe cannot be reread)."""
KEPT_CHARS = 4096
"""Characters kept of each of those lines."""
VM_VERSION = rf"# VM version: JDK ({DIGITS})"
"""The line JMH prints before a run's output, naming its JDK: the hsdis and machcode readers take the JDK from it,
and the cutter gives it to the pieces after it (`split.named_jdk`)."""


@dataclass(frozen=True, slots=True)
class Line:
    """One line of input."""

    number: int
    """1-based line number in the (decompressed) input."""
    text: str
    """The line without its line ending."""


def display_name(path: str) -> str:
    """The name messages use for an input path."""
    return "<stdin>" if path == STDIN else path


Meter = Callable[[int], None]
"""Told how many bytes were just read from the file (compressed bytes for a compressed file)."""


class _Counted(io.RawIOBase):
    """A file that tells a meter how much was read from it."""

    def __init__(self, raw: io.FileIO, meter: Meter) -> None:
        self._raw = raw
        self._meter = meter

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        count = self._raw.readinto(buffer) or 0
        self._meter(count)
        return count

    def close(self) -> None:
        self._raw.close()
        super().close()


def open_binary(path: str, meter: Meter | None = None) -> IO[bytes]:
    """The decompressed bytes of `path` (or stdin for `-`), decompressing by content; `meter` counts file bytes."""
    if path == STDIN:
        if sys.stdin is None:
            raise InputError("standard input is closed (give a FILE, or pipe HotSpot output in)", display_name(path))
        stdin = sys.stdin.buffer
        # Wrapping a test harness's BytesIO would close it when the wrapper is dropped: read it as it is.
        return _decompressed(stdin) if isinstance(stdin, io.BufferedReader) else stdin
    if os.path.isdir(path):
        raise InputError("is a directory, not a HotSpot log (give a file)", path)
    try:
        raw: IO[bytes] = (
            open(path, "rb")  # noqa: SIM115 - closed by the caller
            if meter is None
            else io.BufferedReader(_Counted(open(path, "rb", buffering=0), meter), 1 << 20)  # noqa: SIM115
        )
    except FileNotFoundError:
        raise InputError("no such file (check the path)", path) from None
    except PermissionError:
        raise InputError("permission denied (check the file's permissions)", path) from None
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror} (check the path and its permissions)", path) from None
    return _decompressed(raw)


def _decompressed(raw: IO[bytes]) -> IO[bytes]:
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(cast(io.RawIOBase, raw))
    magic = buffered.peek(6)[:6]
    if not magic:
        # end of input already (on a terminal, Ctrl-D: the next read would wait for more)
        return io.BytesIO()
    if magic.startswith(b"\x1f\x8b"):
        return cast(IO[bytes], gzip.GzipFile(fileobj=buffered))
    if magic.startswith(b"\xfd7zXZ"):
        return cast(IO[bytes], lzma.LZMAFile(buffered))
    if magic.startswith(b"BZh"):
        return cast(IO[bytes], bz2.BZ2File(buffered))
    return buffered


def raw_lines(stream: IO[bytes], name: str | None = None) -> Iterator[bytes]:
    """The lines of `stream`, each cut to MAX_LINE bytes (the rest of a longer line is read and dropped); given the
    stream's `name`, a stream that ends badly (a broken compressed file) raises InputError naming it and the line."""
    number = 0
    try:
        while raw := stream.readline(MAX_LINE):
            rest = raw
            while len(rest) == MAX_LINE and not rest.endswith(b"\n"):
                rest = stream.readline(MAX_LINE)
            number += 1
            yield raw
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        if name is None:
            raise
        raise InputError(f"input ends badly: {exc} (is the file complete?)", name, number + 1) from None


def read_lines(path: str, meter: Meter | None = None, head: list[str] | None = None) -> Generator[Line, None, None]:
    """Yield the lines of `path` (or stdin for `-`), decompressing by content, never reading it whole; the first
    HEAD_LINES lines, each cut to KEPT_CHARS, are appended to `head` as they are read, when it is given."""
    stream = open_binary(path, meter)
    name = display_name(path)
    number = 0
    try:
        for raw in raw_lines(stream):
            number += 1
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            if number <= HEAD_LINES and head is not None:
                head.append(text[:KEPT_CHARS])
            yield Line(number, text)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        raise InputError(f"input ends badly: {exc} (is the file complete?)", name, number + 1) from None
    finally:
        if path != STDIN:
            stream.close()
