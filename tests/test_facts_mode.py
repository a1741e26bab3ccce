"""`--jsonl FILE --facts`: each compilation's facts without instruction lists, on real LogCompilation logs; with the
heat the full records carry, on real `perf` recordings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA
from tests.corpus import run_cli

LOGC = DATA / "logc"
TRAPS = LOGC / "javac-jdk17-traps.xml.gz"
EXCERPT = LOGC / "javac-jdk17-excerpt.xml.gz"
TENSOR = LOGC / "jdk17-Tensor4D.xml.gz"
RECORDS = sorted(p.name for p in (DATA / "record").iterdir() if p.is_dir())
"""The `asmcfg record` folders copied from the corpus (JavacLoop's 15 s javac run is the one that takes long)."""


def jsonl(path: Path, out: Path, *flags: str) -> list[dict[str, Any]]:
    code, _, err = run_cli(str(path), "--jsonl", str(out), "-q", *flags)
    assert code == 0, err
    return [json.loads(line) for line in out.read_text().splitlines()]


def by_id(records: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {r["compile_id"]: r for r in records}


def test_facts_name_the_traps_the_log_disagrees_with(tmp_path: Path) -> None:
    charat = by_id(jsonl(TRAPS, tmp_path / "f.jsonl", "--facts"))[75]
    assert (charat["record"], charat["name"], charat["compiler"]) == ("facts", "java.lang.String::charAt", "c2")
    assert "blocks" not in charat and "edges" not in charat
    traps = {t["request"]: t for t in charat["traps"]}
    # C2 folded `index < 0 || index >= length` into one unsigned compare: the parser's unstable_if at
    # StringLatin1::charAt@1 became a range check and a null check, which the log still calls unstable_if.
    for request, reason, action in (("0xffffffe5", "range_check", "reinterpret"),
                                    ("0xfffffff6", "null_check", "maybe_recompile")):
        trap = traps[request]
        assert (trap["reason"], trap["action"], trap["verdict"]) == (reason, action, "differs")
        assert (trap["method"], trap["bci"], trap["bytecode"]) == ("java.lang.StringLatin1::charAt", 1, "iflt")
        assert trap["logged"] == [{"reason": "unstable_if", "action": "reinterpret"}]
    kept = traps["0xffffff45"]
    assert (kept["reason"], kept["method"], kept["bci"], kept["verdict"]) == (
        "unstable_if", "java.lang.String::isLatin1", 10, "agrees")
    assert "logged" not in kept
    # the unsigned compare's branch is the range check; the load before it the implicit null check
    assert [(c["kind"], c["edge"], c["to"]) for c in charat["checks"]] == [
        ("null_check", "exception", traps["0xfffffff6"]["block"]),
        ("range_check", "taken", traps["0xffffffe5"]["block"]),
    ]
    assert charat["trap_log"] == {"records": 7, "agrees": 1, "differs": 2, "unlogged": 0, "fired": 0,
                                  "fired_elsewhere": []}


def test_calls_carry_their_kind_callee_and_scope(tmp_path: Path) -> None:
    get = by_id(jsonl(EXCERPT, tmp_path / "f.jsonl", "--facts"))[97]
    assert get["name"] == "java.nio.DirectByteBuffer::get"
    assert [(c["kind"], c["callee"], c["scope"]["method"], c["scope"]["bci"], c["scope"]["line"])
            for c in get["calls"]] == [
        ("optimized_virtual", "scope", "java.nio.DirectByteBuffer::get", 4, 339),
        ("optimized_virtual", "getByte", "java.nio.DirectByteBuffer::get", 17, 339),
    ]
    # trap calls are listed once, under traps, with their decoded reason
    assert sorted(t["reason"] for t in get["traps"]) == ["null_assert", "unstable_if", "unstable_if"]


def test_loops_hold_their_checks_polls_and_the_strip_mined_outer_loop(tmp_path: Path) -> None:
    records = by_id(jsonl(TENSOR, tmp_path / "f.jsonl", "--facts"))
    diag = records[9]
    assert (diag["name"], diag["compiler"]) == ("Tensor4D::sumDiag", "c2")
    assert diag["counts"]["trap_reasons"] == {"null_check": 6, "predicate": 1, "range_check": 6}
    # C2 strip-mined the loop: the outer one polls, the inner one runs the six range checks without a poll
    outer, inner = diag["loops"]
    assert (outer["depth"], outer["strip_mined_outer"], outer["polls"]) == (1, True, 1)
    assert (inner["depth"], inner["has_poll"], inner["polls"], inner["range_checks"]) == (2, False, 0, 6)
    assert set(inner["blocks"]) < set(outer["blocks"]) and inner["calls"] == []
    # sum4's four nested loops each keep a poll: none is strip-mined
    sum4 = records[8]
    assert [(loop["depth"], loop["has_poll"], loop["strip_mined_outer"]) for loop in sum4["loops"]] == [
        (1, True, False), (2, True, False), (3, True, False), (4, True, False)]


def test_facts_are_the_full_records_without_instructions(tmp_path: Path) -> None:
    for path in (TENSOR, TRAPS, EXCERPT):
        facts = jsonl(path, tmp_path / "f.jsonl", "--facts")
        full = jsonl(path, tmp_path / "full.jsonl")
        assert [f["compile_id"] for f in facts] == [f["compile_id"] for f in full]
        for fact, whole in zip(facts, full, strict=True):
            for key in ("name", "compiler", "level", "osr_bci", "jdk", "entry", "verified_entry", "counts", "loops",
                        "trap_log"):
                assert fact[key] == whole[key], (path.name, fact["compile_id"], key)
            addresses = {b["id"]: {i["address"] for i in b["instructions"]} for b in whole["blocks"]}
            assert [{k: t[k] for k in ("block", "kind", "request", "reason", "action", "method", "bci", "line")}
                    for t in fact["traps"]] == [
                {"block": b["id"], **{k: b["trap"][k] for k in ("kind", "request", "reason", "action", "method",
                                                                 "bci", "line")}}
                for b in whole["blocks"] if b["trap"]]
            assert all(t["address"] in addresses[t["block"]] for t in fact["traps"])
            assert [(c["block"], c["kind"], c["to"]) for c in fact["checks"]] == [
                (e["from"], e["check"], e["to"]) for e in whole["edges"] if e["check"]]
            assert all(c["address"] in addresses[c["block"]] for c in fact["checks"])
            assert [(c["block"], c["kind"], c["callee"]) for c in fact["calls"]] == [
                (c["block"], c["kind"], c["callee"]) for c in whole["calls"]]
    # what a CI gate reads is a small fraction of the full records of the same log
    assert (tmp_path / "f.jsonl").stat().st_size * 10 <= (tmp_path / "full.jsonl").stat().st_size


def test_facts_without_jsonl_is_a_usage_error() -> None:
    code, _, err = run_cli(str(TENSOR), "--facts")
    assert code == 2 and "--facts shapes the --jsonl records" in err


@pytest.mark.parametrize("run", [pytest.param(r, marks=pytest.mark.slow) if "Javac" in r else r for r in RECORDS])
def test_facts_of_a_record_folder_carry_the_heat_of_its_full_records(run: str, tmp_path: Path) -> None:
    """Each facts record has the heat of the same compilation's full record: its share of the JVM's samples and
    its hot paths as they are, each sampled block's heat and samples, each loop's heat summed from its blocks'."""
    folder = DATA / "record" / run
    facts = jsonl(folder, tmp_path / "f.jsonl", "--facts")
    full = jsonl(folder, tmp_path / "full.jsonl")
    assert [f["compile_id"] for f in facts] == [f["compile_id"] for f in full]
    measured = 0
    for fact, whole in zip(facts, full, strict=True):
        for key in ("profile", "unattributed", "hot_paths"):
            assert fact.get(key, "absent") == whole.get(key, "absent"), (run, fact["compile_id"], key)
        if "profile" not in whole:
            assert "block_heat" not in fact and all("heat" not in loop for loop in fact["loops"])
            continue
        measured += 1
        blocks = {b["id"]: b for b in whole["blocks"]}
        assert fact["block_heat"] == [
            {"block": b["id"], "heat": b["heat"], "samples": sum(i.get("samples", 0) for i in b["instructions"])}
            for b in whole["blocks"] if any(v > 0 for v in b["heat"].values())]
        assert sum(b["samples"] for b in fact["block_heat"]) == whole["profile"]["samples"]
        assert [{k: v for k, v in loop.items() if k != "heat"} for loop in fact["loops"]] == whole["loops"]
        for loop in fact["loops"]:
            own = [loop["header"]] if loop["back_edges"] == [loop["header"]] else loop["blocks"]
            for event, share in loop["heat"].items():
                assert share == pytest.approx(sum(blocks[b]["heat"].get(event, 0.0) for b in own), abs=1e-3)
    assert measured >= 5, "the recording's sampled compilations"
