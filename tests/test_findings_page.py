"""The report's Findings tab in a real browser (headless Chromium under Playwright): the compilation's findings,
ranked, each with its evidence, its block a click away."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA
from pages import CHROMIUM, IMAGES, NO_CHROMIUM, WRITE_EXAMPLES, launch, open_offline, write_report

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


def test_findings_tab_lists_the_ranked_findings_and_opens_their_block(browser: Any, tmp_path: Path) -> None:
    report = write_report(tmp_path, str(DATA / "findings" / "jdk17"), "--method", "Findings::megaHot")
    page = open_offline(browser, report, 1280, 800)
    tab = page.locator('#tabs button[data-tab="findings"]')
    assert tab.inner_text() == "findings (2)"
    tab.click()
    assert page.locator("#findings").is_visible() and page.locator("#tables").is_hidden()
    heads = page.locator("#findings .finding-head").all_inner_texts()
    assert [head.split(" ")[0] for head in heads] == ["1.", "2."]
    shares = [float(head.split(" ")[1].rstrip("%")) for head in heads]
    assert shares == sorted(shares, reverse=True)
    (mega,) = [head for head in heads if " megamorphic " in head]
    assert "Findings::megaHot@22 line 107" in mega
    (check,) = [head for head in heads if " check-in-loop loop B" in head]
    assert "Findings::megaHot@19 line 107" in check
    text = page.locator("#findings").inner_text()
    assert "Ranked by share of the run's samples" in text and "receiver types the profile recorded" in text
    assert "try: make this call site see one receiver type" in text
    page.screenshot(path=str((IMAGES if WRITE_EXAMPLES else tmp_path) / "report-findings.png"))
    block = page.locator("#findings .finding-head a").first
    name = block.inner_text().removeprefix("loop ")
    block.click()
    assert page.locator(f'g[data-block="{name}"]').get_attribute("class") == "node selected"
    page.close()


def test_a_compilation_without_findings_says_so(browser: Any, tmp_path: Path) -> None:
    report = write_report(tmp_path, str(DATA / "findings" / "jdk17"), "--method", "Findings::checkTwin")
    page = open_offline(browser, report, 1280, 800)
    page.locator('#tabs button[data-tab="findings"]').click()
    assert page.locator("#findings").inner_text().strip() == "No finding in this compilation"
    page.close()
