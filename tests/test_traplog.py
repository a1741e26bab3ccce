"""Decoded traps set beside the `<uncommon_trap>` records of a LogCompilation log, agreements and disagreements."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import Any

import pytest

from asmcfg.render.json import jsonl_record
from asmcfg.run import parallel
from asmcfg.run.pipeline import analyse_method, open_input
from tests.conftest import DATA
from tests.corpus import run_cli

LOGC = DATA / "logc"
TRAPS = LOGC / "javac-jdk17-traps.xml.gz"


def method_json(path: str, compile_id: int) -> dict[str, Any]:
    code, out, err = run_cli(path, "--compile-id", str(compile_id), "--json", "-", "-q")
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)["methods"][0]
    return document


def traps_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [b["trap"] | {"block": b["id"]} for b in document["blocks"] if b["trap"]]


@pytest.mark.parametrize("run", ["jdk17-Tensor4D", "jdk25-Tensor4D", "jdk17-aarch64-Tensor4D", "jdk17-Switches"])
def test_every_decoded_c2_trap_of_the_small_runs_agrees_with_the_log(run: str) -> None:
    stream = open_input(str(LOGC / f"{run}.xml.gz"))
    c2 = [m for m in stream.methods if m.header.compiler == "c2"]
    compared = 0
    for method in c2:
        result = analyse_method(stream.complete(method))
        for block, trap in result.traps.items():
            records = {(r.method, r.bci, r.reason, r.action) for r in result.cfg.method.log_traps or ()}
            if not records:
                continue
            assert result.trap_log[block].verdict == "agrees"
            assert (trap.method, trap.bci, trap.reason, trap.action) in records
            compared += 1
    assert compared >= 7


def test_a_trap_c2_changed_after_parsing_is_flagged_with_what_the_log_says() -> None:
    doc = method_json(str(TRAPS), 75)
    assert doc["name"] == "java.lang.String::charAt"
    differing = [t for t in traps_of(doc) if t["log"]["verdict"] == "differs"]
    # C2 folded `index < 0 || index >= length` into one unsigned compare: the trap the parser logged as
    # unstable_if at StringLatin1::charAt@1 became a range check (0xffffffe5) and a null check (0xfffffff6).
    assert {(t["request"], t["reason"], t["action"]) for t in differing} == {
        ("0xffffffe5", "range_check", "reinterpret"),
        ("0xfffffff6", "null_check", "maybe_recompile"),
    }
    for trap in differing:
        assert (trap["method"], trap["bci"]) == ("java.lang.StringLatin1::charAt", 1)
        assert [(r["reason"], r["action"]) for r in trap["log"]["logged"]] == [("unstable_if", "reinterpret")]
    assert doc["trap_log"]["differs"] == 2 and doc["trap_log"]["agrees"] == 1
    code, out, err = run_cli(str(TRAPS), "--compile-id", "75", "--no-fold")
    assert code == 0
    assert out.count("LOG DIFFERS: the compiler logged unstable_if / reinterpret here") == 2
    assert "Traps the log disagrees with" in err and "1 agree, 2 differ" in err


def test_a_jvmci_builds_reason_name_is_the_same_reason() -> None:
    doc = method_json(str(TRAPS), 97)
    asserts = [t for t in traps_of(doc) if t["reason"] == "null_assert"]
    assert asserts and all(t["log"]["verdict"] == "agrees" for t in asserts)
    assert {r["reason"] for t in asserts for r in t["log"]["logged"]} == {"null_assert_or_unreached0"}
    assert doc["trap_log"]["differs"] == 0


def test_a_trap_that_fired_at_run_time_is_counted_on_the_decoded_trap() -> None:
    doc = method_json(str(LOGC / "javac-jdk17-excerpt.xml.gz"), 326)
    fired = [t for t in traps_of(doc) if t["log"] and t["log"]["fired"]]
    assert [(t["reason"], t["bci"], t["method"]) for t in fired] == [
        ("profile_predicate", 19, "jdk.internal.jimage.ImageStringsReader::stringFromByteBufferMatches")
    ]
    # the excerpt holds four `<uncommon_trap thread=…>` records of compile 326, all at that predicate
    assert fired[0]["log"]["fired"] == doc["trap_log"]["fired"] == 4
    assert doc["trap_log"]["fired_elsewhere"] == []


def test_parallel_jsonl_reads_the_records_ahead_and_gives_the_same_evidence() -> None:
    out = io.StringIO()
    parallel.analyse_to_jsonl(str(TRAPS), out, jsonl_record, workers=2)
    records = {r["compile_id"]: r for r in map(json.loads, out.getvalue().splitlines())}
    for compile_id in (75, 97):
        single = method_json(str(TRAPS), compile_id)
        assert records[compile_id]["trap_log"] == single["trap_log"]
        assert [t["log"] for t in traps_of(records[compile_id])] == [t["log"] for t in traps_of(single)]


def test_without_a_log_the_trap_log_is_null() -> None:
    doc = method_json(str(DATA / "logc" / "jdk17-Tensor4D-stdout.txt.gz"), 6)
    assert doc["trap_log"] is None
    assert all(t["log"] is None for t in traps_of(doc))


def test_a_c1_compilation_of_a_log_says_the_log_has_no_records_for_it() -> None:
    xml = str(LOGC / "jdk17-Tensor4D.xml.gz")
    code, _, err = run_cli(xml, "--method", "sum4", "--compiler", "c1", "--dot", "-")
    assert code == 0
    assert "LogCompilation: the log holds no trap records for this compilation" in err
    doc = json.loads(run_cli(xml, "--method", "sum4", "--compiler", "c1", "--json", "-", "-q")[1])["methods"][0]
    assert doc["trap_log"] == {"records": 0, "agrees": 0, "differs": 0, "unlogged": 0, "fired": 0,
                               "fired_elsewhere": []}


def test_jsonl_from_stdin_cannot_read_the_records_ahead_and_says_null() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "asmcfg", "-", "--jsonl", "-", "-q"], input=TRAPS.read_bytes(), capture_output=True,
        check=True,
    )
    records = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["compile_id"] for r in records] == [75, 97]
    assert all(r["trap_log"] is None for r in records)
