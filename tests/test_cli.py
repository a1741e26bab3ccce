"""The command line: listing, selection, stdin, outputs."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import HSDIS, json_methods, run_cli

from asmcfg.run import wholelog

FULL = HSDIS / "jdk17-Tensor4D-printassembly-full.txt.gz"
TENSOR = HSDIS / "jdk17-Tensor4D-print-hsdis-att.txt.gz"


def test_list_shows_every_compilation_with_its_columns() -> None:
    code, out, _ = run_cli(str(TENSOR), "--list")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:] if line.strip()]
    assert [(r[0], r[1]) for r in rows] == [
        ("c1", "5"),
        ("c1", "7"),
        ("c1", "6"),
        ("c2", "8"),
        ("c2", "9"),
        ("c2", "10"),
    ]
    osr = rows[3]
    assert osr[2:6] == ["4", "40", "%", "97"]
    assert osr[6:] == ["1344", "359", "926", "Tensor4D::sum4"], "main code, instructions, line, method"


def test_default_takes_the_last_c2_compilation_and_says_so() -> None:
    code, _, err = run_cli(str(TENSOR), "--dot", "-")
    assert code == 0
    assert "of 6 compilations in the input" in err
    assert "c2 id 10 tier 4 Tensor4D::sumDiag" in err


def test_method_glob_bare_name_and_compiler_select() -> None:
    assert [m["compile_id"] for m in json_methods(str(TENSOR), "--all", "--method", "sum4")] == [5, 7, 8, 9]
    assert [m["compile_id"] for m in json_methods(str(TENSOR), "--all", "--method", "Tensor4D::sum*")] == [
        5,
        7,
        6,
        8,
        9,
        10,
    ]
    assert [m["compile_id"] for m in json_methods(str(TENSOR), "--all", "--compiler", "c1")] == [5, 7, 6]
    (chosen,) = json_methods(str(TENSOR), "--method", "sum4")
    assert chosen["compile_id"] == 9


def test_whole_run_log_skips_chatter_and_reads_every_compilation() -> None:
    methods = json_methods(str(FULL), "--all")
    assert len(methods) == 11
    assert [m["compiler"] for m in methods].count("c1") == 7
    assert [m["compiler"] for m in methods].count("c2") == 3
    (native,) = [m for m in methods if m["compiler"] == "native"]
    assert (native["name"], native["flags"], native["level"]) == (
        "jdk.internal.misc.Unsafe::getReferenceVolatile",
        "n",
        0,
    )


def test_stdin_gives_the_same_model_as_the_file(tmp_path: Path) -> None:
    data = gzip.decompress(TENSOR.read_bytes())
    done = subprocess.run(
        [sys.executable, "-m", "asmcfg", "--compile-id", "9", "--json", "-", "-q"],
        input=data,
        capture_output=True,
        check=True,
    )
    from_stdin = json.loads(done.stdout)["methods"][0]
    (from_file,) = json_methods(str(TENSOR), "--compile-id", "9")
    assert from_stdin["counts"] == from_file["counts"]
    assert from_stdin["source"] == "<stdin>"


def test_intel_and_att_give_the_same_graph_shape() -> None:
    att = json_methods(str(HSDIS / "jdk17-Switches-print-hsdis-att.txt.gz"), "--all", "--compiler", "c2")
    intel = json_methods(str(HSDIS / "jdk17-Switches-print-hsdis-intel.txt.gz"), "--all", "--compiler", "c2")
    dense_att = next(m for m in att if m["name"] == "Switches::dense")
    dense_intel = next(m for m in intel if m["name"] == "Switches::dense")
    assert dense_intel["syntax"] == "intel" and dense_att["syntax"] == "att"
    kinds = [e["kind"] for e in dense_att["edges"]]
    assert kinds == [e["kind"] for e in dense_intel["edges"]]
    assert kinds.count("indirect") == 10


def test_jsonl_streams_the_same_methods_as_json_all_in_input_order() -> None:
    code, out, _ = run_cli(str(TENSOR), "--jsonl", "-", "-q")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert all(line["schema"] == 1 for line in lines)
    document = json_methods(str(TENSOR), "--all")
    assert [(m["compile_id"], m["counts"]) for m in lines] == [(m["compile_id"], m["counts"]) for m in document]


def test_brackets_in_names_are_shown_as_printed_not_as_console_markup(tmp_path: Path) -> None:
    text = gzip.decompress(TENSOR.read_bytes()).decode()
    evil = text.replace("Tensor4D::sumDiag (43 bytes)", "Evil::[/x][bold]m[/] (43 bytes)")
    path = tmp_path / "evil.txt"
    path.write_text(evil)
    code, _, err = run_cli(str(path), "--compile-id", "10", "--dot", "-")
    assert code == 0
    assert "c2 id 10 tier 4 Evil::[/x][bold]m[/] (43 bytes)" in err
    code, out, _ = run_cli(str(path), "--list")
    assert code == 0 and "Evil::[/x][bold]m[/]" in out


def test_large_inputs_are_listed_from_the_header_index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    plain = tmp_path / "full.txt"
    plain.write_bytes(gzip.decompress(FULL.read_bytes()))
    code, parsed, _ = run_cli(str(plain), "--list")
    monkeypatch.setattr(wholelog, "INDEX_BYTES", 0)
    code_index, indexed, _ = run_cli(str(plain), "--list")
    assert code == code_index == 0
    assert indexed.splitlines()[0].split() == parsed.splitlines()[0].split()
    by_parse = [(r.split()[0], r.split()[1], r.split()[-2]) for r in parsed.splitlines()[1:]]
    by_index = [(r.split()[0], r.split()[1], r.split()[-2]) for r in indexed.splitlines()[1:]]
    assert by_index == by_parse and len(by_index) == 11, "compiler, id and line"
    lines = plain.read_bytes().split(b"\n")
    assert all(lines[int(line) - 1].startswith(b"Compiled method") for _, _, line in by_index)
