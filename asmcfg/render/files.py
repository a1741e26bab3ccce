"""Write output files atomically: a temp file in the same folder, then rename.

Paths that exist and are not regular files (`/dev/null`, a FIFO, `/dev/stdout`) are written in place:
renaming over them would replace the device or pipe with a file. A symbolic link is written through: its target
is replaced and the link stays. A file that is replaced keeps its permission bits (a 0600 report stays 0600).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
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
"""The manifest every folder `asmcfg --all --html DIR` writes holds: the files that export wrote, one name a line
after a comment. A folder with it is an earlier export, whose listed files a new one replaces (and only them)."""
_MARK_HEAD = "# written by asmcfg --all --html DIR: a new export there replaces the files listed here, and no other"
_OLD_MARK = "written by asmcfg"
"""How the manifest of an export made before manifests listed files begins."""
_OLD_PAGES = re.compile(r"index\.html|id-\d+(?:-\d+)?\.html|row-\d+\.html")
"""The names an export of that time gave its files."""


def check_folder(path: str) -> None:
    """OutputError now, before any input is read, when the folder `path` could not be written: its parent is
    missing or not writable, it is a file, or a folder holding something that is not a previous export (a
    non-empty folder of other files is never written into)."""
    path = _target(path)
    check_target(path)
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutputError("is not a folder (a page per compilation needs one): name a folder", path)
    if os.path.isdir(path) and os.listdir(path) and not os.path.isfile(os.path.join(path, MARK)):
        raise OutputError("folder holds files that are not an asmcfg export: name a new or empty folder "
                          "(an earlier export's files are replaced)", path)


@contextlib.contextmanager
def atomic_folder(path: str) -> Iterator[str]:
    """A temporary folder beside `path` to fill; when the block succeeds its files take their places in `path`
    (made, or an empty folder or an earlier export there: the files the earlier export wrote are replaced or
    removed, any other file is left as it is), else it is removed and `path` is left as it was. A link to a folder
    stays a link: its target is written."""
    import shutil

    path = _target(os.path.normpath(path))
    check_folder(path)
    try:
        temp = tempfile.mkdtemp(prefix=".asmcfg-", suffix=".tmp", dir=os.path.dirname(os.path.abspath(path)))
    except OSError as exc:
        raise OutputError(f"cannot write here: {exc.strerror} (check the folder's permissions)", path) from None
    try:
        yield temp
        names = sorted(os.listdir(temp))
        _write_mark(temp, names)
        if os.path.isdir(path):
            _move_in(temp, names, path)
        else:
            os.chmod(temp, 0o777 & ~_umask())
            os.rename(temp, path)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _move_in(temp: str, names: list[str], path: str) -> None:
    """The new export's files (`names` in `temp`) into the existing folder `path`, the earlier export's that the
    new one does not write removed: first a manifest of both (an interrupted move leaves every file of asmcfg's
    listed), then the files, then the manifest of the new export alone."""
    check_folder(path)  # still empty or an export: nothing else is written into
    earlier = _listed(path)
    for name in names:
        if name not in earlier and os.path.lexists(os.path.join(path, name)):
            raise OutputError(f"not asmcfg's (not in {MARK}): the export would replace it; move it away or name "
                              "another folder", os.path.join(path, name))
    _write_mark(path, sorted(earlier | set(names)))
    for name in names:
        os.replace(os.path.join(temp, name), os.path.join(path, name))
    for name in sorted(earlier - set(names)):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(path, name))
    _write_mark(path, names)


def _listed(folder: str) -> set[str]:
    """The files an earlier export in `folder` wrote that are there as it wrote them (plain files): the names its
    manifest lists, or for an export from before manifests listed files, the names its files had."""
    try:
        with open(os.path.join(folder, MARK), encoding="utf-8", errors="replace") as mark:
            lines = mark.read().splitlines()
    except FileNotFoundError:
        return set()
    if lines and lines[0].startswith(_OLD_MARK):
        lines = [name for name in os.listdir(folder) if _OLD_PAGES.fullmatch(name)]
    return {name for name in lines if os.path.basename(name) == name and name not in ("", ".", "..", MARK)
            and not name.startswith("#") and _plain_file(os.path.join(folder, name))}


def _plain_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _write_mark(folder: str, names: list[str]) -> None:
    """The manifest in `folder`, listing `names` (`MARK` itself left out)."""
    listed = "".join(f"{name}\n" for name in names if name != MARK)
    atomic_bytes(os.path.join(folder, MARK), f"{_MARK_HEAD}\n{listed}".encode())
