"""`asmcfg diff` chooses each side as `asmcfg` does, compares one method with itself unless asked otherwise, and
pairs a runtime routine across the JDKs that spell it differently."""

from __future__ import annotations

import json

from tests.corpus import DATA, run_cli

NOHSDIS = DATA / "nohsdis"
EXC17 = str(NOHSDIS / "jdk17-ExcSyncAlloc-print-nohsdis.txt")
EXC25 = str(NOHSDIS / "jdk25-ExcSyncAlloc-print-nohsdis.txt")
PERFASM = str(DATA / "perfasm" / "jdk25-DevBench" / "perfasm-console.txt")


def test_monitor_enter_under_its_jdk17_and_jdk25_names_is_one_call() -> None:
    # JDK 17 calls `_complete_monitor_locking_Java`, JDK 25 `C2 Runtime complete_monitor_locking`: one routine
    code, out, err = run_cli("diff", EXC17, EXC25, "--method", "ExcSyncAlloc::syncAdd", "--json", "-", "-q")
    assert code == 0, err
    changes = json.loads(out)["changes"]
    locking = [c for c in changes if "monitor_locking" in json.dumps(c)]
    assert locking == [], "the monitor-enter calls pair across the JDKs instead of being removed and added"


def test_different_methods_are_compared_only_when_named() -> None:
    # the last C2 compilation of each file is a different method: --compiler alone must not compare them
    code, out, err = run_cli("diff", EXC17, EXC25, "--compiler", "c2", "--json", "-")
    assert code == 1 and out == ""
    assert "different methods (ExcSyncAlloc::parseOr and ExcSyncAlloc::copyAndCompare)" in err
    code, out, err = run_cli("diff", EXC17, EXC25, "--old-method", "parseOr", "--new-method", "copyAndCompare",
                             "--json", "-", "-q")
    assert code == 0, err


def test_diff_chooses_each_side_by_the_rule_asmcfg_follows_and_says_so() -> None:
    code, out, err = run_cli(PERFASM, "--json", "-")
    assert code == 0
    (chosen,) = json.loads(out)["methods"]
    assert "chose the hottest" in err
    code, out, err = run_cli("diff", PERFASM, PERFASM, "--json", "-")
    assert code == 0, err
    report = json.loads(out)
    assert report["old"]["compile_id"] == report["new"]["compile_id"] == chosen["compile_id"] == 542
    assert "old: chose the hottest (97.09% of its run)" in err and "new: chose the hottest" in err


def test_a_changed_jdk_tier_or_osr_bci_is_no_percentage() -> None:
    code, out, err = run_cli("diff", EXC17, EXC25, "--method", "ExcSyncAlloc::allocPoints")
    assert code == 0, err
    tables = out + err  # the tables go to stdout, or to stderr when no output file takes stdout
    rows = {line.split("│")[1].strip(): line for line in tables.splitlines() if line.count("│") >= 3}
    assert "17 → 25" in rows["JDK"] and "%" not in rows["JDK"]
    assert "%" in rows["main code B"], "an amount's change is still a percentage"


def test_an_implicit_null_check_whose_trap_is_still_there_is_not_removed() -> None:
    # JDK 25's faulting load of `a.length` (VecLong::addI@4) does not start a 4-byte chunk of the hex dump, so the
    # dump prints no `implicit exception` comment for it; its null_check trap at addI@4 is still there
    vec17, vec25 = str(NOHSDIS / "jdk17-VecLong-print-nohsdis.txt"), str(NOHSDIS / "jdk25-VecLong-print-nohsdis.txt")
    code, out, err = run_cli(vec25, "--method", "VecLong::addI", "--compiler", "c2", "--json", "-", "-q")
    (method,) = json.loads(out)["methods"]
    traps = [b["trap"] for b in method["blocks"] if b["trap"]]
    assert [(t["reason"], t["bytecode"], t["bci"]) for t in traps if t["reason"] == "null_check"] == [
        ("null_check", "arraylength", 4)]
    assert not [e for e in method["edges"] if e["kind"] == "exception"], "JDK 25 shows no faulting instruction"
    code, out, err = run_cli(vec17, "--method", "VecLong::addI", "--compiler", "c2", "--json", "-", "-q")
    (old,) = json.loads(out)["methods"]
    assert [e["check"] for e in old["edges"] if e["kind"] == "exception"] == ["null_check"], "JDK 17's is marked"
    code, out, err = run_cli("diff", vec17, vec25, "--method", "VecLong::addI", "--compiler", "c2", "--json", "-", "-q")
    assert code == 0, err
    assert [c for c in json.loads(out)["changes"] if c["what"] == "check"] == []
