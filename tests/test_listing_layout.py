"""`--list` at every input size: one file listed from a full read and from the fast header index (as a file over
`wholelog.INDEX_BYTES` is) shows the same columns in the same order, the same rows in the same order with the same
figures (the index leaves `instructions` empty: it disassembles nothing), and `--list --json` writes the same rows.

The inputs are real dumps of tests/data, copied as plain files (the index numbers the lines of a mapped file)."""

from __future__ import annotations

import gzip
import json
import lzma
import mmap
import os
import re
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, run_cli

from asmcfg.dialects import numbering, passes
from asmcfg.run import wholelog

INPUTS = {
    "hsdis": DATA / "hsdis" / "jdk17-Tensor4D-printassembly-full.txt.gz",
    "machcode": DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt",
    "aarch64": DATA / "hsdis" / "jdk17-aarch64-RecOsr-print-hsdis.txt.gz",
    "logcompilation": DATA / "logc" / "jdk17-Tensor4D.xml.gz",
    "javac-log": DATA / "logc" / "javac-jdk17-excerpt.xml.gz",
}
"""One real input per dialect with a header index; the javac excerpt prints some compilations' headers after the
`<nmethod>` records of others (its index finds them in another order than a full read)."""
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
"""The read-only corpus beside the checkout, when there is one (its large logs are not copied into tests/data)."""


def plain(path: Path, tmp_path: Path) -> str:
    """`path` as a plain file (a compressed one decompressed into tmp_path)."""
    if path.suffix != ".gz":
        return str(path)
    copy = tmp_path / path.name.removesuffix(".gz")
    copy.write_bytes(gzip.decompress(path.read_bytes()))
    return str(copy)


def both(monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[str, str]:
    """stdout of `asmcfg ARGS` read in full, then listed from the header index."""
    code, parsed, err = run_cli(*args)
    assert code == 0, err
    with monkeypatch.context() as patched:
        patched.setattr(wholelog, "INDEX_BYTES", 0)
        code, indexed, err = run_cli(*args)
    assert code == 0, err
    return parsed, indexed


def table(text: str) -> tuple[list[str], list[dict[str, str]]]:
    """The columns of a `--list` table and each row's cells: a column is a run of character places that its label
    or a cell fills (the columns are two blanks apart, cells aligned left or right), the method the rest of a row."""
    header, *rows = text.splitlines()
    method = header.index("method")
    filled = [any(i < len(line) and line[i] != " " for line in rows) for i in range(method)]
    for label in re.finditer(r"\S+(?: \S+)*", header[:method]):  # `main code B` is one label
        filled[label.start() : label.end()] = [True] * (label.end() - label.start())
    spans: list[tuple[int, int | None]] = []
    for place, full in enumerate(filled):
        if full and (not spans or spans[-1][1] != place):
            spans.append((place, place + 1))
        elif full:
            spans[-1] = (spans[-1][0], place + 1)
    spans.append((method, None))
    columns = [header[start:end].strip() for start, end in spans]
    cells = [{c: row[start:end].strip() for c, (start, end) in zip(columns, spans, strict=True)} for row in rows]
    return columns, cells


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_both_listings_have_the_same_columns_rows_and_figures(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed, indexed = both(monkeypatch, plain(INPUTS[name], tmp_path), "--list")
    columns, rows = table(parsed)
    assert columns == ["compiler", "id", "tier", "osr", "flags", "bytecode", "main code B", "instructions", "line",
                       "method"]
    index_columns, index_rows = table(indexed)
    assert index_columns == columns
    assert all(row["instructions"].isdigit() for row in rows), "a full read counts the instructions"
    assert all(row["instructions"] == "" for row in index_rows), "the index reads no instruction"
    assert [{**r, "instructions": ""} for r in rows] == index_rows


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_list_json_rows_are_the_same_at_every_size(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = plain(INPUTS[name], tmp_path)
    parsed, indexed = (json.loads(text) for text in both(monkeypatch, path, "--list", "--json", "-"))
    assert parsed["schema"] == indexed["schema"] == 1
    full, fast = parsed["compilations"], indexed["compilations"]
    assert [list(row) for row in full] == [list(row) for row in fast]
    assert list(full[0]) == ["name", "compiler", "compile_id", "level", "osr_bci", "flags", "bytecode_size",
                             "main_code_bytes", "instructions", "line", "share", "run", "inlines", "printed"]
    assert all(isinstance(row["instructions"], int) for row in full)
    assert all(row["instructions"] is None for row in fast)
    assert [{**row, "instructions": None} for row in full] == fast
    _, text = both(monkeypatch, path, "--list")
    assert [row["line"] for row in full] == [int(r["line"]) for r in table(text)[1]], "the table's own figures"
    lines = Path(path).read_bytes().split(b"\n")
    assert all(b"Compiled method" in lines[row["line"] - 1] for row in fast), "each line is its header's"


def test_lines_counted_a_page_at_a_time_in_python_are_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = plain(INPUTS["javac-log"], tmp_path)
    expected = list(numbering.numbered_index(path))
    monkeypatch.setattr(numbering, "_HELD", mmap.PAGESIZE)  # counted and let go in many steps between two headers
    monkeypatch.setattr(passes, "_COUNT", None)  # counted by bytes.count, as without the C module `_lines`
    assert list(numbering.numbered_index(path)) == expected
    assert all(line is not None for _, line in expected) and len(expected) == 263
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        backwards = list(numbering.numbered([r for r, _ in expected[::-1]], view))
    assert backwards == expected[::-1], "out of line order, each number is still its own line's"


@pytest.mark.parametrize("native", [True, False], ids=["c", "python"])
def test_lines_counted_by_the_search_are_those_counted_between_headers(
    native: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from asmcfg.dialects import index

    if not native:  # the page counts and the header search without the C module `_lines`
        monkeypatch.setattr(numbering, "_BLOCKS", None)
        monkeypatch.setattr(index, "_FIND_ALL", None)
    for name in ("javac-log", "hsdis", "aarch64"):
        path = plain(INPUTS[name], tmp_path)
        with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
            between = list(numbering.numbered(numbering.in_line_order(index.index_file(path)), view))
        assert list(numbering.numbered_index(path)) == between and all(line for _, line in between)
        with monkeypatch.context() as split:  # searched and counted by two processes, in many windows
            split.setattr(index, "SPLIT_BYTES", 0)
            split.setattr(index, "BUFFER", 4 * mmap.PAGESIZE)
            assert list(numbering.numbered_index(path)) == between, name


def test_page_counts_that_do_not_cover_the_file_are_not_used() -> None:
    page = numbering.BLOCK
    assert numbering.blocks_before([(0, page, ([3],)), (page, 2 * page, ([1, 2],))], 3 * page) == [0, 3, 4, 6]
    assert numbering.blocks_before([(0, page, ([3],))], 3 * page) is None, "a window missing at the end"
    assert numbering.blocks_before([(page, page, ([3],))], page) is None, "nor at the start"
    assert numbering.blocks_before([(0, page, ([3],)), (page + 1, page, ([1],))], 2 * page + 1) is None


def test_list_json_to_a_file_and_its_usage(tmp_path: Path) -> None:
    source = str(INPUTS["machcode"])
    out = tmp_path / "rows.json"
    code, stdout, err = run_cli(source, "--list", "--json", str(out), "--compiler", "c2")
    assert (code, stdout) == (0, ""), err
    rows = json.loads(out.read_text())["compilations"]
    assert {row["compiler"] for row in rows} == {"c2"} and len(rows) == 7
    assert json.loads(out.read_text()) == json.loads(json.dumps(json.loads(out.read_text()), indent=1))
    assert out.read_text() == json.dumps(json.loads(out.read_text()), indent=1) + "\n", "as --json indents"
    code, _, err = run_cli(source, "--list", "--json", "-", "--svg", str(tmp_path / "g.svg"))
    assert code == 2 and "drop --svg" in err
    code, _, err = run_cli(source, "--list", "--json", str(out), "--compile-id", "999")
    assert code != 0 and json.loads(out.read_text())["compilations"] == rows, "a failed run leaves the file"


def test_heat_shares_and_runs_of_a_listing_read_in_full() -> None:
    source = str(DATA / "perfasm" / "jdk17-DevBench" / "perfasm-console.txt")
    code, out, err = run_cli(source, "--list", "--json", "-")
    assert code == 0, err
    rows = json.loads(out)["compilations"]
    assert all(row["share"] and row["run"] for row in rows), "perfasm measured and named each one's run"
    assert all(row["main_code_bytes"] is None for row in rows), "perfasm prints no section table"
    code, text, _ = run_cli(source, "--list")
    columns, cells = table(text)
    assert columns[-4:] == ["line", "share", "run", "method"] and [c["main code B"] for c in cells] == [""] * 3


@pytest.mark.slow
@pytest.mark.skipif(not (CORPUS / "large").is_dir(), reason="no shared corpus beside the checkout")
def test_a_large_log_is_listed_in_line_order_with_its_header_lines(tmp_path: Path) -> None:
    # a whole javac run's LogCompilation log (336 MB): the index searched on two cores, lines counted by the listing
    path = tmp_path / "javac.xml"
    with lzma.open(CORPUS / "large" / "javac-logcompilation-jdk17.xml.xz") as packed, open(path, "wb") as out:
        while chunk := packed.read(16 << 20):
            out.write(chunk)
    assert os.path.getsize(path) > wholelog.INDEX_BYTES
    code, out, err = run_cli(str(path), "--list", "--json", "-")
    assert code == 0, err
    rows: list[dict[str, Any]] = json.loads(out)["compilations"]
    assert len(rows) > 5000 and all(row["instructions"] is None for row in rows)
    lines = [row["line"] for row in rows]
    assert lines == sorted(lines), "the order of a full read: the header lines'"
    text = path.read_bytes().split(b"\n")
    for row in rows:
        line = text[row["line"] - 1]
        needle = b"Compiled method" if row["printed"] else b"<nmethod compile_id='%d'" % row["compile_id"]
        assert needle in line and (not row["printed"] or b" %d " % row["compile_id"] in line), row
