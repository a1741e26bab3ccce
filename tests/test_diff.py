"""`asmcfg diff`: real pairs of compilations, matched by debug info, reported and gated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from corpus import DATA, HSDIS, run_cli

from asmcfg.cli import main

SHAPES = str(HSDIS / "jdk17-Shapes-print-hsdis-att.txt.gz")
TENSOR17 = str(HSDIS / "jdk17-Tensor4D-print-hsdis-att.txt.gz")
TENSOR25 = str(HSDIS / "jdk25-Tensor4D-print-hsdis-att.txt.gz")
RECOSR = str(HSDIS / "jdk17-RecOsr-print-hsdis-att.txt.gz")
RING_BEFORE = str(DATA / "diff" / "jdk17-Ring-before-nohsdis.txt")
RING_AFTER = str(DATA / "diff" / "jdk17-Ring-after-nohsdis.txt")


def diff_json(*args: str) -> dict[str, Any]:
    code, out, err = run_cli("diff", *args, "--json", "-", "-q")
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    assert document["diff_schema"] == 3
    return document


def changes(document: dict[str, Any], what: str, change: str) -> list[dict[str, Any]]:
    return [c for c in document["changes"] if c["what"] == what and c["change"] == change]


def where(item: dict[str, Any]) -> str:
    return " <- ".join(f"{f['method']}@{f['bci']}" for f in item["scope"])


def test_shapes_recompile_after_the_deopt_lost_the_inlined_area_and_its_class_check() -> None:
    # id 17 was compiled while every shape was a Circle: Circle.area inlined behind a class_check trap;
    # after the megamorphic phase, id 25 calls area through the interface and has no class_check left.
    doc = diff_json(SHAPES, "--compile-id", "17", "--compile-id", "25")
    assert (doc["old"]["compile_id"], doc["new"]["compile_id"]) == (17, 25)
    removed = changes(doc, "trap", "removed")
    assert [(t["old"]["reason"], t["old"]["bytecode"], where(t["old"])) for t in removed] == [
        ("class_check", "invokeinterface area", "Shapes::total@27")
    ]
    assert changes(doc, "trap", "added") == []
    (lost,) = changes(doc, "call", "not_inlined")
    assert lost["old"] == {"inlined": True, "callee": "area", "scope": [{"method": "Shapes::total", "bci": 27}],
                           "evidence": "debug info", "log_reason": None}
    assert (lost["new"]["kind"], lost["new"]["callee"], where(lost["new"])) == ("interface", "area", "Shapes::total@27")
    # the call is a safepoint, so C2 dropped the loop's poll at the back branch
    (poll,) = changes(doc, "poll", "removed")
    assert where(poll["old"]) == "Shapes::total@37"
    hot = doc["loops"][0]
    assert hot["matched_by"] == "debug info" and hot["status"] == "changed"
    assert (hot["old"]["calls"], hot["new"]["calls"]) == (0, 1)
    assert (hot["old"]["null_checks"], hot["new"]["null_checks"]) == (4, 1)


def test_not_inlined_gate_names_the_call_and_exits_5() -> None:
    code, _, err = run_cli("diff", SHAPES, "--compile-id", "17", "--compile-id", "25", "-q",
                           "--fail-on", "not-inlined,new-trap")
    assert code == 5
    assert "--fail-on not-inlined: interface call area at Shapes::total@27" in err
    assert "new-trap" not in err


def test_jdk17_against_jdk25_sum4_range_checks_leave_the_loops_and_it_vectorizes() -> None:
    doc = diff_json(TENSOR17, TENSOR25, "--old-compile-id", "9", "--new-compile-id", "12")
    assert (doc["old"]["jdk"], doc["new"]["jdk"]) == (17, 25)
    matched = [p for p in doc["loops"] if p["old"] and p["new"]]
    assert [p["matched_by"] for p in matched] == ["debug info"] * 3 + ["outer loop"]
    assert sum(p["old"]["range_checks"] for p in matched) == 20
    assert sum(p["new"]["range_checks"] for p in matched) == 0
    assert all(p["old"]["vector"] is None for p in matched)
    # JDK 17's one innermost loop pairs with JDK 25's main loop (the strip-mined outer loop holds its debug
    # info), which alone does the 256-bit long adds; the loops around it stay scalar
    inner = matched[3]
    assert (inner["old"]["header"], inner["old"]["role"], inner["new"]["header"], inner["new"]["role"]) == (
        13, None, 28, "main")
    assert inner["new"]["vector"] == {"bits": 256, "element": "long", "isa": "avx"}
    assert (inner["old"]["range_checks"], inner["new"]["range_checks"]) == (3, 0)
    assert all(p["new"]["vector"] is None for p in matched[:3])
    added = {p["new"]["role"] for p in doc["loops"] if p["status"] == "added"}
    assert added == {"pre", "post", "strip_mined_outer"}
    left = {(c["old"]["bytecode"], where(c["old"])) for c in changes(doc, "check", "left_loop")}
    assert ("iaload", "Tensor4D::sum4@67") in left and ("aaload", "Tensor4D::sum4@61") in left
    added = sorted(where(t["new"]) for t in changes(doc, "trap", "added"))
    assert added == ["Tensor4D::sum4@19", "Tensor4D::sum4@34", "Tensor4D::sum4@52"]
    assert {t["new"]["reason"] for t in changes(doc, "trap", "added")} == {"predicate"}


def test_lost_vector_gate_in_the_reverse_direction() -> None:
    code, _, err = run_cli("diff", TENSOR25, TENSOR17, "--old-compile-id", "12", "--new-compile-id", "9", "-q",
                           "--fail-on", "lost-vector")
    assert code == 5
    lines = [line for line in err.splitlines() if "--fail-on lost-vector" in line]
    assert lines == ["asmcfg diff: --fail-on lost-vector: loop B28 (main loop x2) -> B13: 256-bit vectors -> scalar"]


def test_osr_against_standard_compile_of_recosr_main() -> None:
    doc = diff_json(RECOSR, "--compile-id", "8", "--compile-id", "9")
    assert (doc["old"]["osr_bci"], doc["new"]["osr_bci"]) == (37, None)
    (loop,) = [p for p in doc["loops"] if p["status"] != "added"]
    assert loop["matched_by"] == "debug info" and (loop["old"]["polls"], loop["new"]["polls"]) == (1, 0)
    (call,) = changes(doc, "call", "added")
    assert (call["new"]["kind"], call["new"]["callee"], where(call["new"])) == ("static", "fib", "RecOsr::main@18")
    (poll,) = changes(doc, "poll", "removed")
    assert where(poll["old"]) == "RecOsr::main@86"


def test_osr_against_standard_compile_of_tensor4d_sum4() -> None:
    doc = diff_json(TENSOR17, "--compile-id", "8", "--compile-id", "9")
    assert (doc["old"]["osr_bci"], doc["new"]["osr_bci"]) == (40, None)
    assert (doc["old"]["main_code_bytes"], doc["new"]["main_code_bytes"]) == (1344, 864)
    assert all(p["old"] and p["new"] for p in doc["loops"][:4])


def test_c1_against_c2_of_sum4() -> None:
    doc = diff_json(TENSOR17, "--compile-id", "7", "--compile-id", "9")
    assert (doc["old"]["compiler"], doc["old"]["level"], doc["new"]["compiler"], doc["new"]["level"]) == (
        "c1", 3, "c2", 4)
    assert len(doc["loops"]) == 4 and all(p["matched_by"] == "debug info" for p in doc["loops"])
    # C1's profiling (counter overflow stub calls) is gone from the C2 code; its null checks throw, C2's trap
    removed_calls = [c["old"]["callee"] for c in changes(doc, "call", "removed")]
    assert removed_calls.count("counter_overflow Runtime1 stub") == 5
    assert {t["old"]["action"] for t in changes(doc, "trap", "removed")} == {"throw"}
    assert {(t["new"]["reason"], t["new"]["action"]) for t in changes(doc, "trap", "added")} >= {
        ("null_check", "maybe_recompile"), ("range_check", "make_not_entrant"), ("predicate", "maybe_recompile")}


def test_ring_rewrite_takes_the_range_checks_out_of_the_loop() -> None:
    doc = diff_json(RING_BEFORE, RING_AFTER, "--compiler", "c2", "--method", "sum")
    assert doc["old"]["compile_id"] == 8 and doc["new"]["compile_id"] == 9
    left = changes(doc, "check", "left_loop")
    assert len(left) == 5
    assert {(c["old"]["kind"], c["old"]["bytecode"], where(c["old"])) for c in left} == {
        ("range_check", "iaload", "Ring::sum@35")}
    assert all(c["new"] is None for c in left)
    assert all(p["new"]["range_checks"] == 0 for p in doc["loops"] if p["new"])
    assert changes(doc, "check", "entered_loop") == []


def test_check_in_loop_gate_holds_on_the_reverse_rewrite_across_shifted_bcis() -> None:
    ok, _, _ = run_cli("diff", RING_BEFORE, RING_AFTER, "--compiler", "c2", "--method", "sum", "-q",
                       "--fail-on", "check-in-loop")
    assert ok == 0
    code, _, err = run_cli("diff", RING_AFTER, RING_BEFORE, "--compiler", "c2", "--method", "sum", "-q",
                           "--fail-on", "check-in-loop")
    assert code == 5
    named = [line for line in err.splitlines() if line.startswith("asmcfg diff: --fail-on check-in-loop: ")]
    assert len(named) == 5
    assert all("range_check of iaload at Ring::sum@35, in loop" in line for line in named)


def test_grew_gate_compares_code_size() -> None:
    code, _, err = run_cli("diff", RECOSR, "--compile-id", "8", "--compile-id", "9", "-q", "--fail-on", "grew:25")
    assert code == 5 and "main code 224 -> 288 B (+28.6% > 25%)" in err
    code, _, _ = run_cli("diff", RECOSR, "--compile-id", "8", "--compile-id", "9", "-q", "--fail-on", "grew:29")
    assert code == 0


def test_table_on_stderr_names_both_compilations_and_the_changes() -> None:
    code, out, err = run_cli("diff", SHAPES, "--compile-id", "17", "--compile-id", "25")
    assert code == 0 and out == ""
    assert "old: c2 id 17 tier 4 Shapes::total (42 bytes)" in err
    assert "new: c2 id 25 tier 4 Shapes::total (42 bytes)" in err
    assert "│ main code B    │ 608 → 288 │ -52.6% │" in err
    assert "no longer inlined" in err


def test_usage_errors_and_help() -> None:
    code, out, _ = run_cli("--help")
    assert code == 0 and "asmcfg [OPTIONS] [FILE]" in out and "asmcfg diff [OPTIONS] OLD [NEW]" in out
    code, out, _ = run_cli("diff", "--help")
    assert code == 0 and "--old-compile-id" in out and "--fail-on" in out
    code, _, err = run_cli("diff", SHAPES, "--compile-id", "17")
    assert code == 2 and "one input needs two compilations" in err
    code, _, err = run_cli("diff", SHAPES, "--compile-id", "17", "--compile-id", "25", "--fail-on", "slower")
    assert code == 2 and "'slower' is not a condition" in err


def test_missing_compilation_is_one_line_and_keeps_existing_output(tmp_path: Path) -> None:
    target = tmp_path / "diff.json"
    target.write_text("kept")
    code, _, err = run_cli("diff", SHAPES, "--compile-id", "17", "--compile-id", "99", "--json", str(target))
    assert code == 1
    assert err.count("\n") == 1 and "compile id 99" in err
    assert target.read_text() == "kept"


def test_plain_asmcfg_still_reads_stdin_and_files() -> None:
    code, out, _ = run_cli(SHAPES, "--compile-id", "25", "-q")
    assert code == 0 and out.startswith("digraph")
    piped = CliRunner().invoke(main, ["-q"], input=Path(RING_AFTER).read_text())
    assert piped.exit_code == 0 and piped.stdout.startswith("digraph") and "Ring::sum" in piped.stdout


def test_side_by_side_graph_aligns_matched_loops_and_colours_changes(tmp_path: Path) -> None:
    svg, dot_file = tmp_path / "shapes.svg", tmp_path / "shapes.dot"
    code, _, err = run_cli("diff", SHAPES, "--compile-id", "17", "--compile-id", "25", "-q", "--svg", str(svg),
                           "--dot", str(dot_file), "--renderer", "graphviz-pure")
    assert code == 0, err
    text = dot_file.read_text()
    assert "subgraph cluster_o {" in text and "subgraph cluster_n {" in text
    # the hot loops (old B6, new B7) are aligned and linked in amber: changed
    assert "{rank=same; o_b6; n_b7;}" in text
    assert 'o_b6 -> n_b7 [style="dashed" color="#f0a202"' in text
    assert 'label="loop B5: removed" color="#d62828"' in text
    # the call that is no longer inlined is amber (changed), the old class_check trap's folded chain red
    call_block = next(line for line in text.splitlines() if line.strip().startswith("n_b8 "))
    assert 'fillcolor="#ffefc2"' in call_block and "virtual_call" in call_block
    fold = next(line for line in text.splitlines() if line.strip().startswith("o_fold22 "))
    assert "class_check" in fold and 'fillcolor="#ffd6d6"' in fold
    assert svg.read_bytes().startswith(b"<?xml") or b"<svg" in svg.read_bytes()[:500]


def test_perfasm_sides_carry_loop_heat_and_vector_width() -> None:
    perfasm = DATA / "perfasm"
    doc = diff_json(str(perfasm / "jdk17-DevBench" / "perfasm-console.txt"),
                    str(perfasm / "jdk25-DevBench" / "perfasm-console.txt"), "--method", "*vecAddF_avgt_jmhStub")
    (hot,) = [p for p in doc["loops"] if p["old"] and p["old"]["role"] == "main"]
    assert hot["matched_by"] == "debug info" and (hot["old"]["unroll"], hot["new"]["header"]) == (None, 5)
    assert hot["old"]["vector"] == hot["new"]["vector"] == {"bits": 512, "element": "float", "isa": "avx512"}
    assert hot["old"]["heat"] > 85 and hot["new"]["heat"] > 85


@pytest.mark.slow
def test_profile_of_a_compilation_perfasm_did_not_print_keeps_the_savelog_heat() -> None:
    # compile id 485 is 93.55% of the run, but perfasm printed no line of it (region too big): the diff's
    # --old-profile takes the heat the saveLog's own lines carry, as `asmcfg SAVELOG --profile` does
    edge = DATA / "perfasm" / "jdk17-PerfasmEdge"
    savelog = edge / "toobig-perfasm-savelog-run.log.xz"
    code, _, err = run_cli("diff", str(savelog), str(savelog.resolve()), "--compile-id", "485",
                           "--old-profile", str(edge / "toobig-perfasm-console.txt"), "--json", "-")
    assert code == 0, err
    assert ("perfasm printed no line of compile id 485 (region too big: 1812 lines); the heat is the percentages "
            "printed on this input's own lines") in " ".join(err.split())
    assert "profile NOT applied" not in err
