"""Whole runs against golden files: the DOT, the JSON and the summary of one compilation per dialect and ISA.

A change that moves output shows here as a diff of tests/goldens/. When the change is meant, rewrite them with
`python -m pytest tests/test_goldens.py --update-goldens` and review the diff before committing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from asmcfg.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = Path(__file__).parent / "goldens"
RUNS = {
    "hsdis-x86-shapes-osr": ("tests/data/hsdis/jdk17-Shapes-print-hsdis-att.txt.gz", "15"),
    "hsdis-aarch64-recosr-fib": ("tests/data/hsdis/jdk17-aarch64-RecOsr-print-hsdis.txt.gz", "6"),
    "machcode-x86-switches-run": ("tests/data/nohsdis/jdk17-Switches-print-nohsdis.txt", "16"),
    "perfasm-devbench-switchrun": ("tests/data/perfasm/jdk17-DevBench/perfasm-console.txt", "513"),
    "logcompilation-javac-probe": ("tests/data/logc/javac-jdk17-excerpt.xml.gz", "4"),
}
"""Golden name → (input, compile id), one per input dialect plus AArch64."""


def outputs(tmp_path: Path, source: str, compile_id: str) -> dict[str, str]:
    """The DOT, JSON and plain summary of one compilation, from one in-process run."""
    dot, document = tmp_path / "out.dot", tmp_path / "out.json"
    args = [source, "--compile-id", compile_id, "--dot", str(dot), "--json", str(document)]
    result = CliRunner().invoke(main, args, env={"NO_COLOR": "1", "COLUMNS": "120"}, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return {"dot": dot.read_text(), "json": document.read_text(), "summary.txt": result.stderr}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_whole_run_matches_its_goldens(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update_goldens: bool
) -> None:
    monkeypatch.chdir(ROOT)
    found = outputs(tmp_path, *RUNS[name])
    for suffix, text in found.items():
        golden = GOLDENS / f"{name}.{suffix}"
        if update_goldens:
            golden.parent.mkdir(exist_ok=True)
            golden.write_text(text)
        assert text == golden.read_text(), f"{golden.name} differs (rerun with --update-goldens if meant)"


@pytest.mark.parametrize("name", sorted(RUNS))
def test_goldens_hold_the_chosen_compilation(name: str) -> None:
    # the goldens are only worth comparing if they show the compilation asked for, with its graph
    compile_id = RUNS[name][1]
    (method,) = json.loads((GOLDENS / f"{name}.json").read_text())["methods"]
    assert method["compile_id"] == int(compile_id)
    assert method["blocks"] and method["edges"]
    dot = (GOLDENS / f"{name}.dot").read_text()
    assert f"id {compile_id} " in dot.splitlines()[1]
    summary = (GOLDENS / f"{name}.summary.txt").read_text()
    assert f"id {compile_id} " in summary and method["name"] in summary
    assert f"{len(method['blocks'])} blocks" in summary
