"""Inlining decisions per call by the call's whole inlining chain, on LogCompilation runs of `java/Chain.java` (a
recursive `fib` inlined into itself, a `work` method called from `leaf`, which is inlined at two depths) and
`java/Intr.java` (calls C2 replaces by intrinsics), JDK 17 and JDK 25, read as a hex dump with `--log` and as the
log itself. The expected decisions were read by hand from each `<task>`'s `<parse>`/`<call>`/`<inline_*>`
nesting; the line numbers are the decisions' lines in the log."""

from __future__ import annotations

from pathlib import Path

import pytest

from asmcfg.dialects.logcompilation import link
from asmcfg.model import Analysis, Compiler
from asmcfg.run.pipeline import Selector, analyse_method, open_input, pick_one
from tests.corpus import DATA

LOGC = DATA / "logc"
Chain = tuple[str, ...]
TOO_DEEP_C2 = "recursive inlining is too deep"
TOO_DEEP_C1 = "recursive inlining too deep"

CHAIN_DECISIONS: dict[tuple[str, int], dict[Chain, tuple[str, int]]] = {
    # JDK 17: C2 compile 15 inlines fib at run@14 and fib into it at fib@12 and fib@18 (`inline (hot)`, lines
    # 1477 and 1493); the four calls left are one level deeper, each with the one decision at its own chain
    ("jdk17", 15): {
        ("fib@12", "fib@12", "run@14"): (TOO_DEEP_C2, 1483),
        ("fib@18", "fib@12", "run@14"): (TOO_DEEP_C2, 1487),
        ("fib@12", "fib@18", "run@14"): (TOO_DEEP_C2, 1499),
        ("fib@18", "fib@18", "run@14"): (TOO_DEEP_C2, 1503),
        ("leaf@1", "run@21"): ("hot method too big", 1517),
        ("leaf@1", "mid@3", "run@28"): ("hot method too big", 1532),
    },
    ("jdk17", 14): {  # the OSR compilation of the same loop
        ("fib@12", "fib@12", "run@14"): (TOO_DEEP_C2, 1377),
        ("fib@18", "fib@12", "run@14"): (TOO_DEEP_C2, 1381),
        ("fib@12", "fib@18", "run@14"): (TOO_DEEP_C2, 1393),
        ("fib@18", "fib@18", "run@14"): (TOO_DEEP_C2, 1397),
        ("leaf@1", "run@21"): ("hot method too big", 1411),
        ("leaf@1", "mid@3", "run@28"): ("hot method too big", 1426),
    },
    ("jdk17", 13): {  # C1 at tier 3
        ("fib@12", "fib@12", "run@14"): (TOO_DEEP_C1, 1171),
        ("fib@18", "fib@12", "run@14"): (TOO_DEEP_C1, 1174),
        ("fib@12", "fib@18", "run@14"): (TOO_DEEP_C1, 1183),
        ("fib@18", "fib@18", "run@14"): (TOO_DEEP_C1, 1186),
        ("leaf@1", "run@21"): ("callee is too large", 1199),
        ("leaf@1", "mid@3", "run@28"): ("callee is too large", 1213),
    },
    ("jdk25", 18): {
        ("fib@12", "fib@12", "run@14"): (TOO_DEEP_C2, 1338),
        ("fib@18", "fib@12", "run@14"): (TOO_DEEP_C2, 1342),
        ("fib@12", "fib@18", "run@14"): (TOO_DEEP_C2, 1355),
        ("fib@18", "fib@18", "run@14"): (TOO_DEEP_C2, 1359),
        ("leaf@1", "run@21"): ("hot method too big", 1374),
        ("leaf@1", "mid@3", "run@28"): ("hot method too big", 1391),
    },
}
"""(run, compile id) -> each call's chain (innermost first, `Chain::` left off) -> its one decision."""


def analysed(path: Path, compile_id: int, log: Path | None = None) -> Analysis:
    stream = open_input(str(path))
    picked = pick_one(stream.methods, Selector(None, compile_id, None))
    assert picked is not None
    method = stream.complete(picked.method)
    if log is not None:
        method = link.attach(method, link.read(str(log)), strict=True)
    return analyse_method(method)


def short(chain: tuple[tuple[str, int | None], ...]) -> Chain:
    return tuple(f"{method.rsplit('::', 1)[-1]}@{bci}" for method, bci in chain)


def java_calls(result: Analysis) -> dict[Chain, list[tuple[str, int]]]:
    """Each Java call's frames and decisions (reason, log line)."""
    return {short(tuple((f.method, f.bci) for f in c.frames)): [(d.reason, d.line) for d in c.decisions]
            for c in result.calls if c.java}


@pytest.mark.parametrize("run, compile_id", sorted(CHAIN_DECISIONS))
@pytest.mark.parametrize("form", ["hex with --log", "log"])
def test_each_call_carries_the_decision_at_its_own_chain(run: str, compile_id: int, form: str) -> None:
    xml = LOGC / f"chain-{run}.xml.gz"
    result = (analysed(LOGC / f"chain-{run}-stdout.txt.gz", compile_id, xml) if form == "hex with --log"
              else analysed(xml, compile_id))
    calls = java_calls(result)
    expected = CHAIN_DECISIONS[(run, compile_id)]
    assert {chain: decisions for chain, decisions in calls.items() if chain in expected} == {
        chain: [decision] for chain, decision in expected.items()}
    # no call outside those chains carries a decision of another chain
    assert all(not decisions for chain, decisions in calls.items() if chain not in expected)


def test_the_recursive_site_has_one_decision_per_chain_in_the_log() -> None:
    result = analysed(LOGC / "chain-jdk17.xml.gz", 15)
    at_fib12 = {short(d.chain): (d.inlined, d.reason, d.line) for d in result.cfg.method.log_inlines or ()
                if (d.caller, d.bci) == ("Chain::fib", 12)}
    assert at_fib12 == {
        ("fib@12", "run@14"): (True, "inline (hot)", 1477),
        ("fib@12", "fib@12", "run@14"): (False, TOO_DEEP_C2, 1483),
        ("fib@12", "fib@18", "run@14"): (False, TOO_DEEP_C2, 1499),
    }


def test_the_summary_names_each_decision_by_its_chain_and_its_own_call() -> None:
    from asmcfg.facts.meaning import inlining_rows

    result = analysed(LOGC / "chain-jdk17-stdout.txt.gz", 15, LOGC / "chain-jdk17.xml.gz")
    rows = {row["line"]: row for row in inlining_rows(result)}
    assert rows["1477"]["site"] == "Chain::fib@12 <- Chain::run@14" and rows["1477"]["call"] == "-"
    blocks = {short(tuple((f.method, f.bci) for f in c.frames)): f"B{c.block}" for c in result.calls if c.java}
    assert rows["1483"]["site"] == "Chain::fib@12 <- Chain::fib@12 <- Chain::run@14"
    assert rows["1483"]["call"] == blocks[("fib@12", "fib@12", "run@14")]
    assert rows["1499"]["call"] == blocks[("fib@12", "fib@18", "run@14")]


INTRINSICS = {
    # C2 writes <intrinsic id=…> where it replaced a call; C1 says <inline_success reason='intrinsic'>
    ("jdk17", 24): {("run@22", "java.lang.Object::hashCode", "intrinsic _hashCode, virtual", 1975),
                    ("root@1 <- run@35", "java.lang.Math::sqrt", "intrinsic _dsqrt", 1986),
                    ("copy@5 <- run@68", "java.lang.System::arraycopy", "intrinsic _arraycopy", 2007),
                    ("equals@44 <- run@86", "java.lang.StringLatin1::equals", "intrinsic _equalsL", 2041)},
    ("jdk25", 27): {("run@22", "java.lang.Object::hashCode", "intrinsic _hashCode, virtual", 1834),
                    ("root@1 <- run@35", "java.lang.Math::sqrt", "intrinsic _dsqrt", 1846),
                    ("copy@5 <- run@68", "java.lang.System::arraycopy", "intrinsic _arraycopy", 1868),
                    ("equals@44 <- run@86", "java.lang.StringLatin1::equals", "intrinsic _equalsL", 1903)},
    ("jdk17", 19): {("root@1 <- run@35", "java.lang.Math::sqrt", "intrinsic", 1497)},
}


@pytest.mark.parametrize("run, compile_id", sorted(INTRINSICS))
def test_intrinsic_records_are_decisions(run: str, compile_id: int) -> None:
    result = analysed(LOGC / f"intrinsics-{run}-stdout.txt.gz", compile_id, LOGC / f"intrinsics-{run}.xml.gz")
    found = {(" <- ".join(short(d.chain)), d.callee, d.reason, d.line)
             for d in result.cfg.method.log_inlines or () if d.reason.startswith("intrinsic")}
    assert found == INTRINSICS[(run, compile_id)]
    assert all(d.inlined for d in result.cfg.method.log_inlines or () if d.reason.startswith("intrinsic"))


@pytest.mark.parametrize("run, compile_id, line", [("jdk17", 24, 1975), ("jdk25", 27, 1834)])
def test_the_virtual_hashcode_slow_call_carries_its_intrinsic_decision(run: str, compile_id: int, line: int) -> None:
    # C2's virtual hashCode intrinsic keeps a virtual call to hashCode for receivers that override it
    result = analysed(LOGC / f"intrinsics-{run}-stdout.txt.gz", compile_id, LOGC / f"intrinsics-{run}.xml.gz")
    (call,) = [c for c in result.calls if c.java]
    assert (call.kind.value, call.callee, short(tuple((f.method, f.bci) for f in call.frames))) == (
        "virtual", "java.lang.Object::hashCode", ("run@22",))
    assert [(d.inlined, d.reason, d.line) for d in call.decisions] == [(True, "intrinsic _hashCode, virtual", line)]
    assert call.not_inlined_because() == ""


@pytest.mark.parametrize("run, compile_id, jdk", [("jdk25", 18, 25), ("jdk17", 15, 17)])
def test_log_names_the_jdk_of_a_dump_that_names_none(run: str, compile_id: int, jdk: int) -> None:
    dump = LOGC / f"chain-{run}-stdout.txt.gz"
    alone = analysed(dump, compile_id)
    assert alone.cfg.method.header.compiler is Compiler.C2
    if run == "jdk25":  # the layout allows JDK 24 and 25: without the log the newest table is assumed
        assert "newest" in alone.jdk_why
    logged = analysed(dump, compile_id, LOGC / f"chain-{run}.xml.gz")
    assert (logged.jdk, logged.jdk_why) == (jdk, "named in the input")
    assert link.read(str(LOGC / f"chain-{run}.xml.gz")).jdk == jdk
