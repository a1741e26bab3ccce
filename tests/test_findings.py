"""`--findings` on real recordings: each kind appears for the program that shows it, at the right compilation, loop
and line, and not for its twin, which differs only in the cause (tests/data/java/Findings.java, recorded with
`asmcfg record` on JDK 17 and JDK 25: tests/data/findings/)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

import asmcfg
from asmcfg.dialects.logcompilation.inline import read_log
from asmcfg.model.findings import FindingKind
from tests.corpus import run_cli, source_marks

DATA = Path(__file__).parent / "data"
SOURCE = DATA / "java" / "Findings.java"
RUNS = [DATA / "findings" / "jdk17", DATA / "findings" / "jdk25"]
MARK = re.compile(r"// (FIND|TWIN) (\S+)")
MARKS = source_marks(SOURCE, MARK)
KINDS = [FindingKind.CHECK_IN_LOOP, FindingKind.NOT_INLINED, FindingKind.MEGAMORPHIC, FindingKind.ALLOCATION_IN_LOOP]


def _findings(run: Path) -> list[dict[str, Any]]:
    code, out, err = run_cli(str(run), "--findings", "--json", "-", "-q")
    assert code == 0, err
    document = json.loads(out)
    assert document["schema"] == 1 and document["ranked_by"] == "measured"
    return document["findings"]  # type: ignore[no-any-return]


def _hottest_c2(run: Path, method: str) -> int:
    """The compile id of `method`'s C2 compilation that took the most samples."""
    perf = asmcfg.open(str(run)).enrichment.perf
    assert perf is not None
    rows = [s for s in perf.sampled() if s.method == method and s.compiler == "c2"]
    return max(rows, key=lambda s: s.samples).compile_id


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
@pytest.mark.parametrize("kind", KINDS)
def test_kind_found_for_the_program_not_for_its_twin(run: Path, kind: FindingKind) -> None:
    found = _findings(run)
    method, line = MARKS[("FIND", kind.value)]
    mine = [f for f in found if f["kind"] == kind and f["method"] == method]
    assert len(mine) == 1, [f["method"] for f in found if f["kind"] == kind]
    finding = mine[0]
    assert finding["line"] == line and finding["scope"] == method
    assert finding["compile_id"] == _hottest_c2(run, method)
    assert finding["share"] >= 0.5 and finding["cause"] and finding["evidence"] and finding["suggestion"]
    if kind in (FindingKind.CHECK_IN_LOOP, FindingKind.ALLOCATION_IN_LOOP):  # at the loop that holds the line
        result = asmcfg.open(str(run)).analyse(finding["compile_id"]).analysis
        loop = next(lp for lp in result.loops if lp.header == finding["block"])
        lines = {f.line for b in loop.blocks for ins in result.cfg.method.instructions[
            result.cfg.blocks[b].start:result.cfg.blocks[b].end] for f in ins.frames[:1]}
        assert line in lines
    twin, _ = MARKS[("TWIN", kind.value)]
    assert not [f for f in found if f["kind"] == kind and f["method"] == twin]


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_evidence_names_the_log_and_the_limit(run: Path) -> None:
    found = _findings(run)
    (inline,) = [f for f in found if f["kind"] == FindingKind.NOT_INLINED]
    assert "'hot method too big'" in inline["cause"] and "FreqInlineSize=325" in inline["cause"]
    assert inline["whatif"].endswith(f"--compile-id {inline['compile_id']} --inline Findings::big")
    # the command is shell words: a name from the log (`Outer$Inner::m`, or crafted) is quoted, never expanded
    words = shlex.split(inline["whatif"])
    assert words[:2] == ["asmcfg", "whatif"] and words[-2:] == ["--inline", "Findings::big"]
    (mega,) = [f for f in found if f["kind"] == FindingKind.MEGAMORPHIC]
    assert any("receiver types the profile recorded: Findings$" in e for e in mega["evidence"])
    assert any("vtable chunks" in e for e in mega["evidence"]) and mega["whatif"] is None


DEOPTS = [DATA / "findings" / "deopts17", DATA / "findings" / "deopts25"]


@pytest.mark.slow
@pytest.mark.parametrize("run", DEOPTS, ids=lambda p: p.name)
def test_deopt_cycle_found_for_the_program_not_for_its_twin(run: Path) -> None:
    """tests/data/java/Deopts.java: hot() meets a new receiver type in each phase, twin() one type throughout."""
    found = _findings(run)
    cycles = [f for f in found if f["kind"] == FindingKind.DEOPT_CYCLE]
    assert [f["method"] for f in cycles] == ["Deopts::hot"]
    (cycle,) = cycles
    perf = asmcfg.open(str(run)).enrichment.perf
    assert perf is not None
    c2 = [s.compile_id for s in perf.sampled() if s.method == "Deopts::hot" and s.compiler == "c2"]
    assert cycle["compile_id"] == max(c2)  # the last C2 compilation, the one still entrant
    assert cycle["scope"] == "Deopts::hot" and cycle["bci"] == 14 and cycle["line"] == 13  # invokevirtual area
    assert any(e.startswith("trap fired") and "class_check" in e for e in cycle["evidence"])
    assert any("4 of 6 C2 compilations" in e or "made not entrant" in e for e in cycle["evidence"])
    assert cycle["share"] is not None  # the C1 code's samples in between


LOCKS = [DATA / "findings" / "locks17", DATA / "findings" / "locks25"]


@pytest.mark.slow
@pytest.mark.parametrize("run", LOCKS, ids=lambda p: p.name)
def test_lock_in_loop_found_for_the_program_not_for_its_twin(run: Path) -> None:
    """tests/data/java/Locks.java: hot() locks a shared object in its loop, twin() one that never escapes."""
    found = _findings(run)
    locks = [f for f in found if f["kind"] == FindingKind.LOCK_IN_LOOP]
    assert locks and all(f["scope"] == "Locks::hot" and f["line"] == 9 and f["bci"] == 15 for f in locks)
    assert _hottest_c2(run, "Locks::hot") in {f["compile_id"] for f in locks}
    assert _hottest_c2(run, "Locks::twin")  # the twin ran compiled, and took samples, without a finding
    assert not [f for f in found if "Locks::twin" in (f["method"], f["scope"])]


def test_log_keeps_the_call_profile() -> None:
    """The `<call>` record's count, the callee's bytecode size and the receiver types reach the decisions."""
    (log,) = (DATA / "findings" / "jdk17").glob("jvmpid*.xml.xz")
    decisions = [d for each in read_log(str(log)).inlines.values() for d in each]
    big = [d for d in decisions if d.callee == "Findings::big" and d.reason == "hot method too big"]
    assert big and all(d.callee_bytes == 386 and not d.inlined and d.count for d in big)
    virtual = [d for d in decisions if d.caller == "Findings::megaHot" and d.reason == "virtual call"]
    assert virtual and {name for name, _ in virtual[-1].receivers} <= {"Findings$Add", "Findings$Mul", "Findings$Xor"}
    assert len(virtual[-1].receivers) == 2


def test_text_and_usage() -> None:
    code, out, _ = run_cli(str(RUNS[0]), "--findings", "-q")
    assert code == 0 and out.startswith("10 findings in ") and "ranked by measured share" in out
    assert re.search(r"^1\. \d+\.\d\d% \S+ Findings::", out, re.M)
    code, _, err = run_cli(str(RUNS[0]), "--findings", "--svg", "x.svg")
    assert code == 2 and "--findings writes the ranked findings" in err


def test_without_heat_ranked_by_the_static_estimate() -> None:
    (log,) = RUNS[0].glob("jvmpid*.xml.xz")
    code, out, err = run_cli(str(log), "--findings", "--json", "-", "-q")
    assert code == 0, err
    document = json.loads(out)
    assert document["ranked_by"] == "static" and document["findings"]
    estimates = [f["estimate"] for f in document["findings"]]
    assert all(f["share"] is None for f in document["findings"]) and estimates == sorted(estimates, reverse=True)
    assert all(any("static estimate" in e for e in f["evidence"]) for f in document["findings"]
               if f["kind"] != FindingKind.NOT_INLINED)


def test_one_compilation_of_a_recording() -> None:
    """A selector picks the compilations whatever their share; the deopt cycle of another method stays out."""
    cid = _hottest_c2(RUNS[0], "Findings::megaHot")
    code, out, err = run_cli(str(RUNS[0]), "--findings", "--compile-id", str(cid), "--json", "-", "-q")
    assert code == 0, err
    found = json.loads(out)["findings"]
    assert {f["compile_id"] for f in found} == {cid}
    assert {f["kind"] for f in found} == {FindingKind.MEGAMORPHIC, FindingKind.CHECK_IN_LOOP}


@pytest.mark.slow
@pytest.mark.parametrize("facts", [True, False], ids=["facts", "full"])
def test_jsonl_records_carry_their_findings(facts: bool) -> None:
    code, out, err = run_cli(str(RUNS[0]), "--jsonl", "-", *(["--facts"] if facts else []), "--findings", "-q")
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert all("findings" in r for r in records if "error" not in r)
    by_id = {r["compile_id"]: r["findings"] for r in records if "error" not in r}
    mega = by_id[_hottest_c2(RUNS[0], "Findings::megaHot")]
    assert {f["kind"] for f in mega} == {FindingKind.MEGAMORPHIC, FindingKind.CHECK_IN_LOOP}
    assert all(f["share"] is not None for found in by_id.values() for f in found)  # unsampled: none
