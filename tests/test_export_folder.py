"""The folder of `asmcfg FILE --all --html DIR` among the user's files: an input inside it is refused, a new export
replaces only the files the earlier one wrote (as its manifest lists them), and a folder given as a link stays a
link."""

from __future__ import annotations

import shutil
from pathlib import Path

from corpus import DATA, run_cli

from asmcfg.render.files import MARK

SHAPES = DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt"
"""Nine compilations of Shapes::total and Shapes::totalPerim, C1 and C2 (compile ids 13-29)."""
C1_PAGES = {"index.html", "id-13.html", "id-14.html"}


def export(source: Path, folder: Path, *args: str) -> tuple[int, str]:
    code, _, err = run_cli(str(source), "--all", "--html", str(folder), "-q", *args)
    return code, err


def written(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()} - {MARK}


def test_an_input_inside_the_folder_is_refused_and_kept(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    assert export(SHAPES, folder, "--compiler", "c1") == (0, "")
    mine = folder / "my.log"
    shutil.copy(SHAPES, mine)
    code, err = export(mine, folder)
    assert code == 2 and f"FILE {mine} lies inside the folder --html {folder} writes" in err
    assert mine.read_bytes() == SHAPES.read_bytes() and written(folder) == C1_PAGES | {"my.log"}
    code, err = export(SHAPES, folder, "--profile", str(mine))
    assert code == 2 and f"--profile {mine} lies inside the folder --html {folder} writes" in err


def test_a_new_export_replaces_only_the_files_the_earlier_one_wrote(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    assert export(SHAPES, folder)[0] == 0
    assert len(written(folder)) == 10
    (folder / "notes.txt").write_text("keep")
    (folder / "attachments").mkdir()
    assert export(SHAPES, folder, "--compiler", "c1") == (0, "")
    assert written(folder) == C1_PAGES | {"notes.txt", "attachments"}, "the pages of the earlier export are gone"
    assert (folder / "notes.txt").read_text() == "keep"
    assert sorted((folder / MARK).read_text().splitlines()[1:]) == sorted(C1_PAGES)
    assert [p.name for p in tmp_path.iterdir()] == ["out"], "no temporary folder is left beside it"


def test_a_manifest_naming_files_elsewhere_deletes_nothing_there(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    assert export(SHAPES, folder, "--compiler", "c1")[0] == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (folder / "link.html").symlink_to(victim)
    mark = folder / MARK
    mark.write_text(mark.read_text() + f"../victim.txt\n{victim}\nlink.html\n.\n..\n")
    assert export(SHAPES, folder, "--compiler", "c1")[0] == 0
    assert victim.read_text() == "keep" and (folder / "link.html").is_symlink()


def test_a_file_of_the_users_with_the_name_of_a_page_is_never_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    assert export(SHAPES, folder, "--compiler", "c1")[0] == 0
    mark = folder / MARK
    mark.write_text("".join(line + "\n" for line in mark.read_text().splitlines() if line != "id-14.html"))
    (folder / "id-14.html").write_text("mine")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    code, err = export(SHAPES, folder, "--compiler", "c1")
    assert code == 1 and f"{folder / 'id-14.html'}: not asmcfg's (not in {MARK}): the export would replace it" in err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_an_export_of_an_earlier_version_is_replaced_by_its_pages_names(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    assert export(SHAPES, folder)[0] == 0
    (folder / MARK).write_text("written by asmcfg --all --html DIR; a new export replaces this folder\n")
    (folder / "notes.txt").write_text("keep")
    assert export(SHAPES, folder, "--compiler", "c1")[0] == 0
    assert written(folder) == C1_PAGES | {"notes.txt"}


def test_a_folder_given_as_a_link_stays_a_link(tmp_path: Path) -> None:
    real, link = tmp_path / "real", tmp_path / "link"
    real.mkdir()
    link.symlink_to(real)
    for compiler in ("c2", "c1"):
        assert export(SHAPES, link, "--compiler", compiler) == (0, "")
        assert link.is_symlink() and link.resolve() == real
    assert written(real) == C1_PAGES
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]
