"""The timeline page (`--timeline --html`) in a real browser: offline, the stacked samples, the compilations as
bars, the events as marks, a click on a bar telling that compilation, a drag zooming to a stretch of the run.
`ASMCFG_WRITE_EXAMPLES=1` also writes its 1280x800 screenshot to docs/images/timeline-1280.png."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import run_cli
from pages import CHROMIUM, IMAGES, NO_CHROMIUM, WRITE_EXAMPLES, launch, open_offline

pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM), pytest.mark.slow]
PHASES = Path(__file__).parent / "data" / "timeline" / "jdk17-Phases"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("timeline") / "timeline.html"
    given = os.path.relpath(PHASES)  # as a user in the repository types it (the page shows it)
    code, _, err = run_cli(given, "--timeline", "--method", "Phases::hot", "--html", str(out), "-q")
    assert code == 0, err
    return out


def test_the_page_draws_the_run_and_opens_a_compilation(browser: Any, page_file: Path) -> None:
    page = open_offline(browser, page_file, 1280, 800)
    assert page.locator("rect.sample").count() > 100
    assert page.locator("line.event.uncommon_trap").count() >= 4
    assert page.locator("#warm").count() == 1
    assert page.locator("svg text").first.text_content() is not None
    hot = page.locator("rect.bar[data-id='8']")
    hot.click()
    detail = page.locator("#detail").text_content() or ""
    assert "id 8 c2 tier 4 Phases::hot" in detail
    assert "\n212 to 1,642 ms, 554 samples; ended: uncommon trap unstable_fused_if (reinterpret) at Phases::hot@15 " \
        "(line 8)\n" in detail
    assert page.locator("#open").get_attribute("href") == "id-8.html"
    assert page.locator("rect.bar.chosen").count() == 1
    if WRITE_EXAMPLES:
        page.screenshot(path=str(IMAGES / "timeline-1280.png"))
    page.close()


def test_a_drag_zooms_to_a_stretch_and_a_double_click_shows_it_all(browser: Any, page_file: Path) -> None:
    page = open_offline(browser, page_file, 1280, 800)
    box = page.locator("#chart").bounding_box()
    before = page.locator("rect.sample").count()
    page.mouse.move(box["x"] + 500, box["y"] + 80)
    page.mouse.down()
    page.mouse.move(box["x"] + 700, box["y"] + 80)
    page.mouse.up()
    start, end = (int(v) for v in (page.locator("body").get_attribute("data-view") or "").split("-"))
    assert 0 < start < end < 4657
    assert f"--from {start} --to {end}" in (page.locator("#range").text_content() or "")
    assert page.locator("rect.sample").count() < before
    page.locator("#chart").dblclick(position={"x": 600, "y": 80})
    assert page.locator("body").get_attribute("data-view") == "0-4657"
    assert page.locator("rect.sample").count() == before
    page.close()
