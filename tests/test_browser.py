"""A real browser opens the heat SVG: headless Chromium lays it out, and the graph, the heat and the legend show."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from corpus import DATA, run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CONSOLE = DATA / "perfasm" / "jdk25-DevBench" / "perfasm-console.txt"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PROBE = """<script>
const svg = document.querySelector('svg'); const box = svg.querySelector('g.graph').getBBox();
const titles = [...svg.querySelectorAll('g.node > title')].map(t => t.textContent);
const blocks = [...svg.querySelectorAll('g[data-block]')]
  .map(g => [g.dataset.block, g.querySelector('title').textContent]);
const fills = [...svg.querySelectorAll('g.node > path, g.node > polygon')].map(p => p.getAttribute('fill'));
document.body.setAttribute('data-probe', JSON.stringify({width: box.width, height: box.height, titles, blocks, fills}));
</script>"""

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs Debian's)")


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    profile = tmp_path / "profile"
    command = [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(command, capture_output=True, timeout=120, check=True)


@pytest.fixture(scope="module")
def heat_svg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("svg") / "heat.svg"
    code, _, err = run_cli(str(CONSOLE), "--compile-id", "566", "--svg", str(out), "-q")
    assert code == 0, err
    return out


def test_browser_lays_out_the_graph_with_heat_and_legend(heat_svg: Path, tmp_path: Path) -> None:
    svg = re.sub(r"^.*?(?=<svg)", "", heat_svg.read_text(), flags=re.S)
    page = tmp_path / "page.html"
    page.write_text(f"<!DOCTYPE html><html><body>{svg}{PROBE}</body></html>")
    dom = _chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", page.as_uri()).stdout.decode()
    match = re.search(r"data-probe=\"([^\"]*)\"", dom)
    assert match, "the probe script ran in the page"
    probe = json.loads(match.group(1).replace("&quot;", '"'))
    assert probe["width"] > 500 and probe["height"] > 500
    blocks = probe["blocks"]
    assert len(blocks) >= 10
    for name, tooltip in blocks:
        assert re.match(rf"{name}  0x[0-9a-f]+  \(\d+ instructions?\)", tooltip), tooltip
    assert any("bench.DevBench::vecAddF line 22" in tooltip for _, tooltip in blocks), "tooltips name source lines"
    assert {"legend_verified_entry", "legend_loop_header", "legend_uncommon_trap"} <= set(probe["titles"])
    assert any(t.startswith("legend_heat") for t in probe["titles"]), "the heat scale is in the legend"
    assert any(fill and fill.startswith("#ff") and fill not in ("#ffffff",) for fill in probe["fills"])


def test_screenshot_shows_the_hot_block_in_the_heat_colour(heat_svg: Path, tmp_path: Path) -> None:
    image = pytest.importorskip("PIL.Image")
    shot = tmp_path / "shot.png"
    _chromium(tmp_path, "--window-size=1600,2400", f"--screenshot={shot}", heat_svg.as_uri())
    data = image.open(shot).convert("RGB").tobytes()
    pixels = list(zip(data[0::3], data[1::3], data[2::3], strict=True))
    hot = sum(1 for r, g, b in pixels if r > 230 and g < 90 and b < 90)
    ink = sum(1 for r, g, b in pixels if r < 80 and g < 80 and b < 80)
    assert hot > 5000, "the hottest block is filled with the hot end of the scale"
    assert ink > 5000, "text and edges are drawn"
