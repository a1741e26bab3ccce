"""Graal (JVMCI) as the JIT: its deopt sites read as traps, checked against a decoding of the raw bytes written here."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.conftest import DATA
from tests.corpus import run_cli

GRAAL = DATA / "graal"
RUNS = {17: "jdk17", 25: "jdk25"}
_ROW = re.compile(r"^\s*0x([0-9a-f]+): ([0-9a-f| ]+?)\s*$")
_COMMENT = re.compile(r"^\s*(?:0x([0-9a-f]+): )?\s*;(.*)$")
_SCOPE = re.compile(r"- (?:\(reexecute\) )?Main::\w+@(\d+)")
# The reason numbers a JVMCI compiler's trap requests use in these runs, named as HotSpot's JVMCI build names them
# (deoptimization.hpp: Reason_unreached0 = Reason_null_assert, Reason_type_checked_inlining = Reason_intrinsic).
_REASONS = {1: "null_check", 2: "unreached0", 3: "range_check", 6: "type_checked_inlining"}
_ACTIONS = {2: "reinterpret", 3: "make_not_entrant"}


def _compilation_lines(path: str, compile_id: int) -> list[str]:
    """The lines of one compilation's `[MachCode]` section in a print file."""
    lines = (GRAAL / path).read_text().splitlines()
    header = re.compile(rf"Compiled method \(JVMCI\)\s+\d+\s+{compile_id}\b")
    start = next(i for i, line in enumerate(lines) if header.match(line))
    begin = next(i for i in range(start, len(lines)) if lines[i] == "[MachCode]")
    end = next(i for i in range(begin, len(lines)) if lines[i] == "[/MachCode]")
    return lines[begin:end]


def _decoded_here(path: str, compile_id: int) -> tuple[list[tuple[int, str, str, int]], int]:
    """(request, reason, action, bci) of every deopt site in the raw hex, and the thread offset the stores use.

    The bytes: `41 c7 87 OFF REQ` is movl $REQ, OFF(%r15) (a site of its own); `41 ba REQ` is movl $REQ, %r10d (a
    site sharing the call after `45 89 97 OFF`, movl %r10d, OFF(%r15)). A site's bci is the scope printed after the
    first DeoptimizationBlob call past it."""
    data = bytearray()
    calls: list[tuple[int, int]] = []  # (byte offset of the call's printed chunk, bci of the scope after it)
    pending: int | None = None
    for line in _compilation_lines(path, compile_id):
        row = _ROW.match(line)
        if row and ";" not in line:
            data += bytes.fromhex(row.group(2).replace("|", "").replace(" ", ""))
            continue
        comment = _COMMENT.match(line)
        if comment and "runtime_call DeoptimizationBlob" in comment.group(2):
            pending = len(data)
        scope = _SCOPE.search(line)
        if scope and pending is not None:
            calls.append((pending, int(scope.group(1))))
            pending = None
    text = data.hex()

    def bci_after(position: int) -> int:
        return next(bci for offset, bci in calls if offset >= position)

    def little(word: str) -> int:
        return int.from_bytes(bytes.fromhex(word), "little")

    sites: list[tuple[int, str, str, int]] = []
    offsets = set()
    for match in re.finditer(r"41c787([0-9a-f]{8})([0-9a-f]{2}ffffff)", text):
        if match.start() % 2 == 0:
            request = little(match.group(2))
            offsets.add(little(match.group(1)))
            sites.append((request, *_reason_action(request), bci_after(match.start() // 2)))
    shared = [m.start() // 2 for m in re.finditer(r"458997([0-9a-f]{8})", text) if m.start() % 2 == 0]
    for match in re.finditer(r"41ba([0-9a-f]{2}ffffff)", text):
        if match.start() % 2 == 0 and shared:
            request = little(match.group(1))
            sites.append((request, *_reason_action(request), bci_after(shared[0])))
    assert len(offsets) == 1
    return sorted(sites), offsets.pop()


def _reason_action(request: int) -> tuple[str, str]:
    inverted = ~request & 0xFFFFFFFF
    return _REASONS[(inverted >> 3) & 0x1F], _ACTIONS[inverted & 7]


def _compile_id(path: str, method: str) -> int:
    code, out, err = run_cli(str(GRAAL / path), "--list", "--json", "-")
    assert code == 0, err
    return next(int(r["compile_id"]) for r in json.loads(out)["compilations"]
                if r["compiler"] == "jvmci" and r["name"] == method)


def _method(path: str, compile_id: int, *extra: str) -> dict[str, Any]:
    code, out, err = run_cli(str(GRAAL / path), "--compile-id", str(compile_id), "--json", "-", "-q", *extra)
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)["methods"][0]
    return document


def _traps(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [b["trap"] | {"block": b["id"]} for b in document["blocks"] if b["trap"]]


@pytest.mark.parametrize("jdk", sorted(RUNS))
def test_every_graal_deopt_site_is_a_trap_with_the_reason_action_and_bci_of_its_bytes(jdk: int) -> None:
    path = f"{RUNS[jdk]}-print.txt"
    compile_id = _compile_id(path, "Main::work")
    expected, offset = _decoded_here(path, compile_id)
    assert offset == {17: 0x370, 25: 0x560}[jdk]
    traps = _traps(_method(path, compile_id))
    got = sorted((int(t["request"], 16), t["reason"], t["action"], t["bci"]) for t in traps)
    assert got == expected
    assert {t["kind"] for t in traps} == {"uncommon_trap"}
    assert {"range_check", "null_check", "unreached0", "type_checked_inlining"} <= {t["reason"] for t in traps}


@pytest.mark.parametrize("jdk", sorted(RUNS))
def test_each_predecessor_of_a_shared_deopt_call_is_a_trap_of_its_own(jdk: int) -> None:
    path = f"{RUNS[jdk]}-print.txt"
    document = _method(path, _compile_id(path, "Main::work"))
    traps = _traps(document)
    by_site: dict[int, list[str]] = {}
    for trap in traps:
        block = next(b for b in document["blocks"] if b["id"] == trap["block"])
        by_site.setdefault(len(block["instructions"]), []).append(trap["reason"])
    shared = [t for t in traps if t["reason"] in ("range_check", "type_checked_inlining")]
    assert len(shared) == 2
    assert {t["speculation"] for t in shared if t["reason"] == "range_check"} == {0}
    assert all(t["speculation"] > 0 for t in shared if t["reason"] == "type_checked_inlining")
    assert document["counts"]["uncommon_trap_calls"] == len(traps)
    assert document["counts"]["range_check_branches"] == 1


@pytest.mark.parametrize("jdk", sorted(RUNS))
def test_the_trap_that_fired_under_graal_is_credited_to_its_site(jdk: int) -> None:
    path = f"{RUNS[jdk]}-print.txt"
    log = str(GRAAL / f"{RUNS[jdk]}-log.xml")
    document = _method(path, _compile_id(path, "Main::work"), "--log", log)
    fired = {(t["reason"], t["bci"]): t["log"]["fired"] for t in _traps(document)}
    assert fired.pop(("unreached0", 13)) == 1
    assert set(fired.values()) == {0}
    assert {t["log"]["verdict"] for t in _traps(document)} == {"no_records"}
    assert document["trap_log"]["fired"] == 1 and document["trap_log"]["fired_elsewhere"] == []
    code, _, err = run_cli(str(GRAAL / path), "--compile-id", str(document["compile_id"]), "--log",
                           log, "--dot", "/dev/null")
    assert code == 0
    assert "the JVMCI compiler logs no trap records; 1 fired at run time, 1 credited to their trap" in err


def test_the_deopt_handlers_call_is_no_trap() -> None:
    path = "jdk25-print.txt"
    document = _method(path, _compile_id(path, "Main::work"))
    handler = [b for b in document["blocks"] if any(i["operands"] == "$5, (%rsp)" for i in b["instructions"])]
    assert len(handler) == 1 and handler[0]["instructions"][-1]["relocs"] == ["runtime_call DeoptimizationBlob"]
    assert not handler[0]["trap"]


def test_diff_counts_graals_traps_and_fails_on_them_as_new() -> None:
    path = str(GRAAL / "jdk17-print.txt")
    code, _, err = run_cli("diff", path, "--method", "Main::work", "--old-compiler", "c1", "--new-compiler", "jvmci",
                           "--fail-on", "new-trap", "-q")
    assert code == 5
    assert "--fail-on new-trap: unreached0 / reinterpret at iadd, Main::work@13" in err
    code, _, err = run_cli("diff", path, str(GRAAL / "jdk25-print.txt"), "--method", "Main::work", "--compiler",
                             "jvmci", "--fail-on", "new-trap", "--json", "-")
    assert code == 0, err
    assert "new-trap" not in err


@pytest.mark.parametrize("jdk", sorted(RUNS))
def test_graals_type_switch_is_three_type_checks_against_klass_constants_failing_into_its_deopt(jdk: int) -> None:
    path = f"{RUNS[jdk]}-print.txt"
    document = _method(path, _compile_id(path, "Main::work"))
    checks = document["type_checks"]
    assert [c["classes"] for c in checks] == [["klass constant #0"], ["klass constant #1"], ["klass constant #2"]]
    assert {c["fails_to"] for c in checks} == {"type_checked_inlining"}
    compares = {i["address"]: i for b in document["blocks"] for i in b["instructions"]}
    for check in checks:
        compare = compares[check["address"]]
        assert compare["mnemonic"] == "cmpq" and "(%rip)" in compare["operands"]
        assert "type_check" in next(b for b in document["blocks"] if b["id"] == check["block"])["tags"]
    # the class words are 8-byte class pointers in the pool: Main$Square's, Main$Rect's, Main$Tri's
    pool = re.findall(r"^\s*0x[0-9a-f]+:\s+0x[0-9a-f]{8}\s+0x([0-9a-f]{16})", (GRAAL / path).read_text(), re.M)
    assert len({int(v, 16) for v in pool[:3]}) == 3


def test_a_compare_with_a_class_named_by_its_metadata_stays_named() -> None:
    path = "jdk25-print.txt"
    checks = _method(path, _compile_id(path, "Main::kind"))["type_checks"]
    assert [c["classes"] for c in checks] == [["Main$Square"], ["Main$Rect"], ["Main$Tri"]]


@pytest.mark.parametrize(("argv", "env", "expected"), [
    (["java", "-XX:+UnlockExperimentalVMOptions", "-XX:+UseJVMCICompiler", "Main"], {}, True),
    (["java", "-XX:+UseGraalJIT", "-XX:-UseJVMCICompiler", "Main"], {}, False),
    (["mvn", "test"], {"JAVA_TOOL_OPTIONS": "-XX:+EnableJVMCI -XX:+UseJVMCICompiler"}, True),
    (["java", "-XX:-UseJVMCICompiler", "Main"], {"JAVA_TOOL_OPTIONS": "-XX:+UseJVMCICompiler"}, False),
    (["sh", "-c", "java -XX:+UseGraalJIT Main"], {}, True),
    (["java", "Main"], {}, False),
])
def test_record_sees_a_jvmci_jit_on_the_command_line_or_in_the_environment(
        argv: list[str], env: dict[str, str], expected: bool) -> None:
    from asmcfg.model.words import Printing
    from asmcfg.record import capture

    assert capture.uses_jvmci(argv, env) is expected
    for replay in (None, capture.REPLAY_ALL, "Main::work"):
        text = capture.directives_text(capture.Asked(Printing.C2, replay=replay), capture.uses_jvmci(argv, env))
        assert ("c1: { PrintAssembly: true }" in text) is expected
        assert ('match: ["jdk/graal/*.*"' in text) is expected
        assert "c2: { PrintAssembly: true" in text and text.startswith("[ ") and text.endswith(" ]\n")


def test_a_graal_compilations_inlining_comes_from_its_debug_info_and_says_no_decision_data_exists() -> None:
    path = "jdk25-record-replace.xml"
    document = _method(path, _compile_id(path, "java.lang.StringLatin1::replace"))
    assert document["inlining"] == []  # the log holds no decisions of a JVMCI compiler
    inlined = {(r["callee"], r["site"]) for r in document["inlined_by_debug_info"]}
    assert ("java.lang.StringLatin1::canEncode", "java.lang.StringLatin1::replace@1") in inlined
    assert ("jdk.internal.misc.Unsafe::allocateUninitializedArray",
            "java.lang.StringConcatHelper::newArray@21 <- java.lang.StringLatin1::replace@48") in inlined
    # every chain is one the code's debug info prints
    frames = {tuple((f["method"], f["bci"]) for f in i.get("frames", [])) for b in document["blocks"]
              for i in b["instructions"]}
    deepest = max(frames, key=len)
    assert len(deepest) == 4 and len(inlined) == 5
    code, _, err = run_cli(str(GRAAL / path), "--compile-id", str(document["compile_id"]), "--dot", "/dev/null")
    assert code == 0
    assert "no decision data: a JVMCI compiler logs no inlining decisions; the debug info shows 5 inlined" in err


def test_diff_of_c2_against_graal_pairs_traps_by_method_and_bci_across_the_encodings() -> None:
    code, out, err = run_cli("diff", str(GRAAL / "jdk17-c2-print.txt"), str(GRAAL / "jdk17-print.txt"), "--method",
                             "Main::work", "--old-compiler", "c2", "--new-compiler", "jvmci", "--json", "-")
    assert code == 0, err
    changes = [c for c in json.loads(out)["changes"] if c["what"] == "trap"]
    paired = {(c["old"]["reason"], c["new"]["reason"]) for c in changes if c["change"] == "reason"}
    assert paired == {("range_check", "range_check"), ("null_check", "null_check")}
    assert {c["old"]["reason"] for c in changes if c["change"] == "removed"} == {"unstable_if"}
    assert {c["new"]["reason"] for c in changes if c["change"] == "added"} == {
        "unreached0", "type_checked_inlining", "null_check"}


def test_serves_index_counts_graals_traps_and_the_one_that_fired() -> None:
    import asmcfg
    from asmcfg.serve.board import reduce

    log = asmcfg.open(str(GRAAL / "jdk17-log.xml"))
    row = next(r for r in log.compilations() if r.compiler == "jvmci" and r.method == "Main::work")
    reduced = reduce(log.analyse(row).analysis)
    assert reduced["traps"] == {"null_check": 2, "range_check": 1, "type_checked_inlining": 1, "unreached0": 1}
    assert reduced["fired"] == 1 and reduced["fired_by"] == {"unreached0": 1}


def test_graals_own_loop_nest_is_no_strip_mined_loop() -> None:
    # Main::main's `while` (polling around System.nanoTime) holds the `for` loop, which calls work and kind and so
    # needs no poll of its own: C2's strip-mined shape, but the source's own nest; no C2 copy role is given
    document = _method("jdk25-record-main-osr.xml.xz", 1191)
    loops = document["loops"]
    assert len(loops) == 3 and {loop["depth"] for loop in loops} == {1, 2}
    assert all(loop["role"] is None and not loop["strip_mined_outer"] for loop in loops)
    assert sum(1 for b in document["blocks"] if "safepoint_poll" in b["tags"]) == 1
