"""Write output files atomically: a temp file in the same folder, then rename.

Paths that exist and are not regular files (`/dev/null`, a FIFO, `/dev/stdout`) are written in place:
renaming over them would replace the device or pipe with a file. A symbolic link is written through: its target
is replaced and the link stays. A file that is replaced keeps its permission bits (a 0600 report stays 0600).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, TextIO

from asmcfg.errors import OutputError


def _is_special(path: str) -> bool:
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return False


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _target(path: str) -> str:
    """The file a write to `path` replaces: the end of its chain of symbolic links, else `path` itself."""
    return os.path.realpath(path) if os.path.islink(path) else path


def _folder(path: str) -> str:
    folder = os.path.dirname(os.path.abspath(_target(path)))
    if not os.path.isdir(folder):
        raise OutputError(f"folder {folder} does not exist (create it first)", path)
    return folder


def check_target(path: str) -> None:
    """OutputError now, before any input is read, when `path` (not `-`) could not be written: its folder is
    missing or not writable."""
    if _is_special(path):
        return
    folder = _folder(path)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write here: {os.strerror(errno.EACCES)} (check the folder's permissions)", path)


def _mode(target: str) -> int:
    """Permission bits for the new file: those of the file it replaces, else what the umask allows."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode) & 0o777
    except OSError:
        return 0o666 & ~_umask()


@contextlib.contextmanager
def _atomic(path: str, mode: str) -> Iterator[IO[str] | IO[bytes]]:
    if _is_special(path):
        with open(path, mode) as handle:
            yield handle
        return
    target = _target(path)
    try:
        fd, temp = tempfile.mkstemp(prefix=".asmcfg-", suffix=".tmp", dir=_folder(path))
    except OSError as exc:
        raise OutputError(f"cannot write here: {exc.strerror} (check the folder's permissions)", path) from None
    try:
        with os.fdopen(fd, mode) as handle:
            yield handle
        os.chmod(temp, _mode(target))
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


@contextlib.contextmanager
def atomic_text(path: str) -> Iterator[TextIO]:
    """Open a temp file beside `path`; rename it over `path` only if the block succeeds."""
    with _atomic(path, "w") as handle:
        yield handle  # type: ignore[misc]


def atomic_bytes(path: str, data: bytes) -> None:
    """Write `data` to `path` atomically."""
    with _atomic(path, "wb") as handle:
        handle.write(data)  # type: ignore[arg-type]


def bytes_to(target: str, data: bytes) -> None:
    """Write `data` to stdout (`-`) or to `target` atomically."""
    if target != "-":
        atomic_bytes(target, data)
        return
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def write_to(target: str, writer: Callable[[TextIO], None]) -> None:
    """Run `writer` on stdout (`-`) or on `target` written atomically."""
    if target == "-":
        writer(sys.stdout)
        sys.stdout.flush()
        return
    with atomic_text(target) as out:
        writer(out)


MARK = ".asmcfg-export"
"""The file every folder `asmcfg --all --html DIR` writes holds: a folder with it is a previous export that a new
one may replace."""


def check_folder(path: str) -> None:
    """OutputError now, before any input is read, when the folder `path` could not be written or replaced: its
    parent is missing or not writable, it is a file, or a folder holding something that is not a previous export
    (a non-empty folder of other files is never replaced)."""
    check_target(path)
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutputError("is not a folder (a page per compilation needs one): name a folder", path)
    if os.path.isdir(path) and os.listdir(path) and not os.path.isfile(os.path.join(path, MARK)):
        raise OutputError("folder holds files that are not an asmcfg export: name a new or empty folder "
                          "(an earlier export's folder is replaced)", path)


@contextlib.contextmanager
def atomic_folder(path: str) -> Iterator[str]:
    """A temporary folder beside `path` to fill; when the block succeeds it becomes `path` (an empty folder or a
    previous export there is replaced), else it is removed and `path` is left as it was."""
    import shutil

    path = os.path.normpath(path)
    check_folder(path)
    parent = os.path.dirname(os.path.abspath(path))
    try:
        temp = tempfile.mkdtemp(prefix=".asmcfg-", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise OutputError(f"cannot write here: {exc.strerror} (check the folder's permissions)", path) from None
    try:
        with open(os.path.join(temp, MARK), "w", encoding="utf-8") as mark:
            mark.write("written by asmcfg --all --html DIR; a new export replaces this folder\n")
        yield temp
        os.chmod(temp, 0o777 & ~_umask())
        _swap(temp, path)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


def _swap(temp: str, path: str) -> None:
    """`temp` renamed to `path`; an existing folder there (checked: empty or a previous export) is moved aside
    first and removed once the new one is in place, or put back if the rename fails."""
    import shutil

    if not os.path.isdir(path):
        os.rename(temp, path)
        return
    check_folder(path)  # still empty or an export: nothing else is replaced
    old = tempfile.mkdtemp(prefix=".asmcfg-", suffix=".old", dir=os.path.dirname(temp))
    aside = os.path.join(old, "previous")
    os.rename(path, aside)
    try:
        os.rename(temp, path)
    except BaseException:
        os.rename(aside, path)
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)
