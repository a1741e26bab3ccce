"""`--jsonl` carries a LogCompilation log's inlining decisions to its workers: every record equals `--json`'s."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, json_methods, run_cli

from asmcfg.render.json import jsonl_record
from asmcfg.run import parallel

LOGC = DATA / "logc"


def jsonl(*args: str) -> list[dict[str, Any]]:
    """The records of `asmcfg ARGS --jsonl -`, without their `schema` (the `--json` document has it once)."""
    code, out, err = run_cli(*args, "--jsonl", "-", "-q")
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert all(r.pop("schema") == 1 for r in records)
    return records


def single(*args: str) -> dict[str, Any]:
    """The one method of `asmcfg ARGS --json -`."""
    (method,) = json_methods(*args)
    return method


def decisions(record: dict[str, Any]) -> list[tuple[str, str, bool, str]]:
    """(call kind, callee, inlined, reason) of each decision the record's calls carry."""
    return [(c["kind"], d["callee"], d["inlined"], d["reason"]) for c in record["calls"] for d in c["inlining"]]


@pytest.mark.parametrize("name", ["inlining-jdk17", "inlining-jdk25", "inlining-dontinline-jdk17"])
def test_every_jsonl_record_of_a_log_is_its_single_method_json_record(name: str) -> None:
    path = str(LOGC / f"{name}.xml.gz")
    records = jsonl(path)
    assert len(records) == 4
    for record in records:
        assert record["inlining"] is not None
        assert record == single(path, "--compile-id", str(record["compile_id"]))
    run = next(r for r in records if r["name"] == "Inlining::run" and r["compiler"] == "c2")
    calls = decisions(run)
    if name == "inlining-dontinline-jdk17":
        assert ("static", "Inlining::tiny", False, "disallowed by CompileCommand") in calls
    else:
        assert ("static", "Inlining::big", False, "hot method too big") in calls
        assert ("virtual", "Inlining$Op::apply", False, "virtual call") in calls
        assert ("Inlining::tiny", True) in {(d["callee"], d["inlined"]) for d in run["inlining"]}


@pytest.mark.slow
def test_the_javac_excerpt_gives_the_same_records_in_parallel_as_one_by_one() -> None:
    path = str(LOGC / "javac-jdk17-excerpt.xml.gz")
    out = io.StringIO()
    stats = parallel.analyse_to_jsonl(path, out, jsonl_record, workers=2)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    for record in records:
        record.pop("schema")
    assert stats.analysed == len(records) == 263
    assert records == json_methods(path, "--all")
    # the excerpt keeps the compiler task of compile 326 only: its decisions, no others, come with it (14
    # inline_success/inline_fail records and one <intrinsic id='_getByte'>)
    logged = {r["compile_id"]: r["inlining"] for r in records if r["inlining"]}
    assert list(logged) == [326] and len(logged[326]) == 15
    assert [d["reason"] for d in logged[326]].count("intrinsic _getByte") == 1
    assert all(r["inlining"] == [] for r in records if r["compile_id"] != 326)
    assert records[[r["compile_id"] for r in records].index(326)] == single(path, "--compile-id", "326")


def test_facts_records_carry_the_reasons_a_call_was_not_inlined() -> None:
    path = str(LOGC / "inlining-jdk17.xml.gz")
    facts = {r["compile_id"]: r for r in jsonl(path, "--facts")}
    run = single(path, "--compile-id", "24")
    refused = [(c["callee"], d["reason"]) for c in run["calls"] for d in c["inlining"] if not d["inlined"]]
    assert [(c["callee"], c.get("not_inlined")) for c in facts[24]["calls"] if c.get("not_inlined")] == refused
    assert refused == [("Inlining::big", "hot method too big"), ("Inlining$Op::apply", "virtual call")]


@pytest.mark.parametrize("name", ["inlining-jdk17", "inlining-jdk25", "jdk17-Tensor4D"])
def test_log_puts_its_records_onto_a_text_dump_in_jsonl(name: str) -> None:
    dump, log = str(LOGC / f"{name}-stdout.txt.gz"), str(LOGC / f"{name}.xml.gz")
    records = jsonl(dump, "--log", log)
    assert records == json_methods(dump, "--log", log, "--all")
    assert any(r["inlining"] for r in records) and any(r["trap_log"] for r in records)
    assert jsonl(dump) != records and all(r["inlining"] is None for r in jsonl(dump))
    if name.startswith("inlining"):
        run = next(r for r in records if r["name"] == "Inlining::run" and r["compiler"] == "c2")
        assert run == single(dump, "--log", log, "--compile-id", str(run["compile_id"]))
        assert ("static", "Inlining::big", False, "hot method too big") in decisions(run)
        c1 = next(r for r in records if r["name"] == "Inlining::run" and r["compiler"] == "c1")
        assert ("static", "Inlining::big", False, "callee is too large") in decisions(c1)


def test_log_of_another_run_leaves_the_jsonl_records_without_records() -> None:
    # Tensor4D's log names other methods at the compile ids of the Inlining dump: none of them is attached
    dump = str(LOGC / "inlining-jdk17-stdout.txt.gz")
    records = jsonl(dump, "--log", str(LOGC / "jdk17-Tensor4D.xml.gz"))
    assert records == jsonl(dump)


def test_a_log_without_tasks_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("kept\n")
    dump = str(LOGC / "inlining-jdk17-stdout.txt.gz")
    code, _, err = run_cli(dump, "--log", dump, "--jsonl", str(out), "-q")
    assert code != 0 and "holds no compiler <task> records" in err and "inlining-jdk17-stdout.txt.gz" in err
    assert out.read_text() == "kept\n"


def test_jsonl_from_stdin_has_no_log_read_ahead_so_inlining_is_null() -> None:
    path = LOGC / "inlining-jdk17.xml.gz"
    done = subprocess.run([sys.executable, "-m", "asmcfg", "-", "--jsonl", "-", "-q"], input=path.read_bytes(),
                          capture_output=True, check=True)
    records = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["compile_id"] for r in records] == [21, 22, 23, 24]
    assert all(r["inlining"] is None and r["trap_log"] is None for r in records)
    assert all(c["inlining"] == [] for r in records for c in r["calls"])
