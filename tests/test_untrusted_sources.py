"""`--source-path` with a log that may be crafted: a class name never reads a file outside the source folders, and
the page numbers a `.java` file's lines as javac does."""

from __future__ import annotations

import gzip
import html
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import run_cli

from asmcfg.sources.java import java_file, java_lines

DATA = Path(__file__).parent / "data"
DUMP = DATA / "hsdis" / "jdk17-Tensor4D-print-hsdis-att.txt.gz"
"""A real dump of `Tensor4D` (the program of `data/java/Tensor4D.java`), its class renamed by the tests below."""
SOURCE = DATA / "java" / "Tensor4D.java"
MARKER = "SECRET_7f3a9c_NOT_FOR_THE_REPORT"


def _dump(tmp_path: Path, class_name: str) -> Path:
    """The real dump with its class `Tensor4D` renamed `class_name` everywhere (headers and debug-info frames)."""
    text = gzip.decompress(DUMP.read_bytes()).decode("utf-8")
    path = tmp_path / "crafted.txt"
    path.write_text(text.replace("Tensor4D", class_name), encoding="utf-8")
    return path


def _page(dump: Path, out: Path, *source_path: Path) -> str:
    """The `--html` page of compile id 9 (`sum4`, C2) with these `--source-path` folders."""
    folders = [arg for folder in source_path for arg in ("--source-path", str(folder))]
    code, _, err = run_cli(str(dump), "--compile-id", "9", "--html", str(out), *folders, "-q")
    assert code == 0, err
    return out.read_text(encoding="utf-8")


def _model(page: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="model">(.*?)</script>', page, re.S)
    assert match is not None
    return json.loads(match.group(1))  # type: ignore[no-any-return]


def _secret(folder: Path, name: str = "Secret.java") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"public class Secret {{ /* {MARKER} */ }}\n", encoding="utf-8")
    return path


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside every source folder whose absolute path spells as a class name: `/tmp/asmcfg…` (mkdtemp's
    names are letters, digits and `_`, never a dot)."""
    folder = Path(tempfile.mkdtemp(prefix="asmcfg", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("spell", [
    lambda path: "." + ".".join(path.parts[1:]),  # .tmp.asmcfgX.Secret -> /tmp/asmcfgX/Secret.java
    lambda path: ".." + ".".join(path.parts[1:]),  # ..tmp.asmcfgX.Secret -> //tmp/asmcfgX/Secret.java
    str,  # /tmp/asmcfgX/Secret: the internal form
], ids=["leading-dot", "two-leading-dots", "slashes"])
def test_a_class_name_spelling_an_absolute_path_reads_nothing(tmp_path: Path, outside: Path, spell: Any) -> None:
    _secret(outside)
    empty = tmp_path / "src"
    empty.mkdir()
    crafted = spell(outside / "Secret")
    page = _page(_dump(tmp_path, crafted), tmp_path / "page.html", empty)
    model = _model(page)
    assert model["methods"][0]["name"] == f"{crafted}::sum4", "the crafted name reached the report"
    assert MARKER not in page
    assert model["sources"] == {} and model["methods"][0]["page"]["files"] == {}


@pytest.mark.parametrize("crafted", ["..x.Secret", "x..Secret", "x.Secret.", "x\\..\\Secret", "x/../Secret",
                                     "Secret/0x0000000800c01000", "x.Se cret"])
def test_a_class_name_that_is_not_a_binary_name_names_no_file(crafted: str) -> None:
    assert java_file(f"{crafted}::sum4") is None


def test_binary_names_name_their_top_level_class_file() -> None:
    assert java_file("com.x.Foo$Inner::m") == "com/x/Foo.java"
    assert java_file("com.x.Foo$$Lambda$14::m") == "com/x/Foo.java"
    assert java_file("$Gen::m") == "$Gen.java"
    assert java_file("Tensor4D::sum4") == "Tensor4D.java"


def test_a_name_with_dotdot_does_not_climb_out_of_the_folder(tmp_path: Path) -> None:
    _secret(tmp_path / "x")
    (tmp_path / "src").mkdir()
    page = _page(_dump(tmp_path, "..x.Secret"), tmp_path / "page.html", tmp_path / "src")
    assert MARKER not in page
    assert _model(page)["sources"] == {}


def test_a_symlinked_file_leading_out_of_the_folder_is_not_followed(tmp_path: Path) -> None:
    secret = _secret(tmp_path / "outside", "Tensor4D.java")
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "Tensor4D.java").symlink_to(secret)
    page = _page(_dump(tmp_path, "Tensor4D"), tmp_path / "page.html", folder)
    assert MARKER not in page
    assert _model(page)["sources_missing"] == ["Tensor4D.java"]


def test_a_symlinked_folder_leading_out_of_the_folder_is_not_followed(tmp_path: Path) -> None:
    _secret(tmp_path / "outside")
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "lib").symlink_to(tmp_path / "outside", target_is_directory=True)
    page = _page(_dump(tmp_path, "lib.Secret"), tmp_path / "page.html", folder)
    assert MARKER not in page
    assert _model(page)["sources_missing"] == ["lib/Secret.java"]


def test_a_source_inside_the_folder_is_shown_through_symlinks_that_stay_inside(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    (folder / "real" / "pkg").mkdir(parents=True)
    shutil.copy(SOURCE, folder / "real" / "pkg" / "Tensor4D.java")
    (folder / "pkg").symlink_to(folder / "real" / "pkg", target_is_directory=True)
    link = tmp_path / "link"
    link.symlink_to(folder, target_is_directory=True)
    page = _page(_dump(tmp_path, "pkg.Tensor4D"), tmp_path / "page.html", link)
    assert _model(page)["sources"] == {"pkg/Tensor4D.java": SOURCE.read_text(encoding="utf-8").split("\n")[:-1]}


def test_a_plain_class_shows_its_source(tmp_path: Path) -> None:
    page = _page(DUMP, tmp_path / "page.html", SOURCE.parent)
    model = _model(page)
    assert model["methods"][0]["page"]["files"] == {"Tensor4D::sum4": "Tensor4D.java"}
    assert model["sources"]["Tensor4D.java"][8] == "                        s += t[a][b][c][d];"


def test_java_lines_break_at_cr_lf_and_crlf_only() -> None:
    text = "a\rb\r\nc\nd\fe\u2028f\u2029g\x1ch\x1di\x1ej\x85k\vl\n"
    assert java_lines(text) == ("a", "b", "c", "d\fe\u2028f\u2029g\x1ch\x1di\x1ej\x85k\vl")
    assert java_lines("") == ()
    assert java_lines("x\n\n") == ("x", "")


def test_the_page_numbers_source_lines_as_javac_does(tmp_path: Path) -> None:
    """A form feed and a U+2028 in the comment before the methods: each line the dump names (`(line 9)`) shows the
    text of the file's line 9, in the source pane's data and in the block tooltips."""
    original = SOURCE.read_text(encoding="utf-8").split("\n")
    folder = tmp_path / "src"
    folder.mkdir()
    edited = SOURCE.read_text(encoding="utf-8").replace("4D tensor sum", "4D\ftensor\u2028sum", 1)
    assert edited.count("\f") == edited.count("\u2028") == 1
    (folder / "Tensor4D.java").write_text(edited, encoding="utf-8", newline="")
    page = _page(DUMP, tmp_path / "page.html", folder)
    model = _model(page)
    shown = model["sources"]["Tensor4D.java"]
    assert shown[0] == "// DEV: 4D\ftensor\u2028sum with range checks on every dimension."
    assert shown[1:] == original[1:-1]
    lines = {f["line"] for b in model["methods"][0]["blocks"] for i in b["instructions"] for f in i.get("frames") or []
             if f["method"] == "Tensor4D::sum4" and f["line"] is not None}
    assert lines == {5, 6, 7, 8, 9}
    assert all(shown[line - 1] == original[line - 1] for line in lines)
    tips = {(int(n), html.unescape(text)) for n, text in re.findall(r"Tensor4D::sum4 line (\d+):  ([^\n<]*)", page)}
    assert {n for n, _ in tips} >= {5, 6, 7, 8}
    assert all(text == original[n - 1].strip() for n, text in tips)
