"""Character references and numbers no JVM writes, crafted into real dumps: never an internal error.

A character reference to a character XML does not allow (beyond U+10FFFF, a surrogate, NUL, a number of
thousands of digits) reads as U+FFFD, as an undecodable byte does, in attributes and inside `<tty>` alike, in both
builds. A decimal number of more digits than HotSpot or JMH prints (5,000 here, past Python's 4,300-digit
limit for `int()`) is refused by the reader's pattern: the field is not read, everything else is.
"""

from __future__ import annotations

import gzip
import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, run_cli
from native import built

from asmcfg.cli import INTERNAL_ERROR
from asmcfg.dialects.annotations import FRAME_FIELDS, _read_notes
from asmcfg.dialects.logcompilation import logxml
from asmcfg.dialects.logcompilation.logxml import Tag, unescape
from asmcfg.model import Frame

comments = importlib.import_module("asmcfg.dialects.annotations")
"""The comment reader's module (`asmcfg.dialects.annotations` is also the package's `__future__` feature)."""
HUGE = "9" * 5000
FFFD = "\ufffd"
REFERENCES = ("&#99999999999999999999;", "&#x110000;", "&#xD800;", "&#0;", f"&#{HUGE};", f"&#x{HUGE};")


def crafted(tmp_path: Path, source: Path, line: int, old: str, new: str, name: str = "crafted.txt") -> str:
    """A copy of a real dump with `old` replaced by `new` on line `line` (1-based)."""
    raw = gzip.decompress(source.read_bytes()) if source.suffix == ".gz" else source.read_bytes()
    lines = raw.decode("utf-8").split("\n")
    assert old in lines[line - 1], lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    path = tmp_path / name
    path.write_text("\n".join(lines), encoding="utf-8")
    return str(path)


def runs_clean(path: str, *args: str) -> tuple[str, str]:
    """`asmcfg PATH ARGS`: exit 0, nothing on stderr but what -q leaves, no traceback; (stdout, stderr)."""
    code, out, err = run_cli(path, *args, "-q")
    assert code == 0 and code != INTERNAL_ERROR, err
    assert "Traceback" not in err and "internal error" not in err
    return out, err


def methods(path: str, *args: str) -> list[dict[str, Any]]:
    out, _ = runs_clean(path, "--all", *args, "--json", "-")
    found: list[dict[str, Any]] = json.loads(out)["methods"]
    return found


def every_output(tmp_path: Path, path: str, *args: str) -> list[dict[str, Any]]:
    """The run's --list, --html and --jsonl all succeed; its --json methods."""
    runs_clean(path, "--list")
    runs_clean(path, *args, "--html", str(tmp_path / "page.html"))
    runs_clean(path, "--jsonl", str(tmp_path / "all.jsonl"))
    return methods(path, *args)


# -- character references in a LogCompilation log ------------------------------------------------------------

EQ = DATA / "logc" / "jdk17-Eq-inlined-trap.xml.gz"
"""Compile id 3, `Eq::check`: its `<nmethod>` record on line 59, its printed header inside `<tty>` on line 63."""


@pytest.mark.parametrize("reference", REFERENCES, ids=lambda r: r[:14])
@pytest.mark.parametrize(("line", "old", "new"), [
    (63, "Eq::check", "Eq::ch{}eck"),  # inside <tty>: the printed header
    (59, "method='Eq check", "method='Eq ch{}eck"),  # an attribute of the <nmethod> record
], ids=["tty", "attribute"])
def test_a_reference_to_no_character_reads_as_the_replacement_character(
    tmp_path: Path, reference: str, line: int, old: str, new: str
) -> None:
    path = crafted(tmp_path, EQ, line, old, new.format(reference), "eq.xml")
    listing, _ = runs_clean(path, "--list")
    found = every_output(tmp_path, path, "--compile-id", "3")
    if line == 63:
        assert "Eq::ch\ufffdeck" in listing
        assert [m["name"] for m in found] == ["Eq::ch\ufffdeck"]
        assert "Eq::ch\ufffdeck" in (tmp_path / "page.html").read_text(encoding="utf-8")
    else:
        assert [(m["name"], m["compile_id"]) for m in found] == [("Eq::check", 3)]


def test_references_xml_allows_still_read_as_their_characters() -> None:
    assert unescape("a&#x41;&#66;&#x1F600;&#9;&lt;&#x10FFFF;") == "aAB\U0001f600\t<\U0010ffff"
    assert unescape("&#xD7FF;&#xE000;&#xFFFD;") == "\ud7ff\ue000\ufffd"
    assert unescape("&#xFFFE;&#xDFFF;&#x1;&#0000000065;") == f"{FFFD}{FFFD}{FFFD}A"


@pytest.fixture(scope="module")
def native_tags(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The compiled build's LogCompilation tag reader: installed, or built here."""
    if logxml.TAGS is not None:
        return logxml.TAGS
    source = Path(logxml.__file__).with_name("_tags.c")
    return built("asmcfg.dialects.logcompilation._tags", source, tmp_path_factory.mktemp("tags")).tags


@pytest.mark.parametrize("reference", REFERENCES, ids=lambda r: r[:14])
def test_the_c_tag_reader_replaces_the_same_references(native_tags: Any, reference: str) -> None:
    line = f"<nmethod compile_id='3' method='Eq ch{reference}eck (I)I' bytes='67'/>"
    found = native_tags(line, Tag, unescape)
    assert found == logxml._tags(line)
    assert found[0].attrs["method"] == "Eq ch\ufffdeck (I)I"


# -- numbers of 5,000 digits ---------------------------------------------------------------------------------

OSR = DATA / "hsdis" / "jdk17-RecOsr-print-hsdis-att.txt.gz"
"""Compile id 5 (`RecOsr::fib`, header on line 8, a scope line `; - RecOsr::fib@12 (line 3)` on line 82) and
compile id 7 (`RecOsr::main @ 37`, header on line 391)."""


def by_line(found: list[dict[str, Any]], line: int) -> dict[str, Any]:
    return next(m for m in found if m["line"] == line)


@pytest.mark.parametrize(("old", "new"), [
    ("      29    5", f"      {HUGE}    5"),  # timestamp
    ("      29    5", f"      29    {HUGE}"),  # compile id
], ids=["timestamp", "compile id"])
def test_a_header_with_a_huge_number_is_read_without_its_numbers(tmp_path: Path, old: str, new: str) -> None:
    found = every_output(tmp_path, crafted(tmp_path, OSR, 8, old, new))
    fib = by_line(found, 8)
    assert (fib["name"], fib["compile_id"], fib["bytecode_size"]) == ("RecOsr::fib", None, None)
    assert len(fib["blocks"]) > 1
    assert sorted(m["compile_id"] for m in found if m["line"] != 8) == [6, 7, 8, 9, 10]


def test_a_huge_bytecode_size_or_osr_bci_is_left_out(tmp_path: Path) -> None:
    path = crafted(tmp_path, OSR, 8, "(23 bytes)", f"({HUGE} bytes)")
    fib = by_line(every_output(tmp_path, path), 8)
    assert (fib["compile_id"], fib["bytecode_size"]) == (5, None)
    path = crafted(tmp_path, OSR, 391, "@ 37", f"@ {HUGE}")
    main = by_line(every_output(tmp_path, path), 391)
    assert (main["compile_id"], main["osr_bci"], main["flags"]) == (7, None, "%")


def frames(method: dict[str, Any]) -> list[tuple[str, int, int | None]]:
    """Every scope frame of the method's instructions."""
    found = [f for b in method["blocks"] for i in b["instructions"] for f in i.get("frames", ())]
    return sorted(((f["method"], f["bci"], f["line"]) for f in found), key=str)


@pytest.mark.parametrize(("old", "new", "becomes"), [
    ("fib@12", f"fib@{HUGE}", []),  # the bci: no frame read from this line
    ("(line 3)", f"(line {HUGE})", [("RecOsr::fib", 12, None)]),  # the line: the frame without it
], ids=["bci", "line"])
def test_a_scope_line_with_a_huge_number_is_not_read_as_one(
    tmp_path: Path, old: str, new: str, becomes: list[tuple[str, int, int | None]]
) -> None:
    fib = by_line(every_output(tmp_path, crafted(tmp_path, OSR, 82, old, new), "--compile-id", "5"), 8)
    original = by_line(methods(crafted(tmp_path, OSR, 82, old, old, "same.txt"), "--compile-id", "5"), 8)
    assert fib["compile_id"] == 5
    expected = list(frames(original))
    expected.remove(("RecOsr::fib", 12, 3))
    assert frames(fib) == sorted([*expected, *becomes], key=str)


@pytest.fixture(scope="module")
def native_notes(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The compiled build's comment reader: installed, or built here."""
    if comments.NOTES is not None:
        return comments.NOTES
    source = Path(comments.__file__).with_name("_build.c")
    return built("asmcfg.dialects._build", source, tmp_path_factory.mktemp("build")).notes


@pytest.mark.parametrize("comment", [
    f";*invokestatic fib\n; - RecOsr::fib@{HUGE} (line 3)",
    f"; - RecOsr::fib@12 (line {HUGE})",
    f"; - RecOsr::fib@{'9' * 21} (line {'9' * 21})",
    f"; - RecOsr::fib@{'9' * 20} (line {'9' * 20})",
    f"; - A::b@{'1' * 25}@7 (line 2)",
    f"; - RecOsr::fib@-{'9' * 30}",
], ids=["huge bci", "huge line", "21 digits", "20 digits", "second at", "negative"])
def test_the_c_comment_reader_refuses_the_same_numbers(native_notes: Any, comment: str) -> None:
    python = _read_notes(comment)
    found = native_notes(comment, Frame, FRAME_FIELDS)
    assert found is not None and tuple(found) == (python.relocs, python.bytecode, python.frames, python.implicit_target)
    assert all(len(str(abs(f.bci))) <= 20 and (f.line is None or len(str(f.line)) <= 20) for f in python.frames)


PERFASM = DATA / "perfasm" / "jdk17-DevBench" / "perfasm-console.txt"
"""JMH perfasm: `# VM version` on line 2, `Column 1: cpu-clock (1898 events)` on line 30, region 1 on line 35,
its title (compile id 513) on line 36, its total on line 220, the Hottest Regions row on line 223."""


@pytest.mark.parametrize(("line", "old", "new"), [
    (30, "(1898 events)", f"({HUGE} events)"),
    (30, "Column 1:", f"Column {HUGE}:"),
    (30, "Column 1:", "Column 99999999:"),
    (35, "Region 1]", f"Region {HUGE}]"),
    (36, "compile id 513", f"compile id {HUGE}"),
    (36, "version 5", f"version {HUGE}"),
    (220, "region 1>", f"region {HUGE}>"),
    (223, "compile id 513", f"compile id {HUGE}"),
    (2, "JDK 17.0.15", f"JDK {HUGE}.0.15"),
], ids=["count", "column", "column 99999999", "region", "title id", "version", "total", "share id", "jdk"])
def test_a_perfasm_number_of_5000_digits_is_not_read(tmp_path: Path, line: int, old: str, new: str) -> None:
    found = every_output(tmp_path, crafted(tmp_path, PERFASM, line, old, new))
    assert found and all(len(m["blocks"]) > 1 for m in found)
    assert all(m["compile_id"] is None or m["compile_id"] < 10**9 for m in found)


@pytest.mark.parametrize(("line", "old", "new"), [
    (59, "compile_id='3'", f"compile_id='{HUGE}'"),
    (59, "bytes='67'", f"bytes='{HUGE}'"),
    (59, "stub_offset='2448'", f"stub_offset='{HUGE}'"),
    (63, "(c2)      62    3", f"(c2)      62    {HUGE}"),
    (343, "osr_bci='45'", f"osr_bci='{HUGE}'"),
    (352, "bci='49'", f"bci='{HUGE}'"),
], ids=["record id", "record bytes", "record offset", "printed id", "osr bci", "jvms bci"])
def test_a_logcompilation_number_of_5000_digits_is_not_read(tmp_path: Path, line: int, old: str, new: str) -> None:
    found = every_output(tmp_path, crafted(tmp_path, EQ, line, old, new, "eq.xml"))
    assert "Eq::check" in [m["name"] for m in found]
    assert all(m["compile_id"] is None or m["compile_id"] < 10**9 for m in found)


NOHSDIS = DATA / "nohsdis" / "jdk17-RecOsr-print-nohsdis.txt"
"""[MachCode] hex: `RecOsr::fib`'s header on line 8, a hex row at 0x00007f1b11400f0c on line 29, a scope line
`; - RecOsr::fib@12 (line 3)` on line 57."""


@pytest.mark.parametrize(("line", "old", "new"), [
    (8, "      29    5", f"      {HUGE}    5"),
    (57, "fib@12", f"fib@{HUGE}"),
    (29, "0x00007f1b11400f0c: 48bf", f"0x{'f' * 5000}: 48bf"),
    (29, "0x00007f1b11400f0c: 48bf", "0xfffffffffffffffffffff: 48bf"),
], ids=["timestamp", "bci", "hex address of 5000 digits", "hex address of 21 digits"])
def test_hex_dump_numbers_of_5000_digits_are_not_read(tmp_path: Path, line: int, old: str, new: str) -> None:
    found = every_output(tmp_path, crafted(tmp_path, NOHSDIS, line, old, new))
    fib = by_line(found, 8)
    assert fib["name"] == "RecOsr::fib" and len(fib["blocks"]) > 1
    assert all(int(i["address"], 16) < 1 << 64 for b in fib["blocks"] for i in b["instructions"])


# -- hex numbers outside the rows ----------------------------------------------------------------------------

HSDIS_OSR = DATA / "hsdis" / "jdk17-RecOsr-print-hsdis-att.txt.gz"
"""hsdis text: `RecOsr::fib`'s section table, line 12 `stub code [0x00007f7911401220,0x00007f7911401290] = 112`
(the end of its code)."""


@pytest.mark.parametrize("digits", [17, 5000])
def test_a_section_address_of_more_than_64_bits_is_not_read(tmp_path: Path, digits: int) -> None:
    """A code end of thousands of hex digits made the code size and the early-end note numbers no string could
    hold (exit 4); it is no section line now, and the method's other sections still bound it."""
    path = crafted(tmp_path, HSDIS_OSR, 12, "0x00007f7911401290", "0x" + "f" * digits)
    found = every_output(tmp_path, path)
    fib = by_line(found, 8)
    assert fib["name"] == "RecOsr::fib" and len(fib["blocks"]) > 1
    assert all(int(i["address"], 16) < 1 << 64 for b in fib["blocks"] for i in b["instructions"])


def test_numbers_no_disassembler_prints_in_a_loop_leave_its_labels_unread_not_a_traceback(tmp_path: Path) -> None:
    # the loop passes read strides, displacements, scales and vector registers from operand text: a crafted
    # immediate, a 5,000-digit displacement and scale, and a register numbered with 5,000 digits in Tensor4D's
    # C2 sum4 leave those accesses unread and the run goes on
    text = gzip.decompress((DATA / "hsdis" / "jdk17-Tensor4D-print-hsdis-att.txt.gz").read_bytes()).decode()
    huge = "1" * 5000
    text = text.replace("incl\t\t%r8d", "addl\t\t$0xNfN, %r8d").replace("incl\t\t%ebx", f"addl\t\t${huge}, %ebx")
    text = text.replace("0x10(%rsi, %r8, 4)", f"0x{huge}(%rsi, %r8, {huge})")
    text = text.replace("0x10(%rbp, %rbx, 4)", f"0x10(%rbp, %rbx, 4), %xmm{huge}")
    crafted = tmp_path / "crafted.txt"
    crafted.write_text(text)
    code, out, err = run_cli(str(crafted), "--all", "--json", "-", "-q")
    assert code == 0, err
    assert {m["compile_id"] for m in json.loads(out)["methods"]} == {5, 6, 7, 8, 9, 10}
