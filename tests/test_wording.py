"""What a user reads in the findings and the inlining tree: counts with the right number ("1 byte", "1 check sits",
"0 loop-predicate traps"), no "(s)", and C2's inlining reasons without the word "inline" twice."""

from __future__ import annotations

import pytest
from corpus import DATA, run_cli

from asmcfg import describe


def _findings(run: str, *args: str) -> str:
    code, out, err = run_cli(str(DATA / "findings" / run), "--findings", *args)
    assert code == 0, err
    return out


def test_inlining_tree_says_inline_once_and_counts_bytes() -> None:
    out = _findings("jdk17", "--compile-id", "50")  # Findings.java: allocHot() allocates a Point
    assert "\n     @15 Findings$Point::<init>  inlined (hot)  15 bytes  " in out
    assert "\n       @1 java.lang.Object::<init>  inlined (hot)  1 byte  0.00%\n" in out
    assert "inline (" not in out and "1 bytes" not in out


def test_findings_count_checks_traps_and_elements_in_words() -> None:
    out = _findings("jdk17", "--compile-id", "50")
    assert "cause: 1 check sits inside the loop at B9 (" in out and "so it could not hoist the check out of it" in out
    assert "- 0 loop-predicate traps before the loop: C2 hoisted no check out of it as a predicate" in out
    out = _findings("vectors17")
    assert "- 3 scalar element loads and stores in the loop's body: " in out
    assert "cause: 6 checks sit inside the loop at B2 (" in out and "- 1 loop-predicate trap before the loop" in out
    out = _findings("jdk17", "--compile-id", "30")
    assert "- its induction variable moves 8 elements per trip of the body" in out
    assert "(s)" not in out


def test_a_block_and_its_loop_are_each_said_in_a_sentence() -> None:
    out = _findings("jdk17", "--compile-id", "47")  # Findings.java: megaHot()'s virtual call in its loop
    assert "   - B7 took 2.50% of the run's samples; the loop at B6 took 3.47% of the run's samples\n" in out


@pytest.mark.parametrize(("inlined", "reason", "said"), [
    (True, "inline (hot)", "inlined (hot)"), (True, "inline", "inlined"), (True, "intrinsic", "inlined (intrinsic)"),
    (True, "force inline by annotation", "inlined (force inline by annotation)"),
    (False, "callee is too large", "NOT inlined: callee is too large"),
    (False, "inline (hot)", "NOT inlined: inline (hot)")])
def test_an_inlining_decision_names_its_reason_once(inlined: bool, reason: str, said: str) -> None:
    assert describe.decision_text(inlined, reason) == said


def test_serve_toplists_name_each_compilation_and_keep_the_finding_kind() -> None:
    from asmcfg.serve.board import Board
    from asmcfg.serve.opening import Row
    from asmcfg.serve.rows import Entry, Index

    method = "java.util.concurrent.ConcurrentHashMap::get"
    entries = [Entry(Row(i, method, 0), (n, "c2", i, 4, None, method, 10, 100, True)) for n, i in enumerate((7, 8))]
    board = Board(Index(entries))
    for i, heat in ((7, 50.0), (8, 30.0)):
        board.add({"compile_id": i, "name": method, "loops": 1, "traps": {}, "fired": 3, "fired_by": {"class_check": 3},
                   "checks": 0, "range": 0, "calls": 0, "not_inlined": [], "vector": 0, "heat": heat,
                   "findings": [[heat, None, f"check-in-loop {method}@12 line 3"]]})
    lists = board.since(0)["toplists"]
    short = describe.short_name(method)
    assert [e["text"] for e in lists["hottest"]] == [f"{short} (c2 id 7)", f"{short} (c2 id 8)"]
    first = lists["findings"][0]
    at = describe.short_name(f"{method}@12 line 3")
    assert first["text"] == f"check-in-loop {at} in {short} (c2 id 7)" and first["value"] == "50.00%"
    assert first["full"] == f"check-in-loop {method}@12 line 3 in {method} (c2 id 7)"
    assert [(e["text"], e["value"]) for e in lists["fired"]] == [
        (f"class_check in {short} (c2 id {i})", "3×") for i in (8, 7)], "× as the text's findings say it"
