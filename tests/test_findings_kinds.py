"""`--findings` kinds `not-vectorized`, `interpreted` and `c1-hot` on real recordings: each appears for the method
that shows it, at the right compilation, loop and line, and not for its twin, which differs only in the cause
(tests/data/java/Vectors.java and Tiers.java, recorded with `asmcfg record` on JDK 17 and JDK 25)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import asmcfg
from asmcfg.dialects.heatfiles import read_jit_log
from asmcfg.model.findings import FindingKind
from tests.corpus import source_marks
from tests.test_findings import _findings, _hottest_c2

DATA = Path(__file__).parent / "data"
VECTORS = [DATA / "findings" / "vectors17", DATA / "findings" / "vectors25"]
TIERS = [DATA / "findings" / "tiers17", DATA / "findings" / "tiers25"]
MARK = re.compile(r"// (FIND|TWIN) ([\w-]+)(?: (\w+))?")


def _marks(name: str) -> dict[tuple[str, ...], tuple[str, int]]:
    """(FIND or TWIN, kind, cause) → (the method holding the marked line, its line number)."""
    return source_marks(DATA / "java" / f"{name}.java", MARK)


def _lines_of_loop(run: Path, compile_id: int, header: int) -> set[int | None]:
    result = asmcfg.open(str(run)).analyse(compile_id).analysis
    loop = next(lp for lp in result.loops if lp.header == header)
    return {f.line for b in loop.blocks for ins in result.cfg.method.instructions[
        result.cfg.blocks[b].start:result.cfg.blocks[b].end] for f in ins.frames[:1]}


CAUSES = {"long": "its counter is a long", "call": "a call of Vectors::kept stays in its body"}


@pytest.mark.slow
@pytest.mark.parametrize("run", VECTORS, ids=lambda p: p.name)
@pytest.mark.parametrize("cause", sorted(CAUSES))
def test_not_vectorized_with_its_cause_not_for_the_twin(run: Path, cause: str) -> None:
    """longIndex() counts with a long, intIndex() with an int; calls() calls kept() (kept out of line), inlined()
    calls twice(), which C2 inlines: C2 vectorizes the twins' loops."""
    found = [f for f in _findings(run) if f["kind"] == FindingKind.NOT_VECTORIZED]
    marks = _marks("Vectors")
    method, line = marks[("FIND", "not-vectorized", cause)]
    (finding,) = [f for f in found if f["method"] == method]
    assert finding["compile_id"] == _hottest_c2(run, method)
    assert finding["line"] == line and finding["scope"] == method and finding["share"] >= 0.5
    assert line in _lines_of_loop(run, finding["compile_id"], finding["block"])
    assert CAUSES[cause] in finding["cause"] and "cause unknown" not in finding["cause"]
    if cause == "call":
        assert any("not inlined: 'disallowed by CompileCommand'" in e for e in finding["evidence"])
        assert finding["whatif"].endswith(f"--compile-id {finding['compile_id']} --inline Vectors::kept")
    else:
        assert any(e.startswith("the counter steps as a long: ") for e in finding["evidence"])
        assert finding["whatif"] is None
    twin, _ = marks[("TWIN", "not-vectorized", cause)]
    assert _hottest_c2(run, twin)  # the twin ran compiled, and took samples, without a finding
    assert not [f for f in found if twin in (f["method"], f["scope"])]


@pytest.mark.slow
@pytest.mark.parametrize("run", TIERS, ids=lambda p: p.name)
def test_interpreted_and_c1_hot_found_for_the_program_not_for_the_twin(run: Path) -> None:
    """interpreted() is excluded from every compiler, compiled() is not; c1Only() is excluded from C2 by a compiler
    directive, c2() is not."""
    found = _findings(run)
    marks = _marks("Tiers")
    perf = asmcfg.open(str(run)).enrichment.perf
    assert perf is not None
    kinds: dict[str, list[dict[str, Any]]] = {}
    for f in found:
        kinds.setdefault(f["kind"], []).append(f)

    (interpreted,) = kinds[FindingKind.INTERPRETED]
    assert interpreted["method"] == marks[("FIND", "interpreted", "")][0]
    assert interpreted["compile_id"] is None and interpreted["share"] == pytest.approx(
        perf.share(perf.code_cache["Interpreter"]), abs=1e-4)
    assert any("reason 'excluded by CompileCommand'" in e for e in interpreted["evidence"])
    assert any("an upper bound" in e for e in interpreted["evidence"])

    (c1,) = kinds[FindingKind.C1_HOT]
    method = marks[("FIND", "c1-hot", "")][0]
    c1_rows = [s for s in perf.sampled() if s.method == method]
    assert c1_rows and all(s.compiler == "c1" for s in c1_rows)  # no C2 code of it ran
    assert c1["method"] == method and c1["compile_id"] == max(c1_rows, key=lambda s: s.samples).compile_id
    assert c1["share"] >= 0.5 and "made not compilable at tier 4" in " ".join(c1["evidence"])

    for kind in ("interpreted", "c1-hot"):
        twin = marks[("TWIN", kind, "")][0]
        assert _hottest_c2(run, twin)
        assert not [f for f in found if f["method"] == twin and f["kind"] in (FindingKind.INTERPRETED,
                                                                              FindingKind.C1_HOT)]
    # the twins' loop carries its sum from trip to trip: scalar, and the code does not say why
    unknown = [f for f in kinds[FindingKind.NOT_VECTORIZED] if f["method"] == marks[("TWIN", "interpreted", "")][0]]
    assert unknown and all("(cause unknown)" in f["cause"] for f in unknown)


def test_log_keeps_the_refusals() -> None:
    """`<make_not_compilable>`: the method, the tier, the reason and the counts."""
    (log,) = TIERS[0].glob("jvmpid*.xml.xz")
    refusals = read_jit_log(str(log)).refusals
    assert {(r.method, r.level) for r in refusals} == {("Tiers::c1Only", 4), ("Tiers::interpreted", 3),
                                                       ("Tiers::interpreted", 4)}
    assert all(r.reason == "excluded by CompileCommand" and r.invocations and r.backedges for r in refusals)


def test_no_tier_finding_without_a_recording(tmp_path: Path) -> None:
    """A log alone has no samples: nothing says the interpreter or C1 code was hot."""
    from tests.corpus import run_cli

    (log,) = TIERS[0].glob("jvmpid*.xml.xz")
    code, out, err = run_cli(str(log), "--findings", "-q")
    assert code == 0, err
    assert " interpreted " not in out and " c1-hot " not in out


def test_a_stale_task_is_no_reason() -> None:
    """HotSpot drops a queued compilation whose method cooled (`stale task`): that method was no longer hot, so it
    is no `interpreted` finding; a refusal of the same method is one."""
    from asmcfg.facts.tier_findings import tier_findings
    from asmcfg.model import Compiler
    from asmcfg.model.timeline import JitLog, JitTask, Refusal

    stale = JitTask(7, "p.A::m", Compiler.UNKNOWN, 2, "", None, 10, 11, 12, None, None, 30, "stale task", 40)
    jit = JitLog("log", 1, 0, 100, (stale,), (), ())
    assert tier_findings(jit, {}, 20.0) == []
    refused = Refusal(13, "p.A::m", 0, False, "excluded by CompileCommand", 5000, 0, 41)
    (found,) = tier_findings(JitLog("log", 1, 0, 100, (stale,), (), (), (refused,)), {}, 20.0)
    assert found.kind is FindingKind.INTERPRETED and found.share == 20.0 and "stale" not in found.cause
    assert tier_findings(JitLog("log", 1, 0, 100, (stale,), (), (), (refused,)), {}, 0.4) == []  # under 0.5%


def test_a_method_never_compiled_can_be_selected() -> None:
    """`--method` names a method that has no compilation: its interpreted finding, not a selection error."""
    from tests.corpus import run_cli

    code, out, err = run_cli(str(TIERS[0]), "--findings", "-q", "--method", "Tiers::interpreted")
    assert code == 0, err
    assert out.startswith("1 finding in 0 compilations analysed") and "interpreted Tiers::interpreted" in out
    code, _, err = run_cli(str(TIERS[0]), "--findings", "-q", "--method", "Tiers::nosuch")
    assert code == 1 and "no compilation matches the selection" in err
