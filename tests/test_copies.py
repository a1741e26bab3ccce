"""C2's loop copies and unroll factors on dumps of `java/Copies.java` (JDK 17 and 25, `-XX:-TieredCompilation
-Xbatch`, no hsdis): each expectation below was read off the decoded main loop by hand (its induction variable's
step per trip and the width of its array accesses), not taken from asmcfg."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asmcfg.model import Analysis
from asmcfg.run.pipeline import Selector, analyse_method, open_input, pick_one
from tests.corpus import DATA, run_cli

JDK17 = DATA / "nohsdis" / "jdk17-Copies-nohsdis.txt"
JDK25 = DATA / "nohsdis" / "jdk25-Copies-nohsdis.txt.gz"
RUN2 = DATA / "diff" / "jdk17-Copies-run2-nohsdis.txt"


def copies(path: Path, compile_id: int) -> dict[int, tuple[str, int | None]]:
    """(role, unroll) of every loop of the compilation, by header block."""
    stream = open_input(str(path))
    picked = pick_one(stream.methods, Selector(None, compile_id, None))
    assert picked is not None
    result: Analysis = analyse_method(stream.complete(picked.method))
    return {h: (str(f.role), f.unroll) for h, f in result.loop_facts.items()}


@pytest.mark.parametrize(("path", "compile_id", "expected"), [
    # sumInt: `addl $8, %ecx` over eight scalar `addl 0x10(%rsi,%rcx,4)`; no pre-loop (the first iteration is
    # peeled), the post-loop steps `incl %ecx`
    (JDK17, 47, {4: ("strip_mined_outer", None), 5: ("main", 8), 8: ("post", None)}),
    # JDK 25 unrolls the same loop sixteen times: `addl $0x10, %ecx`
    (JDK25, 28, {5: ("strip_mined_outer", None), 6: ("main", 16), 10: ("post", None)}),
    # mixInt: x16 (`addl $0x10, %ebx`), each copy's index rebuilt with `movl %ebx, %r..; addl $k`; its post-loop
    # is laid out before the main loop (the main loop's exit jumps back to it)
    (JDK17, 51, {7: ("strip_mined_outer", None), 8: ("main", 16), 4: ("post", None)}),
    # scaleOffset: the first copy indexes through `movslq %r11d, %rsi` and the destination through a sum of it,
    # the source base is reloaded from `%xmm1`: `addl $8, %r11d` says x8
    (JDK17, 57, {12: ("strip_mined_outer", None), 9: ("main", 8), 15: ("post", None)}),
    (JDK25, 38, {13: ("strip_mined_outer", None), 10: ("main", 8), 17: ("post", None)}),
    # copyLong: `addl $0x20, %r10d` with 256-bit `vpaddq` on longs (4 lanes): x8; the drain steps 4 (x1)
    (JDK17, 55, {6: ("pre", None), 10: ("strip_mined_outer", None), 11: ("main", 8), 15: ("drain", 1),
                 17: ("post", None)}),
    # copyInt on JDK 25 steps with `leal 0x40(%r10), %eax` and `movl %eax, %r10d` at the loop top: 64 ints over
    # 8 lanes of ymm: x8
    (JDK25, 34, {6: ("pre", None), 15: ("strip_mined_outer", None), 12: ("main", 8), 17: ("drain", 1),
                 22: ("post", None)}),
    # Arrays.fill(int[]) is a Java loop C2 splits and vectorizes itself: those copies are its own (x8: `addl $0x40`
    # over ymm stores)
    (JDK17, 64, {3: ("pre", None), 7: ("strip_mined_outer", None), 8: ("main", 8), 11: ("drain", 1),
                 14: ("post", None)}),
    # JDK 17's Arrays.hashCode(int[]) is a Java loop (x8: `addl $8, %edi`)
    (JDK17, 67, {5: ("strip_mined_outer", None), 6: ("main", 8), 9: ("post", None)}),
])
def test_main_loops_unroll_by_their_stride(path: Path, compile_id: int,
                                            expected: dict[int, tuple[str, int | None]]) -> None:
    found = copies(path, compile_id)
    assert {h: found[h] for h in expected} == expected
    assert all(role == "" and unroll is None for h, (role, unroll) in found.items() if h not in expected)


@pytest.mark.parametrize(("path", "compile_id"), [
    (JDK17, 65), (JDK25, 47),  # Arrays.copyOf: the zeroing loops of the new array's tail (ClearArray)
    (JDK25, 49),  # Arrays.hashCode on JDK 25: the vectorizedHashCode intrinsic's loops
])
def test_intrinsic_and_stub_loops_get_no_role(path: Path, compile_id: int) -> None:
    found = copies(path, compile_id)
    assert found and set(found.values()) == {("", None)}


def test_string_equals_compare_loops_are_no_pre_loops() -> None:
    # countEquals: the first iteration is peeled, with String.equals's compare loops (B8 `vmovdqu (%rdi,%rcx)`,
    # B15 `movl (%rdi,%rcx)`) before the strip-mined loop; the loop over the words is never unrolled (`incl`),
    # so no loop is a pre-, main or post-loop
    found = copies(JDK17, 62)
    assert found[30] == ("strip_mined_outer", None)
    assert {h: r for h, r in found.items() if h != 30} == {h: ("", None) for h in (8, 15, 33, 39, 46)}


def test_a_diff_of_two_runs_reports_no_unroll_or_role_change() -> None:
    # the same program run twice: other addresses, same code; every loop pairs with its own role and unroll
    for method in ("sumInt", "mixInt", "scaleOffset", "copyInt", "copyLong", "fill", "hash", "countEquals"):
        code, out, err = run_cli("diff", str(JDK17), str(RUN2), "--method", f"Copies::{method}", "--json", "-", "-q")
        assert code == 0, err
        pairs = json.loads(out)["loops"]
        assert pairs and all(p["old"] and p["new"] for p in pairs)
        assert [(p["old"]["role"], p["old"]["unroll"]) for p in pairs] == [
            (p["new"]["role"], p["new"]["unroll"]) for p in pairs]
        assert not [p for p in pairs if p["status"] != "same"]
    code, _, err = run_cli("diff", str(JDK17), str(RUN2), "--method", "Copies::scaleOffset")
    row = next(line for line in err.splitlines() if "B9 (main loop x8)" in line)
    assert "B9 (main loop x8)" in row.split("│")[2] and "same" in row
