"""`asmcfg diff` over what the passes say HotSpot means: the log's inlining decisions, C2's loop copies."""

from __future__ import annotations

import json
from typing import Any

from corpus import DATA, HSDIS, run_cli

LOGC = DATA / "logc"
# the same Inlining.java run twice on JDK 17: as it is, then with -XX:CompileCommand=dontinline,Inlining::tiny
OLD_XML = str(LOGC / "inlining-jdk17.xml.gz")
NEW_XML = str(LOGC / "inlining-dontinline-jdk17.xml.gz")
OLD_TEXT = str(LOGC / "inlining-jdk17-stdout.txt.gz")
NEW_TEXT = str(LOGC / "inlining-dontinline-jdk17-stdout.txt.gz")
TENSOR17 = str(HSDIS / "jdk17-Tensor4D-print-hsdis-att.txt.gz")
TENSOR25 = str(HSDIS / "jdk25-Tensor4D-print-hsdis-att.txt.gz")


def diff_json(*args: str) -> dict[str, Any]:
    code, out, err = run_cli("diff", *args, "--json", "-", "-q")
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def calls(document: dict[str, Any], change: str) -> list[dict[str, Any]]:
    return [c for c in document["changes"] if c["what"] == "call" and c["change"] == change]


def test_not_inlined_from_both_logs_names_the_logs_reasons() -> None:
    # tiny(i) is 5 bytes: inlined ("inline (hot)") in the first run; the CompileCommand forbids it in the second,
    # so compile id 24 of Inlining::run calls it. It leaves no code of its own when inlined (x + 7 folds into
    # the caller's add), so only the log says it was inlined.
    doc = diff_json(OLD_XML, NEW_XML, "--compile-id", "24")
    assert doc["old"]["log"] and doc["new"]["log"]
    (lost,) = calls(doc, "not_inlined")
    assert lost["old"] == {"inlined": True, "callee": "tiny", "scope": [{"method": "Inlining::run", "bci": 11}],
                           "evidence": "log", "log_reason": "inline (hot)"}
    new = lost["new"]
    assert (new["kind"], new["callee"], new["bytecode"]) == ("static", "Inlining::tiny", "invokestatic tiny")
    assert (new["log_inlined"], new["log_reason"]) == (False, "disallowed by CompileCommand")
    assert calls(doc, "added") == []
    # big and the megamorphic apply stay real calls on both sides, with the same reasons
    kept = {c["new"]["callee"]: c["new"]["log_reason"] for c in doc["changes"] if c["what"] == "call"}
    assert "Inlining::big" not in kept and "Inlining$Op::apply" not in kept
    code, _, err = run_cli("diff", OLD_XML, NEW_XML, "--compile-id", "24", "-q", "--fail-on", "not-inlined")
    assert code == 5
    assert err.strip() == ("asmcfg diff: --fail-on not-inlined: static call Inlining::tiny at Inlining::run@11 (B4), "
                           "not inlined: disallowed by CompileCommand")
    code, _, err = run_cli("diff", NEW_XML, OLD_XML, "--compile-id", "24", "-q", "--fail-on", "not-inlined")
    assert code == 0 and err == ""


def test_text_dumps_need_their_logs_to_see_the_inline() -> None:
    # without the logs the debug info shows nothing of tiny in the old code: the call is merely added
    doc = diff_json(OLD_TEXT, NEW_TEXT, "--compile-id", "24")
    assert not doc["old"]["log"] and calls(doc, "not_inlined") == []
    (added,) = calls(doc, "added")
    assert (added["new"]["callee"], added["new"]["log_inlined"]) == ("tiny", None)
    code, _, _ = run_cli("diff", OLD_TEXT, NEW_TEXT, "--compile-id", "24", "-q", "--fail-on", "not-inlined")
    assert code == 0
    # with --old-log/--new-log the same dumps carry the logs' decisions, and the gate holds
    code, _, err = run_cli("diff", OLD_TEXT, NEW_TEXT, "--compile-id", "24", "-q", "--fail-on", "not-inlined",
                           "--old-log", OLD_XML, "--new-log", NEW_XML)
    assert code == 5 and "static call Inlining::tiny at Inlining::run@11" in err
    # a log of another run is refused, naming the input
    code, _, err = run_cli("diff", OLD_TEXT, NEW_TEXT, "--compile-id", "24", "--old-log",
                           str(LOGC / "jdk17-Tensor4D.xml.gz"))
    assert code == 1 and "compile id 24" in err and err.count("\n") == 1


def test_osr_and_standard_sum4_pair_their_main_loops_across_jdks() -> None:
    # JDK 17's OSR compile (id 8) and JDK 25's standard one (id 12) both strip-mine the innermost loop: the two
    # strip-mined outer loops pair by debug info, and their main loops through them (B1 of compile 8 is its OSR
    # entry)
    doc = diff_json(TENSOR17, TENSOR25, "--old-compile-id", "8", "--new-compile-id", "12")
    mains = [p for p in doc["loops"] if p["old"] and p["old"]["role"] == "main" and p["new"]]
    assert [(p["old"]["header"], p["old"]["unroll"], p["new"]["header"], p["new"]["role"], p["new"]["unroll"],
             p["matched_by"]) for p in mains] == [(20, 4, 28, "main", 2, "outer loop")]
    (main,) = mains
    assert main["old"]["vector"] is None and main["new"]["vector"]["bits"] == 256
    code, out, err = run_cli("diff", TENSOR17, TENSOR25, "--old-compile-id", "8", "--new-compile-id", "12")
    assert code == 0 and out == ""
    # B20 steps `addl $4, %edi` over four scalar loads, three of them through `movslq %edi, %rsi`: x4
    row = next(line for line in err.splitlines() if "B20 (main loop x4)" in line)
    assert "B28 (main loop x2)" in row and "outer loop" in row and "256-bit long (avx)" in row


def test_two_strip_mined_main_loops_in_one_method_are_both_main() -> None:
    # the Ring rewrite runs two counted loops one after the other, each strip-mined: the first one's main loop
    # (B9, inside B8) leads forward to the second one's outer loop, yet it is a main loop, not a pre-loop; B13
    # continues the first loop's index (`incl %ebx` after it) and is its post-loop, not the second one's pre-loop
    # (the second loop starts at 0 with its first iteration peeled and has none)
    code, out, err = run_cli(str(DATA / "diff" / "jdk17-Ring-after-nohsdis.txt"), "--method", "sum", "--compiler",
                             "c2", "--json", "-", "-q")
    assert code == 0, err
    loops = json.loads(out)["methods"][0]["loops"]
    assert {loop["header"]: loop["role"] for loop in loops} == {
        4: "pre", 8: "strip_mined_outer", 9: "main", 13: "post", 21: "strip_mined_outer", 22: "main", 27: "post"}
