"""The record folder, safe where other users can reach: a folder only its user can write (a new one is made so, an
existing one must be so), every file asmcfg writes in it created new through the folder's own descriptor (never
through a link, never over a file already there), and only files the recorded JVMs' user owns moved in."""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import shutil
import stat
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from asmcfg.errors import InputError

_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
"""A file created new: O_EXCL fails on anything already there, a link (even a dangling one) included."""
_MODE = 0o755
"""A folder record makes: the umask can only take bits away, so no one else may ever write into it."""
_REFUSED = "a recording writes only into a folder that only you can write; give -o a new folder"


class RecordFolder:
    """The folder, opened once and checked through its descriptor; everything asmcfg writes goes through it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        """The folder's real path (the JVMs and perf are given it)."""
        try:
            self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as error:
            raise InputError(f"{path}: cannot open the folder: {error.strerror}", "record") from None
        problem = _unsafe(os.fstat(self.fd))
        if problem is None and any(os.scandir(self.fd)):
            problem = " exists and is not empty: a recording never overwrites one; give -o a new folder"
        if problem is not None:
            os.close(self.fd)
            raise InputError(f"{path}{problem}", "record")

    def create(self, name: str) -> BinaryIO:
        """`name` in the folder, created new for writing."""
        fd = os.open(name, _NEW, 0o644, dir_fd=self.fd)
        return os.fdopen(fd, "wb")

    def write_text(self, name: str, text: str) -> None:
        """`name` created with `text`."""
        with self.create(name) as out:
            out.write(text.encode("utf-8"))

    def replace_text(self, name: str, text: str) -> None:
        """`name` written whole or not at all: a new temporary file, then renamed over it."""
        temp = f".{name}.tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=self.fd)  # a previous write's, interrupted
        self.write_text(temp, text)
        os.replace(temp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def adopt(self, source: Path) -> bool:
        """Move `source` into the folder under its name when it is a plain file of this user's, linked nowhere
        else (another user's file, a link, a hard link to some other file stay where they are); False if not."""
        with own_file(source) as opened:
            if opened is None:
                return False
            held, found = opened
            try:
                os.link(source, source.name, dst_dir_fd=self.fd, follow_symlinks=False)
            except OSError:
                return self._copy(held, source)
            if not _same(os.stat(source.name, dir_fd=self.fd, follow_symlinks=False), found):
                os.unlink(source.name, dir_fd=self.fd)  # replaced between the check and the link: not ours
                return False
        with contextlib.suppress(OSError):
            os.unlink(source)
        return True

    def _copy(self, held: BinaryIO, source: Path) -> bool:
        """`adopt` across file systems: the checked file's bytes into a new file, then the original removed."""
        try:
            with self.create(source.name) as out:
                shutil.copyfileobj(held, out)
        except OSError:
            return False
        with contextlib.suppress(OSError):
            if _same(os.lstat(source), os.fstat(held.fileno())):
                os.unlink(source)
        return True

    def close(self) -> None:
        """Close the folder's descriptor."""
        os.close(self.fd)


def choose(output: str | None) -> Path:
    """The record folder's real path, checked but not yet made: -o DIR (new, or empty), else
    `asmcfg-record-YYYYmmdd-HHMMSS` in the current folder. Refused when another user could write into it (it is
    theirs, or writable by others) or move it (a folder above it writable by others, a sticky one such as /tmp
    excepted)."""
    if output is None:
        base = Path.cwd() / f"asmcfg-record-{datetime.now():%Y%m%d-%H%M%S}"
        folder, n = base, 1
        while os.path.lexists(folder):
            n += 1
            folder = base.with_name(f"{base.name}-{n}")
    else:
        folder = Path(os.path.abspath(output))
    exists = os.path.lexists(folder)
    folder = Path(os.path.realpath(folder)) if exists else Path(os.path.realpath(folder.parent)) / folder.name
    if exists and not folder.is_dir():
        raise InputError(f"{folder} exists and is not a folder: give -o a new folder", "record")
    _check_above(folder)
    if exists:
        RecordFolder(folder).close()
    return folder


def opened(folder: Path) -> RecordFolder:
    """The chosen folder, made when new (with the folders above it, each writable by this user only), opened."""
    if not os.path.lexists(folder):
        _make(folder)
    return RecordFolder(folder)


def _make(folder: Path) -> None:
    """Make `folder` and the missing folders above it, each writable by its user only."""
    missing = [folder, *(p for p in folder.parents if not os.path.lexists(p))]
    for path in reversed(missing):
        try:
            os.mkdir(path, _MODE)
        except FileExistsError:
            if path == folder:  # taken this instant (a dated folder of another recording): never shared
                raise InputError(f"{folder} was made by someone else as it was being made: give -o a new folder",
                                 "record") from None
        except OSError as error:
            raise InputError(f"{folder}: cannot make the folder: {error.strerror}", "record") from None


def _check_above(folder: Path) -> None:
    """Refuse when a folder above `folder` lets another user rename what it holds."""
    for above in folder.parents:
        try:
            found = os.stat(above)
        except FileNotFoundError:  # made with the folder, by this user
            continue
        if _others_write(found) and not found.st_mode & stat.S_ISVTX:
            raise InputError(f"{folder}: {above}, a folder above it, can be written by other users, who could move "
                             "the recording elsewhere; give -o a folder inside one of yours", "record")


def _unsafe(found: os.stat_result) -> str | None:
    """Why another user could write into the folder, or None."""
    if found.st_uid != os.geteuid():
        return f": belongs to another user: {_REFUSED}"
    if _others_write(found):
        return f": can be written by other users: {_REFUSED}"
    return None


def _others_write(found: os.stat_result) -> bool:
    """True when a user other than this one may write into the folder: its mode lets others, or a group with
    others in it (a user's own group, as Debian gives each user, is not others)."""
    if found.st_mode & stat.S_IWOTH:
        return True
    if found.st_mode & stat.S_IWGRP:
        return not _own_group(found.st_gid)
    return False


def _own_group(gid: int) -> bool:
    """True when no user but this one belongs to group `gid`."""
    uid = os.geteuid()
    try:
        me, members = pwd.getpwuid(uid).pw_name, grp.getgrgid(gid).gr_mem
    except KeyError:
        return False
    return all(name == me for name in members) and all(p.pw_uid == uid for p in pwd.getpwall() if p.pw_gid == gid)


def _same(one: os.stat_result, other: os.stat_result) -> bool:
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


@contextlib.contextmanager
def own_file(path: Path) -> Iterator[tuple[BinaryIO, os.stat_result] | None]:
    """`path` opened without following a link, with its status, when it is a plain file of this user's linked
    nowhere else; None for anything else (another user's file, a link, a hard link, a fifo, a missing file)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        yield None
        return
    with os.fdopen(fd, "rb") as held:
        found = os.fstat(held.fileno())
        plain = stat.S_ISREG(found.st_mode) and found.st_uid == os.geteuid() and found.st_nlink == 1
        yield (held, found) if plain else None
