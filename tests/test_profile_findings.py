"""The compile-time profile on the graph and `profile-mismatch`, on real recordings: tests/data/java/ProfileShift.java
recorded with `asmcfg record` on JDK 17 and JDK 25 (tests/data/findings/shift17, shift25). `hot()` is compiled
against a warm-up in which its branch almost never went one way, and the run then takes that way half the time;
`twin()` runs the same code on data that keeps the warm-up's mix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import asmcfg
from asmcfg.facts import branch_profile, inlining_tree
from asmcfg.model.findings import FindingKind
from tests.corpus import run_cli, source_marks
from tests.test_findings import _findings, _hottest_c2

DATA = Path(__file__).parent / "data"
SOURCE = DATA / "java" / "ProfileShift.java"
RUNS = [DATA / "findings" / "shift17", DATA / "findings" / "shift25"]
MARK = re.compile(r"// (FIND|TWIN) profile-mismatch (\w+)")
MARKS = source_marks(SOURCE, MARK)


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_branch_mismatch_found_for_the_program_not_for_its_twin(run: Path) -> None:
    found = [f for f in _findings(run) if f["kind"] == FindingKind.PROFILE_MISMATCH]
    method, line = MARKS[("FIND", "branch")]
    mine = [f for f in found if f["method"] == method]
    assert len(mine) == 1, found
    finding = mine[0]
    assert finding["compile_id"] == _hottest_c2(run, method)
    assert finding["line"] == line and finding["scope"] == method and finding["bci"] == 15
    assert finding["share"] >= 0.5 and "not taken" in finding["cause"]
    assert any("<branch> of ProfileShift::hot@15 (to bci 43)" in e for e in finding["evidence"])
    twin, _ = MARKS[("TWIN", "branch")]
    assert not [f for f in found if f["method"] == twin]
    # a call whose fallback runs for other receivers: the samples measure its cost, not how often: no finding
    for mark in ("FIND", "TWIN"):
        assert not [f for f in found if f["method"] == MARKS[(mark, "call")][0]]


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_branch_profile_is_tied_to_the_jumps_that_name_it(run: Path) -> None:
    log = asmcfg.open(str(run))
    result = log.analyse(_hottest_c2(run, "ProfileShift::twin")).analysis
    sites = branch_profile.branch_sites(result)
    assert sites is not None
    by_bci = {s.record.bci: s for s in sites}
    inner = by_bci[15]  # if (v < 0): the profile saw it almost always taken (v >= 0 jumps to bci 43)
    assert inner.record.target_bci == 43 and inner.record.prob == 1.0
    assert inner.record.not_taken is not None and 0 < inner.record.not_taken < inner.record.taken // 1000
    instructions = result.cfg.method.instructions
    for block in inner.blocks:  # each jump carries the bytecode's own debug info
        jump = next(e for e in result.cfg.edges if e.src == block and e.kind.value == "taken")
        assert instructions[jump.site].bytecode.startswith("ifge")
        assert [(f.method, f.bci) for f in instructions[jump.site].frames] == [("ProfileShift::twin", 15)]
    assert len(inner.blocks) >= 2  # the unrolled loop's copies
    code, out, err = run_cli(str(run), "--compile-id", str(result.cfg.method.header.compile_id), "--json", "-", "-q")
    assert code == 0, err
    method = json.loads(out)["methods"][0]
    listed = {item["bci"]: item for item in method["branch_profile"]}
    assert listed[15]["blocks"] == list(inner.blocks) and listed[15]["prob"] == 1.0


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_inlining_tree_has_the_samples_under_each_inlined_call(run: Path) -> None:
    log = asmcfg.open(str(run))
    result = log.analyse(_hottest_c2(run, "ProfileShift::callTwin")).analysis
    nodes = inlining_tree.tree(result)
    assert nodes is not None
    square = [n for n in nodes if n.decision.callee == "ProfileShift$Square::area"]
    assert len(square) == 1 and square[0].decision.inlined and square[0].decision.bci == 15
    # its inlined x * x carries the debug info of the call site (callTwin@15), not of Square::area: nothing under it
    assert square[0].share == 0.0
    code, out, err = run_cli(str(run), "--compile-id", str(result.cfg.method.header.compile_id), "--json", "-", "-q")
    assert code == 0, err
    tree = json.loads(out)["methods"][0]["inlining_tree"]
    assert tree["method"] == "ProfileShift::callTwin" and tree["share"] > 0
    assert [c["callee"] for c in tree["calls"]] == ["ProfileShift$Square::area"]


@pytest.mark.parametrize("run", ["jdk17", "jdk25"])
def test_inlining_tree_nests_and_sums_the_inlined_frames(run: str) -> None:
    folder = DATA / "findings" / run  # Findings.java: allocHot() allocates a Point that escapes
    log = asmcfg.open(str(folder))
    result = log.analyse(_hottest_c2(folder, "Findings::allocHot")).analysis
    nodes = inlining_tree.tree(result)
    assert nodes is not None
    point = next(n for n in nodes if n.decision.callee == "Findings$Point::<init>")
    assert point.decision.inlined and point.decision.bci == 15 and point.decision.callee_bytes == 15
    assert [c.decision.callee for c in point.children] == ["java.lang.Object::<init>"]
    profile = result.cfg.method.profile
    assert profile is not None
    named = sum(h[0] for ins in result.cfg.method.instructions if (h := profile.heat.get(ins.address))
                and len(ins.frames) > 1 and ins.frames[-2].method == "Findings$Point::<init>")
    assert point.share == pytest.approx(named) and named > 0
    lines = inlining_tree.text_lines(result)
    assert lines[0].startswith("Findings::allocHot") and "@15 Findings$Point::<init>  inlined" in lines[1]
    assert lines[2].startswith("    @1 java.lang.Object::<init>")


def test_a_branch_compiled_as_a_trap_is_tied_to_the_edge_into_it() -> None:
    # String.equals's `if (this == anObject)` (if_acmpne@2): the profile never saw it fall through, C2 planted an
    # unstable_if trap there (tests/data/logc/intrinsics-jdk17.xml.gz, compile id 23)
    path = str(DATA / "logc" / "intrinsics-jdk17.xml.gz")
    result = asmcfg.open(path).analyse(23).analysis
    sites = [s for s in branch_profile.branch_sites(result) or () if s.trap_edges]
    equals = [s for s in sites if s.record.method == "java.lang.String::equals" and s.record.bci == 2]
    assert equals and all(s.record.not_taken == 0 and s.record.prob == 1.0 for s in equals)
    for site in equals:
        for edge in site.trap_edges:
            assert isinstance(edge.dst, int)
            trap = result.traps[edge.dst]
            assert (trap.reason, trap.method, trap.bci) == ("unstable_if", "java.lang.String::equals", 2)
    code, out, err = run_cli(path, "--compile-id", "23", "--dot", "-", "--no-fold", "-q")
    assert code == 0, err
    edge = equals[0].trap_edges[0]
    (line,) = [t for t in out.splitlines() if t.strip().startswith(f"b{edge.src} -> b{edge.dst} ")]
    assert 'label="profile: never"' in line


@pytest.mark.parametrize(("text", "prob"), [("never", 0.0), ("always", 1.0), ("                0.03", 0.03),
                                            ("1.00", 1.0), ("²", None), ("0.5e3", None), ("7.0", None),
                                            ("", None), ("nan", None), ("1" * 40, None)])
def test_a_branch_probability_is_read_as_hotspot_prints_it(text: str, prob: float | None) -> None:
    from asmcfg.dialects.logcompilation.branches import branch_prob

    assert branch_prob(text) == prob
