"""`asmcfg record` where other users can reach: a folder another user can write is refused before anything
runs, nothing asmcfg writes follows a link planted in the folder, and only the recorded JVMs' own files are moved
in from /tmp. Another user is simulated as root does it: files and links handed to `nobody`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from recording import JAVA17, compile_java, error_lines, manifest, needs_jdks

NOBODY = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="plants files as another user: needs root")
PLANTED = ("perf-script.txt", "perf-header.txt", "perf-script.log", ".record.json.tmp")
"""What the recording writes after the program ends: a link planted under one of these names while it runs."""


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_java(tmp_path_factory.mktemp("classes"), "RecHot")


def files_outside(root: Path, folder: Path) -> dict[str, bytes]:
    """Every file under `root` but outside `folder`, by path, with its bytes."""
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink() and folder not in p.parents}


def plant(folder: Path, name: str, target: Path) -> None:
    """A link `folder/name` to `target`, owned by another user, as that user would make it."""
    link = folder / name
    link.symlink_to(target)
    os.lchown(link, NOBODY, NOBODY)


@pytest.mark.slow
@needs_jdks
@as_root
@pytest.mark.parametrize(("owner", "mode"), [(0, 0o777), (NOBODY, 0o755)], ids=["writable-by-all", "other-owner"])
def test_links_planted_in_a_folder_another_user_can_write_change_nothing_outside_it(
        classes: Path, tmp_path: Path, owner: int, mode: int) -> None:
    victims = tmp_path / "victims"
    victims.mkdir()
    for name in PLANTED:
        (victims / name).write_text("precious\n")
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chown(folder, owner, owner)
    folder.chmod(mode)
    before = files_outside(tmp_path, folder)
    child = subprocess.Popen([sys.executable, "-m", "asmcfg", "record", "-o", str(folder), "--", str(JAVA17), "-cp",
                              str(classes), "RecHot", "-1", "0"], cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    assert child.stdout is not None
    while (line := child.stdout.readline()) and not line.startswith(b"ready"):
        pass
    if line:  # the program runs, its folder open to the other user: the links go in before anything is written
        for name in PLANTED:
            plant(folder, name, victims / name)
        child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=120)
    assert files_outside(tmp_path, folder) == before
    assert child.returncode == 1 and not line
    said = [text for text in err.decode().splitlines() if text.startswith("asmcfg")]
    whose = "belongs to another user" if owner else "can be written by other users"
    assert said == [f"asmcfg: record: {folder}: {whose}: a recording writes only into a folder that only you can "
                    "write; give -o a new folder"]
    assert list(folder.iterdir()) == []


@pytest.mark.slow
@needs_jdks
@as_root
def test_a_killed_jvms_files_in_tmp_are_moved_in_only_when_its_user_owns_them(classes: Path, tmp_path: Path) -> None:
    script = tmp_path / "kill.sh"
    out = tmp_path / "out.txt"
    script.write_text(f"""#!/bin/sh
{JAVA17} -cp {classes} RecHot -1 0 > {out} &
pid=$!
until grep -qa '^ready' {out}; do sleep 0.05; done
for planted in /tmp/hs_c1_pid$pid.log /tmp/perf-$pid.map; do
    printf 'planted\\n' > $planted && chown {NOBODY} $planted
done
ln -s {tmp_path / 'elsewhere.log'} /tmp/hs_c2_pid$pid.log
echo planted > {tmp_path / 'elsewhere.log'}
kill -9 $pid
wait $pid
""")
    script.chmod(0o755)
    folder = tmp_path / "rec"
    done = subprocess.run([sys.executable, "-m", "asmcfg", "record", "-o", str(folder), "--", str(script)],
                          cwd=tmp_path, capture_output=True, timeout=120, check=False)
    [jvm] = manifest(folder)["jvms"]  # type: ignore[misc]
    pid = jvm["pid"]
    planted = [Path(f"/tmp/hs_c1_pid{pid}.log"), Path(f"/tmp/perf-{pid}.map"), Path(f"/tmp/hs_c2_pid{pid}.log")]
    try:
        assert done.returncode == 137, error_lines(done)
        for path in planted[:2]:  # another user's files: left where they are, as they are
            assert path.read_text() == "planted\n" and path.stat().st_uid == NOBODY
        assert planted[2].is_symlink() and (tmp_path / "elsewhere.log").read_text() == "planted\n"
        moved = sorted(p.name for p in folder.glob("hs_c*"))
        assert moved and all(name not in moved for name in ("hs_c1_pid{pid}.log", f"hs_c2_pid{pid}.log"))
        assert all((folder / name).stat().st_uid == os.geteuid() for name in moved)  # the JVM's own: moved in
        assert not (folder / f"perf-{pid}.map").exists()
    finally:
        for path in planted:
            path.unlink(missing_ok=True)


def test_nothing_the_folder_writes_follows_a_link_or_replaces_a_file(tmp_path: Path) -> None:
    from asmcfg.record.folder import choose, opened

    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    folder = opened(choose(str(tmp_path / "rec")))
    try:
        (folder.path / "perf-script.txt").symlink_to(victim)  # as if planted: the folder's checks keep others out
        (folder.path / ".record.json.tmp").symlink_to(victim)
        with pytest.raises(FileExistsError):
            folder.create("perf-script.txt")
        folder.replace_text("record.json", "{}\n")  # its temporary name taken: the link goes, the victim stays
        assert victim.read_text() == "precious\n" and (folder.path / "record.json").read_text() == "{}\n"
        outside = tmp_path / "hs_c9_pid1.log"
        outside.write_text("mine\n")
        os.link(outside, tmp_path / "second-name")  # a file with another name elsewhere is not moved
        assert not folder.adopt(outside) and outside.exists()
        (tmp_path / "second-name").unlink()
        assert folder.adopt(outside) and not outside.exists()
        assert (folder.path / outside.name).read_text() == "mine\n"
    finally:
        folder.close()


def test_a_folder_record_makes_is_writable_by_its_user_only_whatever_the_umask(tmp_path: Path) -> None:
    from asmcfg.errors import InputError
    from asmcfg.record.folder import choose, opened

    before = os.umask(0)
    try:
        folder = opened(choose(str(tmp_path / "new" / "rec")))
        folder.close()
    finally:
        os.umask(before)
    assert [(folder.path / p).stat().st_mode & 0o777 for p in ("..", ".")] == [0o755, 0o755]
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(InputError, match=f"{shared}, a folder above it, can be written by other users"):
        choose(str(shared / "rec"))
    assert not (shared / "rec").exists()
    shared.chmod(0o1777)  # sticky, as /tmp: others may not move what is not theirs
    assert choose(str(shared / "rec")) == shared / "rec"
