"""One code size everywhere: the bytes of HotSpot's `main code` section (the nmethod's insts section), as the dump's
own section table prints it, in `--list` (read in full and from the header index), `--list --json`, the `serve`
index and its toplist, the two-log `serve` index, `asmcfg diff` (tables, JSON, `--fail-on grew`) and the whole-log
diff; and no other size where the input prints none.

The dumps are real (tests/data); the expected figures are read from their section tables here, with a regex."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, read_text, run_cli

import asmcfg
from asmcfg.run import wholelog
from asmcfg.run.diff import DiffOptions
from asmcfg.run.wholediff import compare
from asmcfg.serve import board, diffindex, rows

SHAPES = DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt"
"""Nine compilations of Shapes::total and Shapes::totalPerim, C1 and C2 (a C2 compilation's stubs follow its main
code: a size from the main code's start to the stubs' end is 24 bytes more)."""
TENSOR = tuple(str(DATA / "hsdis" / f"jdk{jdk}-Tensor4D-printassembly-full.txt.gz") for jdk in (17, 25))
LOG = DATA / "logc" / "jdk17-Tensor4D.xml.gz"
_HEADER = re.compile(r"Compiled method \([^)]*\)\s+\d+\s+(\d+)")


def sections(text: str, name: str) -> dict[int, int]:
    """Compile id -> the size its section table gives section `name` (0 without that row), read from the text."""
    found = {}
    for section in re.split(r"(?=^Compiled method \()", text, flags=re.M)[1:]:
        header = _HEADER.match(section)
        assert header is not None
        row = re.search(rf"^\s*{name}\s+\[[^]]*\]\s*=\s*(\d+)", section[:2000], re.M)
        found[int(header.group(1))] = int(row.group(1)) if row else 0
    return found


def main_code(text: str) -> dict[int, int]:
    """Compile id -> the `main code` row of its section table."""
    return sections(text, "main code")


SIZES = main_code(SHAPES.read_text(encoding="utf-8"))


def listed(*args: str) -> dict[int, Any]:
    code, out, err = run_cli(*args, "--list", "--json", "-")
    assert code == 0, err
    return {row["compile_id"]: row["main_code_bytes"] for row in json.loads(out)["compilations"]}


def test_the_dump_has_stubs_after_its_main_code() -> None:
    # what makes the figures worth comparing: a main code start to stub code end span is another, larger figure
    stubs = sections(SHAPES.read_text(encoding="utf-8"), "stub code")
    assert len(SIZES) == 9 and SIZES[15] == 864 and stubs[15] == 24
    assert sum(1 for n in SIZES if stubs[n]) >= 5


def test_list_shows_main_code_at_every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    assert listed(str(SHAPES)) == SIZES
    monkeypatch.setattr(wholelog, "INDEX_BYTES", 0)
    assert listed(str(SHAPES)) == SIZES
    code, out, _ = run_cli(str(SHAPES), "--list", "--compile-id", "15")
    assert code == 0 and "main code B" in out.splitlines()[0] and " 864 " in out.splitlines()[1]


def test_a_logcompilation_log_gives_the_main_code_of_its_printed_tables_and_records() -> None:
    text = read_text(LOG)
    printed = main_code(text.replace("&lt;", "<").replace("&gt;", ">"))
    insts = {int(m.group(1)): int(m.group(3)) - int(m.group(2)) for m in re.finditer(
        r"<nmethod compile_id='(\d+)'.*? insts_offset='(\d+)' stub_offset='(\d+)'", text)}  # C1 and C2: stubs
    assert len(insts) >= 7 and {n: printed[n] for n in insts} == insts, "HotSpot's two records of one size agree"
    assert listed(str(LOG)) == printed


def test_serve_index_and_its_toplist_show_main_code() -> None:
    index = rows.build(asmcfg.open(str(SHAPES)))
    assert {entry.cells[2]: entry.cells[7] for entry in index.entries} == SIZES
    largest = board.Board(index).since(0)["toplists"]["largest"]
    assert [item["value"] for item in largest] == [f"{size} B" for size in sorted(SIZES.values(), reverse=True)]
    assert all(item["value"] == f"{SIZES[index.entries[item['row']].cells[2]]} B" for item in largest)


def test_diff_compares_main_code() -> None:
    code, out, err = run_cli("diff", str(SHAPES), "--old-compile-id", "15", "--new-compile-id", "17", "--json", "-")
    assert code == 0, err
    document = json.loads(out)
    assert document["diff_schema"] == 3
    assert (document["old"]["main_code_bytes"], document["new"]["main_code_bytes"]) == (SIZES[15], SIZES[17])
    assert "main code B" in err and f"{SIZES[15]} → {SIZES[17]}" in err
    code, _, err = run_cli("diff", str(SHAPES), "--old-compile-id", "17", "--new-compile-id", "15", "--fail-on",
                           "grew:10", "-q")
    growth = 100.0 * (SIZES[15] - SIZES[17]) / SIZES[17]
    assert code == 5 and f"main code {SIZES[17]} -> {SIZES[15]} B (+{growth:.1f}% > 10%)" in err


def test_the_whole_log_diff_and_serves_two_log_index_compare_main_code(tmp_path: Path) -> None:
    sizes = [main_code(read_text(Path(path))) for path in TENSOR]
    code, out, err = run_cli("diff", *TENSOR, "--json", "-", "-q")
    assert code == 0, err
    found = json.loads(out)
    assert found["diff_schema"] == 4 and found["ranked_by"] == "size"
    for pair in found["pairs"]:
        ids = (pair["old_compile_id"], pair["new_compile_id"])
        expected = [sizes[0][ids[0]], sizes[1][ids[1]]]
        assert pair["headline"]["main_code_bytes"] == expected, pair["method"]
        assert [pair["diff"]["old"]["main_code_bytes"], pair["diff"]["new"]["main_code_bytes"]] == expected
        assert pair["size"] == max(expected), "pairs are ranked by the larger side's main code"
    for side, lone in ((0, found["only_old"]), (1, found["only_new"])):
        assert all(m["main_code_bytes"] == sizes[side][m["compile_id"]] for m in lone)
    index = diffindex.build(compare(DiffOptions(old=TENSOR[0], new=TENSOR[1], quiet=True)))
    pairs = {(p["method"], p["compiler"], p["osr_bci"]): p for p in found["pairs"]}
    for row in index.rows:
        if row["kind"] == diffindex.PAIR:
            assert row["code"] == pairs[(row["method"], row["compiler"], row["osr"])]["headline"]["main_code_bytes"]
    summaries = [p["summary"] for p in found["pairs"] if p["headline"]["main_code_bytes"][0] !=
                 p["headline"]["main_code_bytes"][1]]
    assert summaries and all("main code " in s for s in summaries)


def test_no_size_where_the_input_prints_no_section_table() -> None:
    # perfasm output prints code without its nmethod's section table: no size rather than another one
    source = str(DATA / "perfasm" / "jdk17-DevBench" / "perfasm-console.txt")
    assert set(listed(source).values()) == {None}
    assert {entry.cells[7] for entry in rows.build(asmcfg.open(source)).entries} == {None}
