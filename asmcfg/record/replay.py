"""The replay data a recording keeps: HotSpot's `DumpReplay` writes `replay_pid<PID>_compid<N>.log` (JDK 17:
`replay_pid0x<HEX>_compid<N>.log`) into each JVM's working folder, one file per compilation; asmcfg moves those of
the recorded JVMs into one compressed `replay-pid<PID>.zip` in the record folder, so no file stays behind in the
user's folder (only this user's plain files written since the recording started; a link, a hard link or another
user's file stays where it is)."""

from __future__ import annotations

import contextlib
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from asmcfg.record.folder import RecordFolder, own_file

ARCHIVE = "replay-pid{pid}.zip"
"""The archive of one JVM's replay files in the record folder."""
LARGEST = 256 << 20
"""The largest replay data read from an archive (a real one is some hundred KB)."""
MEMBER = re.compile(r"replay_pid(?:(\d+)|0x([0-9a-f]+))_compid(\d+)\.log\Z")
"""A replay file's name: the JVM's pid (decimal, or JDK 17's hex) and the compile id."""


@dataclass(frozen=True, slots=True)
class Kept:
    """The replay files of one JVM kept in the record folder."""

    archive: str
    """`replay-pid<PID>.zip`."""
    compile_ids: tuple[int, ...]
    """The compilations whose replay data it holds, in order."""


def names(pid: int) -> tuple[str, str]:
    """The globs of a JVM's replay files: JDK 20 and later write the pid in decimal, JDK 17 in hex."""
    return f"replay_pid{pid}_compid*.log", f"replay_pid0x{pid:x}_compid*.log"


def compile_id(name: str) -> int | None:
    """The compile id a replay file's name holds, or None for another name."""
    found = MEMBER.match(name)
    return int(found.group(3)) if found else None


def keep(pid: int, folder: RecordFolder, places: tuple[Path, ...], since: float) -> Kept | None:
    """Move the replay files of JVM `pid` found in `places` into `replay-<pid>.zip` in the folder, their names as
    members; None when there were none."""
    found = sorted({path for place in places for glob in names(pid) for path in place.glob(glob)},
                   key=lambda path: (compile_id(path.name) or 0, path.name))
    ids: list[int] = []
    if not found:
        return None
    name = ARCHIVE.format(pid=pid)
    with folder.create(name) as out, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for path in found:
            number = compile_id(path.name)
            if number is not None and _moved(path, archive, since):
                ids.append(number)
    if not ids:
        os.unlink(name, dir_fd=folder.fd)
        return None
    return Kept(name, tuple(ids))


def _moved(path: Path, archive: zipfile.ZipFile, since: float) -> bool:
    """Copy `path` into the archive and remove it, when it is this user's plain file, linked nowhere else, written
    since `since`; False when it is left where it is."""
    with own_file(path) as opened:
        if opened is None or opened[1].st_mtime < since:
            return False
        held, found = opened
        archive.writestr(path.name, held.read())
        with contextlib.suppress(OSError):
            now = os.lstat(path)
            if (now.st_dev, now.st_ino) == (found.st_dev, found.st_ino):
                os.unlink(path)
    return True


def read(archive: Path, compile_id_wanted: int) -> bytes | None:
    """The replay data of one compilation from a record folder's archive, or None when it holds none."""
    with zipfile.ZipFile(archive) as opened:
        for info in opened.infolist():
            if compile_id(info.filename) == compile_id_wanted and info.file_size <= LARGEST:
                return opened.read(info)
    return None
