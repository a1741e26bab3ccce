"""`asmcfg whatif` on a real JDK 25: a program of its own (tests/data/java/WhatIf.java) recorded, then its
compilations replayed: the vectorized loop loses its vector width without SuperWord, --dontinline turns an inlined
callee into a call and --inline pulls in a callee refused as too big, and each baseline matches the recording."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from recording import JAVA25, JAVAC, compile_java, record

pytestmark = [pytest.mark.slow, pytest.mark.skipif(JAVAC is None or not JAVA25.exists(),
                                                   reason="needs javac and JDK 25 at its Temurin path")]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """WhatIf recorded on JDK 25, without perf (the replay needs none)."""
    classes = compile_java(tmp_path_factory.mktemp("classes"), "WhatIf")
    work = tmp_path_factory.mktemp("work")
    done = record(["-o", str(work / "rec"), "--no-perf", "--", str(JAVA25), "-cp", str(classes), "WhatIf"], work)
    assert done.returncode == 0, done.stderr
    assert not list(work.glob("replay_pid*"))  # moved into the folder
    return work / "rec"


def whatif(folder: Path, tmp_path: Path, *args: str) -> tuple[dict[str, Any], str]:
    """The what-if's JSON document and its stderr (its temporary folders under tmp_path, checked removed)."""
    temp = tmp_path / "temp"
    temp.mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "asmcfg", "whatif", str(folder), "--json", "-", *args],
                          capture_output=True, text=True, env={**os.environ, "TMPDIR": str(temp)}, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert os.listdir(temp) == []
    return json.loads(done.stdout), done.stderr


def changes(document: dict[str, Any]) -> set[tuple[str, str]]:
    found = set()
    for change in document["changes"]:
        item = change["new"] or change["old"]
        found.add((change["change"], item.get("callee", "")))
    return found


def test_without_superword_the_vectorized_loop_loses_its_vector_width(folder: Path, tmp_path: Path) -> None:
    document, said = whatif(folder, tmp_path, "--method", "WhatIf::add", "--", "-XX:-UseSuperWord")
    assert "baseline matches the recording" in said.splitlines()
    assert document["whatif"]["baseline_matches_recorded"] is True
    assert document["whatif"]["jdk"].startswith("25")
    old = [p["old"]["vector"]["bits"] for p in document["loops"] if p["old"] and p["old"]["vector"]]
    new = [p["new"]["vector"] for p in document["loops"] if p["new"] and p["new"]["vector"]]
    assert old and max(old) >= 128 and new == []


def test_dontinline_and_inline_change_the_recorded_inlining(folder: Path, tmp_path: Path) -> None:
    document, said = whatif(folder, tmp_path, "--method", "WhatIf::calls", "--dontinline", "WhatIf::small",
                            "--inline", "WhatIf::big")
    assert document["whatif"]["baseline_matches_recorded"] is True
    assert {("not_inlined", "WhatIf::small"), ("inlined", "big")} <= changes(document)
    inlining = document["whatif"]["inlining"]
    assert inlining["recorded"] == ["WhatIf::small@14"] and inlining["kept"] == []
    assert "the what-if changed: " in said


def test_a_sweep_ranks_the_switches_and_superword_takes_the_vector_width(folder: Path, tmp_path: Path) -> None:
    document, _ = whatif(folder, tmp_path, "--method", "WhatIf::add", "--sweep")
    assert document["whatif"]["baseline_matches_recorded"] is True
    rows = {row["option"]: row for row in document["rows"]}
    assert "-XX:-UseSuperWord" in rows and "-XX:LoopUnrollLimit=1" in rows and all(
        row["error"] is None for row in document["rows"])
    assert document["hottest_loop"]["vector_bits"] >= 128
    assert rows["-XX:-UseSuperWord"]["hottest_loop"]["after"]["vector_bits"] is None
    assert rows["-XX:-DoEscapeAnalysis"]["changes"] == []  # add allocates nothing
    ranks = {row["option"]: row["rank"] for row in document["rows"]}
    assert ranks["-XX:-UseSuperWord"] < ranks["-XX:-DoEscapeAnalysis"]
