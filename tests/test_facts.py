"""asmcfg reproduces facts.jsonl for every C2 method of the hsdis files (x86 AT&T/Intel, JDK 17/25, AArch64)."""

from __future__ import annotations

from typing import Any

import pytest
from corpus import HSDIS, constant_rows, data_name, facts_by_file, json_methods, not_taken_range_checks

HSDIS_FACTS = {f: rows for f, rows in facts_by_file("print-hsdis").items()}


@pytest.mark.parametrize("fact_file", sorted(HSDIS_FACTS))
def test_facts_of_every_c2_method(fact_file: str) -> None:
    path = HSDIS / data_name(fact_file)
    methods = {m["compile_id"]: m for m in json_methods(str(path), "--all", "--compiler", "c2")}
    pool_rows = constant_rows(path)
    not_taken = not_taken_range_checks(path)
    for fact in HSDIS_FACTS[fact_file]:
        got = methods[fact["compile_id"]]
        assert got["name"] == fact["name"]
        assert got["osr_bci"] == fact["osr_bci"]
        assert got["entry"] == fact["entry"]
        assert got["verified_entry"] == fact["verified_entry"]
        counts = got["counts"]
        # facts.jsonl counts the [Constant Pool] data rows as instructions; asmcfg does not (see docs/architecture.md).
        assert counts["instructions"] + pool_rows[fact["compile_id"]] == fact["instructions"]
        assert counts["uncommon_trap_calls"] == fact["uncommon_trap_calls"]
        assert counts["trap_reasons"] == fact["trap_reasons"]
        # facts.jsonl counts the branches whose taken side traps; asmcfg also those whose not-taken side does
        # (`cmp; jb <body>`, then the trap: see docs/architecture.md), counted here from the raw text
        assert counts["range_check_branches"] == fact["range_check_branches"] + not_taken[fact["compile_id"]]
        assert counts["safepoint_polls"] == fact["safepoint_polls"]
        _model_agrees(got)


def _model_agrees(method: dict[str, Any]) -> None:
    """The blocks and edges carry the counts: one uncommon_trap block per trap call, one check edge per branch."""
    counts = method["counts"]
    trap_blocks = [b for b in method["blocks"] if "uncommon_trap" in b["tags"]]
    assert len(trap_blocks) == counts["uncommon_trap_calls"]
    assert all(b["trap"] and b["trap"]["kind"] == "uncommon_trap" for b in trap_blocks)
    range_edges = [e for e in method["edges"] if e["check"] == "range_check"]
    assert len(range_edges) == counts["range_check_branches"]
    assert all(e["kind"] in ("taken", "fallthrough") for e in range_edges)
    polls = sum(1 for b in method["blocks"] for i in b["instructions"] if "poll" in i.get("relocs", []))
    assert polls == counts["safepoint_polls"]


def test_single_method_selection_by_compile_id() -> None:
    path = HSDIS / "jdk17-Tensor4D-print-hsdis-att.txt.gz"
    (method,) = json_methods(str(path), "--compile-id", "9")
    assert method["name"] == "Tensor4D::sum4"
    assert method["verified_entry"] == "0x7f6e3cec8140"
    assert method["entry"] is None
    assert method["jdk"] == 17
    reasons = {b["trap"]["reason"] for b in method["blocks"] if b["trap"]}
    assert reasons == {"range_check", "null_check", "predicate"}
