"""Every mode reads and enriches a compilation the same way: `--jsonl` writes, for every compilation of every copied
input, the record `--all --json` writes, and one chosen compilation's `--json` is that record too; with `--log`
and `--profile` as well."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import DATA, run_cli, slow_when_large

NOT_INPUTS = ("java", "jmh", "snippets")
"""Folders of tests/data that hold no HotSpot output (Java sources, a JMH project, cut compilations)."""
PERFASM = DATA / "perfasm"
DEVBENCH = PERFASM / "jdk25-DevBench"
LOGC = DATA / "logc"
SAVELOG = str(DEVBENCH / "perfasm-savelog-switchRun.log.xz")
"""JMH's saveLog of the switchRun run: LogCompilation XML whose sampled lines carry perfasm's percentage columns."""


def _inputs() -> list[Path]:
    found = []
    for path in sorted(DATA.rglob("*")):
        if not path.is_file() or path.parent == DATA or path.relative_to(DATA).parts[0] in NOT_INPUTS:
            continue
        if path.name in ("README.md", "facts.json", "facts.jsonl"):
            continue
        if (path.parent / "record.json").is_file() and not path.name.startswith("jvmpid"):
            continue  # a record folder's perf files and manifest: inputs only with their folder
        found.append(path)
    return found


def _all_json(*args: str) -> tuple[int, list[dict[str, Any]]]:
    code, out, _ = run_cli(*args, "--all", "--json", "-", "-q")
    return code, json.loads(out)["methods"] if code == 0 else []


def _jsonl(*args: str) -> tuple[int, list[dict[str, Any]]]:
    code, out, _ = run_cli(*args, "--jsonl", "-", "-q")
    records = [json.loads(line) for line in out.splitlines()] if code == 0 else []
    for record in records:
        assert record.pop("schema") == 1
    return code, records


def _same(path_args: tuple[str, ...]) -> list[dict[str, Any]]:
    code, whole = _all_json(*path_args)
    lines_code, lines = _jsonl(*path_args)
    assert lines_code == code, f"--all --json exits {code}, --jsonl {lines_code}"
    assert [(r["compile_id"], r["name"]) for r in lines] == [(r["compile_id"], r["name"]) for r in whole]
    for written, expected in zip(lines, whole, strict=True):
        assert written == expected, f"compile id {expected['compile_id']} differs between --jsonl and --all --json"
    return whole


@pytest.mark.parametrize("path", slow_when_large(_inputs()), ids=lambda p: str(p.relative_to(DATA)))
def test_jsonl_record_equals_the_all_json_record_for_every_compilation(path: Path) -> None:
    _same((str(path),))


def test_one_compilation_chosen_by_compile_id_is_the_record_every_mode_writes() -> None:
    path = str(DATA / "nohsdis" / "jdk17-Tensor4D-print-nohsdis.txt")
    whole = _same((path,))
    for record in whole:
        code, out, err = run_cli(path, "--compile-id", str(record["compile_id"]), "--json", "-", "-q")
        assert code == 0, err
        (alone,) = json.loads(out)["methods"]
        assert alone == record


def test_the_log_goes_onto_the_same_compilations_in_every_mode() -> None:
    whole = _same((str(LOGC / "hsdis-jdk17-Tensor4D.txt.gz"), "--log", str(LOGC / "jdk17-Tensor4D.xml.gz")))
    logged = [r for r in whole if r["trap_log"] or r["inlining"]]
    assert logged, "the log's records reach the compilations of its run"


@pytest.mark.slow
def test_a_savelog_compilation_keeps_the_heat_of_its_percentage_columns_in_every_mode() -> None:
    (stub,) = _same((SAVELOG, "--compile-id", "568"))
    assert stub["profile"] is not None, "the hottest instructions' columns are heat, not unreadable lines"
    assert stub["skipped_lines_total"] == 0


@pytest.mark.slow
def test_the_profile_goes_onto_every_compilation_it_measured_in_every_mode() -> None:
    (stub,) = _same((SAVELOG, "--compile-id", "568", "--profile", str(DEVBENCH / "perfasm-console.txt")))
    assert stub["profile"]["events"] == ["cpu-clock"], "perfasm's event names, not the saveLog's columns"
