"""Range checks of either polarity, checks paired through their loops in `asmcfg diff`, one decision for an
intrinsic that replaced a call: on dumps of tests/data/checks/ (Osr2.java, Checks.java; see SOURCES.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from corpus import DATA, run_cli

CHECKS = DATA / "checks"
LONGSTEP = {17: str(CHECKS / "longstep-jdk17.xml.gz"), 25: str(CHECKS / "longstep-jdk25.xml.gz")}
CHECKS_OSR = {17: str(CHECKS / "checks-jdk17.xml.gz"), 25: str(CHECKS / "checks-jdk25.xml.gz")}


def method_json(path: str, compile_id: int) -> dict[str, Any]:
    code, out, err = run_cli(path, "--compile-id", str(compile_id), "--json", "-", "-q")
    assert code == 0, err
    method: dict[str, Any] = json.loads(out)["methods"][0]
    return method


def diff_json(old: str, new: str, old_id: int, new_id: int) -> dict[str, Any]:
    code, out, err = run_cli("diff", old, new, "--compile-id", str(old_id), "--compile-id", str(new_id),
                             "--json", "-", "-q")
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def check_changes(document: dict[str, Any], change: str) -> list[tuple[int, int | None]]:
    """(bci, loop) of each check change of that kind, of the side the check is on."""
    found = []
    for c in document["changes"]:
        if c["what"] == "check" and c["change"] == change:
            item = c["new"] if change == "entered_loop" and c["old"] is None else c["old"] or c["new"]
            found.append((item["scope"][0]["bci"], item["loop"]))
    return found


@pytest.mark.parametrize(("jdk", "compile_id", "inner", "branch"), [(17, 26, 11, 12), (25, 32, 12, 13)])
def test_osr_loop_range_check_with_its_trap_after_a_jb_to_the_body_is_counted(
    jdk: int, compile_id: int, inner: int, branch: int
) -> None:
    # Osr2::longStep's OSR compilation: the inner loop `for (i = r & 3; i < a.length; i += step) s += a[i]` ends
    # in `cmpl; jb <body>` and the range_check trap (laload@28) follows the branch, on its not-taken side
    method = method_json(LONGSTEP[jdk], compile_id)
    blocks = {b["id"]: b for b in method["blocks"]}
    assert blocks[branch]["instructions"][-1]["mnemonic"] == "jb"
    trap = blocks[branch + 1]["trap"]
    assert (trap["reason"], trap["bytecode"], trap["bci"]) == ("range_check", "laload", 28)
    checked = {(e["from"], e["to"], e["kind"]) for e in method["edges"] if e["check"] == "range_check"}
    assert (branch, branch + 1, "fallthrough") in checked
    loop = next(lp for lp in method["loops"] if lp["header"] == inner)
    assert (loop["depth"], loop["range_checks"]) == (2, 1)


def test_diff_of_the_osr_loop_jdk17_against_jdk25_keeps_the_inner_loops_range_check() -> None:
    # JDK 17 checks a[i] in the inner loop with the trap after a `jb`, JDK 25 with `jae <trap>`: the same check
    doc = diff_json(LONGSTEP[17], LONGSTEP[25], 26, 33)
    inner = next(p for p in doc["loops"] if p["old"] and p["old"]["depth"] == 2)
    assert inner["status"] == "same"
    assert (inner["old"]["range_checks"], inner["new"]["range_checks"]) == (1, 1)
    assert check_changes(doc, "entered_loop") == []
    # what JDK 25 dropped is the outer loop's check before the inner loop runs
    assert check_changes(doc, "left_loop") == [(28, 6)]


def test_diff_pairs_the_post_loops_range_checks_through_the_matched_post_loops() -> None:
    # Checks::osr: JDK 17's post-loop B25 checks a[ix[i]] (bci 26 and 27), JDK 25's post-loop B16 bci 27 only;
    # JDK 25 has no pre-loop (B12 in JDK 17, with both checks): its bci 27 check is the one gone, not the post-loop's
    doc = diff_json(CHECKS_OSR[17], CHECKS_OSR[25], 6, 10)
    post = next(p for p in doc["loops"] if p["old"] and p["old"]["role"] == "post")
    assert (post["old"]["header"], post["new"]["header"]) == (25, 16)
    assert sorted(check_changes(doc, "left_loop")) == [(26, 7), (26, 12), (26, 25), (27, 12)]
    # the other way round, the post-loop's bci 27 check did not enter a loop: the old post-loop had it
    back = diff_json(CHECKS_OSR[25], CHECKS_OSR[17], 10, 6)
    assert sorted(check_changes(back, "entered_loop")) == [(26, 7), (26, 12), (26, 25), (27, 12)]


@pytest.mark.parametrize(("jdk", "compile_id"), [(17, 13), (25, 17)])
def test_clone_replaced_by_its_intrinsic_is_one_decision(jdk: int, compile_id: int) -> None:
    # the log has <inline_fail reason='native method'/> then <intrinsic id='_clone'/> for the one <call> of
    # `a.clone()`: C2 replaced the call by the intrinsic
    method = method_json(CHECKS_OSR[jdk], compile_id)
    assert method["name"] == "Checks::copy"
    assert [(d["caller"], d["bci"], d["callee"], d["inlined"], d["reason"]) for d in method["inlining"]] == [
        ("Checks::copy", 1, "java.lang.Object::clone", True, "intrinsic _clone")
    ]
