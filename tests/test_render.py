"""DOT, SVG and JSON outputs: valid, deterministic, rendered by both Graphviz paths, folded when large."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from corpus import HSDIS, run_cli

from asmcfg.render.svg import find_renderer

EXAMPLE = Path(__file__).parent.parent / "examples" / "c2-compiled-realTest.S"
BIG = HSDIS / "jdk17-BigMethod-print-hsdis-att.txt.gz"
SVG_NS = "{http://www.w3.org/2000/svg}"


def _nodes_in_svg(path: Path) -> list[str]:
    """Each node's block name (`data-block`), else its title (legend and exit nodes)."""
    root = ET.parse(path).getroot()
    return [g.get("data-block") or g.findtext(f"{SVG_NS}title") or ""
            for g in root.iter(f"{SVG_NS}g") if g.get("class") == "node"]


def test_dot_is_valid_graphviz_with_one_node_per_block() -> None:
    code, dot, _ = run_cli(str(EXAMPLE), "--no-fold", "-q")
    assert code == 0
    blocks = len(re.findall(r"^  b\d+ \[", dot, flags=re.M))
    renderer = find_renderer("graphviz-pure")
    canon = subprocess.run([*renderer, "-Tcanon"], input=dot.encode(), capture_output=True, check=True).stdout.decode()
    assert len(re.findall(r"^\s+b\d+\s+\[", canon, flags=re.M)) == blocks == 66


@pytest.mark.parametrize("renderer", ["graphviz-pure", "dot"])
def test_svg_renders_with_each_renderer(tmp_path: Path, renderer: str) -> None:
    if renderer == "dot" and shutil.which("dot") is None:
        pytest.skip("system Graphviz is not installed on this machine (.ci/run installs it)")
    out = tmp_path / "g.svg"
    code, _, err = run_cli(str(EXAMPLE), "--svg", str(out), "--renderer", renderer, "-q")
    assert code == 0, err
    titles = _nodes_in_svg(out)
    _, dot, _ = run_cli(str(EXAMPLE), "-q")
    assert sum(1 for t in titles if re.fullmatch(r"B\d+", t)) == len(re.findall(r"^  b\d+ \[", dot, flags=re.M))
    assert any(t.startswith("legend_") for t in titles)
    assert "range check" in out.read_text()


def test_svg_and_dot_and_json_are_deterministic(tmp_path: Path) -> None:
    outputs = []
    for n in range(2):
        svg, js = tmp_path / f"{n}.svg", tmp_path / f"{n}.json"
        code, dot, _ = run_cli(
            str(EXAMPLE), "--svg", str(svg), "--json", str(js), "--dot", "-", "-q", "--renderer", "graphviz-pure"
        )
        assert code == 0
        outputs.append((dot, svg.read_bytes(), js.read_bytes()))
    assert outputs[0] == outputs[1]


def test_big_method_folds_cold_chains_into_summary_nodes(tmp_path: Path) -> None:
    code, dot, _ = run_cli(str(BIG), "--compile-id", "7", "-q")
    assert code == 0
    folds = re.findall(r'fold\d+ \[label="F\d+: (\d+) blocks -> (\d+) traps: ([^\\]*)', dot)
    assert folds, "cold trap chains are folded"
    assert sum(int(traps) for _, traps, _ in folds) >= 400
    assert any("range_check x" in listed and "null_check x" in listed for _, _, listed in folds)
    code, unfolded, _ = run_cli(str(BIG), "--compile-id", "7", "-q", "--no-fold")
    assert "fold" not in unfolded
    assert len(re.findall(r"^  b\d+ \[", unfolded, flags=re.M)) > len(re.findall(r"^  b\d+ \[", dot, flags=re.M))


def _fake_dot(folder: Path, body: str) -> None:
    """A `dot` and a `graphviz-pure` running `body`: a Graphviz install that is broken whichever is tried."""
    for name in ("dot", "graphviz-pure"):
        script = folder / name
        script.write_text("#!/bin/sh\n" + body + "\n")
        script.chmod(0o755)


@pytest.mark.parametrize(
    ("body", "timeout", "message"),
    [
        pytest.param("sleep 30", "1", "longer than 1 s", marks=pytest.mark.slow),  # 30 s in all
        # a limit no start of a shell script reaches, however busy the machine: only the error can end this one
        ("echo 'Error: syntax error in line 1' >&2; exit 1", "60", "dot failed: Error"),
    ],
)
def test_failed_render_leaves_an_existing_file_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, timeout: str, message: str
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_dot(bin_dir, body)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    out = tmp_path / "keep.svg"
    out.write_text("precious")
    code, _, err = run_cli(str(EXAMPLE), "--svg", str(out), "--render-timeout", timeout, "--renderer", "dot", "-q")
    assert code == 3
    assert message in err
    assert out.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "keep.svg"]
