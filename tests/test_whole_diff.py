"""`asmcfg diff OLD NEW` with no selector: the whole-log diff of two full runs of one program on JDK 17 and JDK 25.

The inputs are the corpus's whole-run PrintAssembly logs (every method the JVM compiled, C1 and C2, and the
native wrappers) of Switches and Tensor4D, each run on JDK 17.0.15 and on JDK 25.0.3 (tests/data/SOURCES.md).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from corpus import DATA, run_cli

HSDIS = DATA / "hsdis"
SWITCHES = tuple(str(HSDIS / f"jdk{jdk}-Switches-printassembly-full.txt.gz") for jdk in (17, 25))
TENSOR = tuple(str(HSDIS / f"jdk{jdk}-Tensor4D-printassembly-full.txt.gz") for jdk in (17, 25))


def whole(*args: str) -> dict[str, Any]:
    code, out, err = run_cli("diff", *args, "--json", "-", "-q")
    assert code == 0, err
    found: dict[str, Any] = json.loads(out)
    assert (found["diff_schema"], found["mode"]) == (4, "whole_log")
    return found


def keys(rows: list[dict[str, Any]]) -> set[tuple[str, str, int | None]]:
    return {(r["method"], r["compiler"], r["osr_bci"]) for r in rows}


def pair(found: dict[str, Any], method: str, compiler: str, osr: int | None = None) -> dict[str, Any]:
    (row,) = [p for p in found["pairs"] if (p["method"], p["compiler"], p["osr_bci"]) == (method, compiler, osr)]
    return row


def test_switches_pairs_every_method_both_runs_compiled() -> None:
    found = whole(*SWITCHES)
    # both --list tables by hand: JDK 17 has 17 compilations, all of methods JDK 25 compiled as well (same compiler,
    # same OSR bci); JDK 25 adds Byte::toUnsignedInt (C1) and the two Continuation native wrappers
    assert keys(found["pairs"]) == {
        ("java.lang.Object::<init>", "c1", None), ("jdk.internal.misc.Unsafe::getReferenceVolatile", "native", None),
        ("jdk.internal.misc.Unsafe::compareAndSetLong", "native", None), ("java.lang.String::coder", "c1", None),
        ("java.lang.String::hashCode", "c1", None), ("Switches::dense", "c1", None), ("Switches::sparse", "c1", None),
        ("java.util.concurrent.atomic.AtomicLong::get", "c1", None), ("java.util.Random::nextInt", "c1", None),
        ("java.util.Random::next", "c1", None), ("java.util.concurrent.atomic.AtomicLong::compareAndSet", "c1", None),
        ("Switches::sparse", "c2", None), ("Switches::dense", "c2", None), ("Switches::run", "c1", 4),
        ("Switches::run", "c1", None), ("Switches::run", "c2", 4), ("Switches::run", "c2", None),
    }
    assert found["only_old"] == []
    assert {(m["method"], m["compiler"], m["compile_id"]) for m in found["only_new"]} == {
        ("jdk.internal.vm.Continuation::enterSpecial", "native", 5), ("java.lang.Byte::toUnsignedInt", "c1", 2),
        ("jdk.internal.vm.Continuation::doYield", "native", 6),
    }
    assert (found["old"]["compilations"], found["new"]["compilations"]) == (17, 20)
    run = pair(found, "Switches::run", "c2")
    assert (run["old_compile_id"], run["new_compile_id"]) == (17, 20)
    osr = pair(found, "Switches::run", "c2", 4)
    assert (osr["old_compile_id"], osr["new_compile_id"]) == (16, 19)


def test_tensor_pairs_and_the_compilations_only_jdk17_made() -> None:
    found = whole(*TENSOR)
    assert keys(found["pairs"]) == {
        ("java.lang.Object::<init>", "c1", None), ("jdk.internal.misc.Unsafe::getReferenceVolatile", "native", None),
        ("java.lang.String::coder", "c1", None), ("java.lang.String::hashCode", "c1", None),
        ("Tensor4D::sum4", "c1", 40), ("Tensor4D::sumDiag", "c1", None), ("Tensor4D::sum4", "c2", 40),
        ("Tensor4D::sum4", "c2", None), ("Tensor4D::sumDiag", "c2", None),
    }
    # JDK 17 compiled sum4 with C1 also as OSR @ 25 (id 6) and as a normal method (id 7); JDK 25 did neither
    assert {(m["method"], m["compiler"], m["osr_bci"], m["compile_id"]) for m in found["only_old"]} == {
        ("Tensor4D::sum4", "c1", 25, 6), ("Tensor4D::sum4", "c1", None, 7),
    }
    assert keys(found["only_new"]) == {("jdk.internal.vm.Continuation::enterSpecial", "native", None),
                                       ("java.lang.Byte::toUnsignedInt", "c1", None),
                                       ("jdk.internal.vm.Continuation::doYield", "native", None)}


def test_three_pairs_say_what_the_dumps_show() -> None:
    tensor, switches = whole(*TENSOR), whole(*SWITCHES)
    # 1. Tensor4D::sum4, C2, id 10 (JDK 17) -> id 11 (JDK 25). Read by hand: JDK 17's code has 17 calls of
    # UncommonTrapBlob, JDK 25's 8. JDK 17's innermost loop (0x...85e0-0x...864a) reloads a[i], a[i][j],
    # a[i][j][k] every trip behind three `cmpl; jae` range checks and adds one element (`addq %r10, %rax`);
    # JDK 25 hoists them (loop predicates: `leal -1(%rbx); cmpl %ebx; jae` before the loop) and its main loop
    # (0x...85b0-0x...85d7) adds 8 ints a trip as longs in ymm registers (`vpmovsxdq`, `vpaddq %ymm6, %ymm7`).
    sum4 = pair(tensor, "Tensor4D::sum4", "c2")
    assert (sum4["old_compile_id"], sum4["new_compile_id"]) == (10, 11)
    head = sum4["headline"]
    assert head["traps_removed"] - head["traps_added"] == 17 - 8
    assert (sum4["diff"]["old"]["uncommon_traps"], sum4["diff"]["new"]["uncommon_traps"]) == (17, 8)
    assert {c["new"]["reason"] for c in sum4["diff"]["changes"] if c["what"] == "trap" and c["change"] == "added"} == {
        "predicate"}
    assert head["vector_loops"] == [0, 1] and head["lost_vectors"] == 0
    assert head["checks_into_loops"] == 0 and head["checks_out_of_loops"] > 0
    (vector,) = [p["new"]["vector"] for p in sum4["diff"]["loops"] if p["new"] and p["new"]["vector"]]
    assert vector == {"bits": 256, "element": "long", "isa": "avx"}
    assert "vector loops 0 → 1" in sum4["summary"] and "traps +3 -12" in sum4["summary"]
    # 2. Switches::run, C2, id 17 -> id 20: two UncommonTrapBlob calls on each side (the loop's if_icmpge at
    # run@7 and arraylength at run@6), no call of a Java method (dense and sparse are inlined); JDK 25 adds
    # only the nmethod entry barrier (`cmpl $1, 0x20(%r15)` and its `Stub::method_entry_barrier` call), a stub.
    run = pair(switches, "Switches::run", "c2")
    assert (run["diff"]["old"]["uncommon_traps"], run["diff"]["new"]["uncommon_traps"]) == (2, 2)
    assert run["headline"]["calls"] == [0, 0]
    assert run["headline"]["traps_added"] == run["headline"]["traps_removed"] == 0
    assert run["summary"] == "main code 480 → 520 B (+8.3%)"
    # 3. String::hashCode, C1, id 2 -> id 3: JDK 17 calls `invokestatic hashCode` twice (StringLatin1's and
    # StringUTF16's); JDK 25 calls `invokestatic hashCodeOfUnsigned` (ArraysSupport, from StringLatin1.hashCode,
    # now inlined) and `invokestatic hashCode` once: two real calls of Java methods on each side, one inlined.
    hashed = pair(switches, "java.lang.String::hashCode", "c1")
    assert hashed["headline"]["calls"] == [2, 2] and hashed["headline"]["inlined"] == 1
    calls = [(c["change"], c["old"] if c["change"] in ("inlined", "removed") else c["new"])
             for c in hashed["diff"]["changes"] if c["what"] == "call"]
    java_calls = {(change, item["callee"]) for change, item in calls if item["bytecode"].startswith("invoke")}
    assert java_calls == {("inlined", "hashCode"), ("added", "hashCodeOfUnsigned")}


def test_json_lists_every_pair_ranked_by_size() -> None:
    found = whole(*TENSOR)
    assert found["ranked_by"] == "size" and [p["rank"] for p in found["pairs"]] == list(range(1, 10))
    sizes = [p["size"] for p in found["pairs"]]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == 1616  # sum4 OSR @40, C2: main code 1344 -> 1616
    for row in found["pairs"]:
        assert (row["diff"]["old"]["compile_id"], row["diff"]["new"]["compile_id"]) == (
            row["old_compile_id"], row["new_compile_id"])
        assert row["diff"]["old"]["name"] == row["diff"]["new"]["name"] == row["method"]
        assert row["failures"] is None


def test_fail_on_checks_every_pair_and_names_the_methods() -> None:
    code, out, err = run_cli("diff", *TENSOR, "--fail-on", "new-trap", "-q")
    assert code == 5 and out == ""
    named = set(re.findall(r"--fail-on new-trap: (\S+) \(([^)]*)\)", err))
    # sum4's loop predicates (above); C1's String::hashCode gained a null check's trap; JDK 25 kept sumDiag's traps
    assert named == {("Tensor4D::sum4", "c2"), ("java.lang.String::hashCode", "c1")}
    assert "--fail-on new-trap: Tensor4D::sum4 (c2): predicate / maybe_recompile at if_icmpge" in err
    # in the pairs' rank order: String::hashCode (C1, 1032 bytes) ranks 4th, sum4 (C2, 896 bytes) 5th
    assert err.index("String::hashCode (c1)") < err.index("Tensor4D::sum4 (c2)")
    # vectors were only gained from 17 to 25: nothing lost; the other way round sum4 loses them
    assert run_cli("diff", *TENSOR, "--fail-on", "lost-vector", "-q")[0] == 0
    code, out, err = run_cli("diff", TENSOR[1], TENSOR[0], "--fail-on", "lost-vector", "--json", "-", "-q")
    assert code == 5
    assert "--fail-on lost-vector: Tensor4D::sum4 (c2): loop" in err and "256-bit vectors -> scalar" in err
    failing = {(p["method"], p["compiler"], p["osr_bci"]) for p in json.loads(out)["pairs"] if p["failures"]}
    assert failing == {("Tensor4D::sum4", "c2", None), ("Tensor4D::sum4", "c2", 40)}


def test_the_terminal_table_ranks_pairs_then_methods_of_one_log() -> None:
    code, _, err = run_cli("diff", *TENSOR)
    assert code == 0
    first = next(line for line in err.splitlines() if "│ 1 " in line)
    assert "Tensor4D::sum4" in first and "40" in first and "vector loops 0 → 1" in first
    assert err.index("Only in") > err.index("Pairs (largest first)")
    assert "9 pairs (9 changed), 2 only in the old log, 3 only in the new log" in err


def test_a_selector_keeps_the_two_compilation_diff() -> None:
    code, out, err = run_cli("diff", *TENSOR, "--method", "Tensor4D::sum4", "--json", "-", "-q")
    assert code == 0, err
    found = json.loads(out)
    assert found["diff_schema"] == 3 and "pairs" not in found
    assert (found["old"]["compile_id"], found["new"]["compile_id"]) == (10, 11)  # the last C2 of each


def test_html_dir_writes_an_index_linking_a_page_per_pair(tmp_path: Path) -> None:
    out = tmp_path / "pages"
    code, _, err = run_cli("diff", *TENSOR, "--html", str(out), "--renderer", "graphviz-pure", "-q")
    assert code == 0, err
    index = (out / "index.html").read_text(encoding="utf-8")
    # a long name shows its short form, the whole name in its tooltip
    links = re.findall(r'<tr class="(\w+)" data-rank="(\d+)"><td>\d+</td><td><a href="([^"]+)">'
                       r'(?:<span title="([^"]+)">[^<]+</span>|([^<]+))</a>', index)
    links = [(state, rank, page, long or short) for state, rank, page, long, short in links]
    assert len(links) == 9 and [int(rank) for _, rank, _, _ in links] == list(range(1, 10))
    assert links[0][3] == "Tensor4D::sum4"
    for _, _, page, method in links:
        text = (out / page).read_text(encoding="utf-8")
        assert text.startswith("<!DOCTYPE html>") and "<title>asmcfg diff: " in text and method in text
    assert 'id="only-old"' in index and "Continuation::doYield" in index


def test_whole_log_flags_that_draw_one_pair_are_usage_errors() -> None:
    for args in (("--dot", "-"), ("--svg", "x.svg")):
        code, _, err = run_cli("diff", *TENSOR, *args)
        assert code == 2 and "draw one pair: name its method with --method" in err
    code, _, err = run_cli("diff", *TENSOR, "--html", "-")
    assert code == 2 and "--html DIR" in err
