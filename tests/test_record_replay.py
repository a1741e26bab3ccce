"""The replay files a recording keeps: only this user's plain files of the recorded JVM, written during the
recording, are moved into the folder's archive; links, hard links and older files stay where they are."""

from __future__ import annotations

import os
import time
import zipfile
from pathlib import Path

from asmcfg.record import replay
from asmcfg.record.folder import opened


def test_the_recorded_jvms_replay_files_move_into_one_archive_and_nothing_else_does(tmp_path: Path) -> None:
    cwd, elsewhere = tmp_path / "cwd", tmp_path / "elsewhere"
    cwd.mkdir()
    elsewhere.mkdir()
    (cwd / "replay_pid42_compid7.log").write_text("version 2\n")
    (cwd / "replay_pid0x2a_compid9.log").write_text("version 1\n")  # JDK 17 names the pid in hex
    (cwd / "replay_pid43_compid7.log").write_text("another JVM's\n")
    target = elsewhere / "secret"
    target.write_text("not ours")
    os.symlink(target, cwd / "replay_pid42_compid8.log")
    os.link(target, cwd / "replay_pid42_compid10.log")
    old = cwd / "replay_pid42_compid11.log"
    old.write_text("an older process's")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    folder = opened(tmp_path / "rec")
    try:
        kept = replay.keep(42, folder, (cwd,), time.time() - 60)
    finally:
        folder.close()
    assert kept == replay.Kept("replay-pid42.zip", (7, 9))
    with zipfile.ZipFile(tmp_path / "rec" / kept.archive) as archive:
        assert archive.namelist() == ["replay_pid42_compid7.log", "replay_pid0x2a_compid9.log"]
    assert replay.read(tmp_path / "rec" / kept.archive, 9) == b"version 1\n"
    assert replay.read(tmp_path / "rec" / kept.archive, 8) is None
    assert sorted(p.name for p in cwd.iterdir()) == ["replay_pid42_compid10.log", "replay_pid42_compid11.log",
                                                      "replay_pid42_compid8.log", "replay_pid43_compid7.log"]
    assert target.read_text() == "not ours"


def test_no_replay_file_makes_no_archive(tmp_path: Path) -> None:
    folder = opened(tmp_path / "rec")
    try:
        assert replay.keep(42, folder, (tmp_path,), 0.0) is None
    finally:
        folder.close()
    assert list((tmp_path / "rec").iterdir()) == []
