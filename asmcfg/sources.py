"""Lines of input with their origin: files, stdin, .gz and .xz, read as a stream."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, cast

from asmcfg.errors import InputError

STDIN = "-"


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


def _open_binary(path: str) -> IO[bytes]:
    if path == STDIN:
        return sys.stdin.buffer
    if os.path.isdir(path):
        raise InputError("is a directory, not a HotSpot log (give a file)", path)
    try:
        raw: IO[bytes] = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except PermissionError:
        raise InputError("permission denied (check the file's permissions)", path) from None
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror}", path) from None
    return _decompressed(raw)


def _decompressed(raw: IO[bytes]) -> IO[bytes]:
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(cast(io.RawIOBase, raw))
    magic = buffered.peek(6)[:6]
    if magic.startswith(b"\x1f\x8b"):
        return cast(IO[bytes], gzip.GzipFile(fileobj=buffered))
    if magic.startswith(b"\xfd7zXZ"):
        return cast(IO[bytes], lzma.LZMAFile(buffered))
    if magic.startswith(b"BZh"):
        return cast(IO[bytes], bz2.BZ2File(buffered))
    return buffered


def read_lines(path: str) -> Iterator[Line]:
    """Yield the lines of `path` (or stdin for `-`), decompressing by content, never reading it whole."""
    stream = _open_binary(path)
    name = display_name(path)
    number = 0
    try:
        for raw in stream:
            number += 1
            yield Line(number, raw.decode("utf-8", "replace").rstrip("\r\n"))
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise InputError(f"input ends badly: {exc} (is the file complete?)", name, number + 1) from None
    finally:
        if path != STDIN:
            stream.close()
