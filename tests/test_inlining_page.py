"""The report's inlining tab and compile-time profile in a real browser (headless Chromium under Playwright): the
compilation's call sites as a tree with the samples under each, a click lighting up the call's blocks, and the
branch profile C2 read in the block panel."""

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


def test_inlining_tab_nests_the_calls_and_lights_up_their_blocks(browser: Any, tmp_path: Path) -> None:
    report = write_report(tmp_path, str(DATA / "findings" / "jdk17"), "--method", "Findings::allocHot")
    page = open_offline(browser, report, 1280, 800)
    page.locator('#tabs button[data-tab="inlining"]').click()
    assert page.locator("#inlining").is_visible() and page.locator("#tables").is_hidden()
    assert page.locator("#inlining .inl-root").inner_text().startswith("Findings::allocHot")
    outer = page.locator("#inlining > details > summary").inner_text()
    assert outer.startswith("@15 Findings$Point::<init> inlined (hot) 15 bytes") and "%" in outer
    inner = page.locator("#inlining details .inl-leaf").inner_text()
    assert inner.startswith("@1 java.lang.Object::<init> inlined (hot) 1 byte 0.00%")
    page.screenshot(path=str((IMAGES if WRITE_EXAMPLES else tmp_path) / "report-inlining.png"))
    page.locator("#inlining > details > summary a").click()
    lit = page.locator("g.node.from-line")
    assert lit.count() >= 1
    assert page.locator("#inlining").is_visible()  # the tree stays open beside the lit blocks
    assert "Findings$Point::<init>: " in page.locator("#search-status").inner_text()
    page.close()


def test_block_panel_shows_the_branch_profile_of_its_jump(browser: Any, tmp_path: Path) -> None:
    report = write_report(tmp_path, str(DATA / "findings" / "shift17"), "--compile-id", "33")
    page = open_offline(browser, report, 1280, 800)
    page.locator('g[data-block="B8"]').click()
    text = page.locator("#details").inner_text()
    assert "Compile-time profile" in text
    assert "ProfileShift::hot@15 → 43: taken 533,340, not taken 131, p=always" in text
    page.close()


def test_without_a_log_there_is_no_inlining_tab(browser: Any, tmp_path: Path) -> None:
    plain = sorted((DATA / "hsdis").iterdir())[0]  # a PrintAssembly dump alone
    report = write_report(tmp_path, str(plain))
    page = open_offline(browser, report, 1280, 800)
    assert page.locator('#tabs button[data-tab="inlining"]').is_hidden()
    page.close()
