"""A compilation Graphviz cannot draw never sinks the run: drawn again without its loop clusters, then with the
other renderer, else listed on its page; `--all` goes on (exit 0) and says which, one selected compilation that
nothing could draw still ends with exit 3."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, json_methods, run_cli

EXAMPLE = Path(__file__).parent.parent / "examples" / "c2-compiled-realTest.S"
ABORT = DATA / "logc" / "javac-jdk17-cluster-abort.xml.gz"
TRAPS = DATA / "logc" / "javac-jdk17-traps.xml.gz"
"""Compile id 584 of the javac run (`JavaTokenizer::readToken`), on whose loop clusters Graphviz 2.43 aborts."""
SYSTEM_DOT = shutil.which("dot")
NO_SYSTEM_DOT = "system Graphviz (`dot`) is not on PATH: the abort to fall back from is its own (.ci/run installs it)"
ASSERTION = "rank.c:238: cluster_leader: Assertion `leader != NULL' failed."


def _model(page: Path) -> dict[str, Any]:
    text = page.read_text(encoding="utf-8")
    match = re.search(r'<script type="application/json" id="model">(.*?)</script>', text, re.S)
    assert match is not None
    return json.loads(match.group(1))  # type: ignore[no-any-return]


def _svg(page: Path, n: int) -> str:
    match = re.search(rf'<template id="svg{n}">(.*?)</template>', page.read_text(encoding="utf-8"), re.S)
    assert match is not None
    return match.group(1)


def _broken(folder: Path, names: tuple[str, ...], message: str = "Error: renderer is broken") -> str:
    """PATH with `names` (`dot`, `graphviz-pure`) found first, each a Graphviz that fails with `message`."""
    folder.mkdir()
    for name in names:
        script = folder / name
        script.write_text(f"#!/bin/sh\necho '{message}' >&2\nexit 1\n")
        script.chmod(0o755)
    return f"{folder}:/usr/bin:/bin"


@pytest.fixture(scope="module")
def aborting() -> None:
    """Skips unless the system `dot` is on PATH and aborts on compile id 584's loop clusters as Graphviz 2.43
    does."""
    if SYSTEM_DOT is None:
        pytest.skip(NO_SYSTEM_DOT)
    [method] = json_methods(str(ABORT))
    assert method["compile_id"] == 584 and len(method["loops"]) == 46
    code, clustered, _ = run_cli(str(ABORT), "-q")
    assert code == 0 and clustered.count("subgraph cluster_loop") == 46
    tried = subprocess.run([SYSTEM_DOT, "-Tsvg"], input=clustered.encode(), capture_output=True, check=False)
    if tried.returncode == 0:
        version = subprocess.run([SYSTEM_DOT, "-V"], capture_output=True, check=False).stderr.decode().strip()
        pytest.skip(f"{version} draws compile id 584 with its loop clusters: there is no abort to fall back from")
    assert ASSERTION in tried.stderr.decode()


def test_the_dot_abort_is_drawn_without_loop_clusters_and_the_run_says_so(aborting: None, tmp_path: Path) -> None:
    out = tmp_path / "all.html"
    code, _, err = run_cli(str(ABORT), "--all", "--html", str(out), "--renderer", "dot", "-q")
    assert code == 0, err
    [line] = [line for line in err.splitlines() if "c2 id 584" in line]
    assert line.startswith("--html: c2 id 584 tier 4 [!] com.sun.tools.javac.parser.JavaTokenizer::readToken")
    assert f"drawn without loop clusters (dot failed: dot: {ASSERTION})" in line
    [method] = _model(out)["methods"]
    assert method["page"]["drawing"]["how"] == "without_clusters"
    assert ASSERTION in method["page"]["drawing"]["note"]
    svg = _svg(out, 0)
    drawn = set(re.findall(r'data-block="B(\d+)"', svg))
    folded = {b for f in method["page"]["folds"] for b in f["blocks"]}
    assert drawn == {str(b["id"]) for b in method["blocks"] if b["id"] not in folded}, "every block not folded"
    assert 'class="cluster"' not in svg, "no loop is a cluster"


def test_one_compilation_svg_takes_the_same_way(aborting: None, tmp_path: Path) -> None:
    out = tmp_path / "584.svg"
    code, _, err = run_cli(str(ABORT), "--compile-id", "584", "--svg", str(out), "--renderer", "dot", "-q")
    assert code == 0, err
    assert f"--svg: c2 id 584 tier 4 [!] com.sun.tools.javac.parser.JavaTokenizer::readToken (1731 bytes): " \
           f"drawn without loop clusters (dot failed: dot: {ASSERTION})" in err
    svg = out.read_text(encoding="utf-8")
    assert 'id="loop' not in svg and "legend" in svg
    assert len(re.findall(r'data-block="B\d+"', svg)) > 100


def test_dot_failing_with_and_without_clusters_hands_over_to_graphviz_pure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _broken(tmp_path / "bin", ("dot",)))
    out = tmp_path / "page.html"
    code, _, err = run_cli(str(EXAMPLE), "--html", str(out), "--renderer", "dot", "-q")
    assert code == 0, err
    assert ("--html: c2 id 950 tier 4 com.mpataki.Tensor4DBenchmark::realTest (59 bytes): drawn with graphviz-pure "
            "(dot failed: Error: renderer is broken (with and without loop clusters))") in err
    [method] = _model(out)["methods"]
    assert method["page"]["drawing"]["how"] == "other_renderer"
    svg = _svg(out, 0)
    assert {f"loop{loop['header']}" for loop in method["loops"]} <= set(re.findall(r'id="(loop\d+)"', svg)), \
        "graphviz-pure drew the loops as clusters"


def test_nothing_draws_it_so_the_page_lists_its_blocks_and_all_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _broken(tmp_path / "bin", ("dot", "graphviz-pure")))
    out = tmp_path / "all.html"
    code, _, err = run_cli(str(EXAMPLE), "--all", "--html", str(out), "-q")
    assert code == 0, err
    assert err.splitlines() == [
        "--html: c2 id 950 tier 4 com.mpataki.Tensor4DBenchmark::realTest (59 bytes): not drawn: dot failed: Error: "
        "renderer is broken (with and without loop clusters); graphviz-pure failed: Error: renderer is broken (with "
        "and without loop clusters)"
    ]
    [method] = _model(out)["methods"]
    assert method["page"]["drawing"]["how"] == "not_drawn"
    assert method["page"]["drawing"]["note"].endswith(
        "Its blocks are listed below in address order; click one for its panel.")
    assert _svg(out, 0) == "", "no graph: the page's script lists the blocks from the model"
    assert len(method["blocks"]) == 66


def test_one_selected_compilation_nothing_draws_ends_with_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _broken(tmp_path / "bin", ("dot", "graphviz-pure")))
    for output in ("--html", "--svg"):
        out = tmp_path / f"one{output}"
        code, _, err = run_cli(str(EXAMPLE), "--compile-id", "950", output, str(out), "-q")
        assert code == 3
        assert err.strip() == (
            f"asmcfg: {output}: cannot draw c2 id 950 tier 4 com.mpataki.Tensor4DBenchmark::realTest (59 bytes): "
            "dot failed: Error: renderer is broken (with and without loop clusters); graphviz-pure failed: Error: "
            "renderer is broken (with and without loop clusters)")
        assert out.exists() == (output == "--html"), "the page still lists the blocks; there is no SVG to write"


def test_a_compilation_without_loops_is_tried_once_per_renderer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    [method] = json_methods(str(TRAPS), "--compile-id", "75")
    assert method["name"] == "java.lang.String::charAt" and method["loops"] == []
    monkeypatch.setenv("PATH", _broken(tmp_path / "bin", ("dot", "graphviz-pure")))
    code, _, err = run_cli(str(TRAPS), "--compile-id", "75", "--svg", str(tmp_path / "75.svg"), "-q")
    assert code == 3
    assert err.strip().endswith(": dot failed: Error: renderer is broken; graphviz-pure failed: Error: renderer is "
                                "broken"), "without loops there are no clusters to leave out"


def test_a_diff_side_nothing_draws_ends_with_exit_3_once_the_page_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _broken(tmp_path / "bin", ("dot", "graphviz-pure")))
    out, document = tmp_path / "diff.html", tmp_path / "diff.json"
    ring = DATA / "diff"
    before, after = str(ring / "jdk17-Ring-before-nohsdis.txt"), str(ring / "jdk17-Ring-after-nohsdis.txt")
    code, _, err = run_cli("diff", before, after, "--method", "sum", "--compiler", "c2", "--html", str(out),
                           "--json", str(document), "-q")
    assert code == 3
    old = json.loads(document.read_text(encoding="utf-8"))["old"]
    assert err.startswith(f"asmcfg: --html: cannot draw c2 id {old['compile_id']} ") and "::sum" in err
    assert out.exists(), "the page is written, each side listing its blocks"
