"""What the report says in a real browser (headless Chromium under Playwright) when a user picks a bytecode, a
call of the inlining tab or a search: counts with the right number ("1 block", "2 blocks"), never "block(s)"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, run_cli
from pages import CHROMIUM, NO_CHROMIUM, launch, open_offline, write_report

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)

ALLOC_HOT = (str(DATA / "findings" / "jdk17"), "--method", "Findings::allocHot", "--classpath",
             str(DATA / "findings" / "classes"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


def test_picked_bytecode_and_call_count_their_blocks(browser: Any, tmp_path: Path) -> None:
    page = open_offline(browser, write_report(tmp_path, *ALLOC_HOT), 1280, 800)
    status = page.locator("#search-status")
    page.locator('#bytecode [data-bci="36"]').click()  # iinc 2, 1: the loop's counter, in one block
    assert status.inner_text() == "@36: 1 block"
    page.locator('#bytecode [data-bci="28"]').click()  # aastore: its check and the store, in the loop and its copies
    assert status.inner_text() == "@28: 8 blocks"
    assert page.locator('#bytecode [data-bci="28"]').get_attribute("title") == \
        "8 blocks, 8 instructions name Findings::allocHot@28"
    page.locator('#tabs button[data-tab="inlining"]').click()
    page.locator("#inlining > details > summary a").click()
    assert status.inner_text() == "@15 Findings$Point::<init>: 1 block"
    page.locator("#search").fill("movl")
    assert status.inner_text() == "15 blocks"
    assert "(s)" not in page.locator("body").inner_text()
    page.close()


def test_timeline_bar_says_its_times_and_samples_as_the_text_does(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "timeline.html"
    code, _, err = run_cli(str(DATA / "timeline" / "jdk17-Phases"), "--timeline", "--html", str(out), "-q")
    assert code == 0, err
    page = open_offline(browser, out, 1280, 800)
    page.locator("rect.bar[data-id='5']").dispatch_event("click")  # C1's OSR code of Phases::hot: one sample
    assert page.locator("#detail").inner_text().startswith(
        "id 5 c1 tier 3 OSR at bci 4 Phases::hot\n145 to 171 ms, 1 sample; ended: make_not_entrant\n")
    page.locator("rect.bar[data-id='20']").dispatch_event("click")  # the last C2 code, alive at the end
    assert "\n3,214 to 4,657 ms, 686 samples; ended: end of run\n" in page.locator("#detail").inner_text()
    page.close()


def test_block_and_call_links_follow_the_keyboard(browser: Any, tmp_path: Path) -> None:
    page = open_offline(browser, write_report(tmp_path, *ALLOC_HOT), 1280, 800)
    page.locator('#tabs button[data-tab="inlining"]').click()
    call = page.locator("#inlining > details > summary a")
    call.focus()
    assert page.evaluate("document.activeElement.textContent") == "@15 Findings$Point::<init>"
    page.keyboard.press("Enter")
    assert page.locator("#search-status").inner_text() == "@15 Findings$Point::<init>: 1 block"
    page.locator('#tabs button[data-tab="tables"]').click()
    loop = page.locator("#tables a", has_text="B9").first
    loop.focus()
    page.keyboard.press("Enter")
    assert page.locator("#details").is_visible() and page.locator("#details").inner_text().startswith("B9 ")
    page.close()


def test_source_bytecode_and_graph_share_1280_px_until_a_click_opens_the_panel(browser: Any, tmp_path: Path) -> None:
    report = write_report(tmp_path, *ALLOC_HOT, "--source-path", str(DATA / "java"))
    page = open_offline(browser, report, 1280, 800)
    assert page.locator("#source-pane").is_visible() and page.locator("#bytecode-pane").is_visible()
    assert page.locator("#side").is_hidden() and page.locator("#toggle-side").is_visible()
    assert page.locator("#graph-pane").bounding_box()["width"] >= 500
    page.locator('#bytecode [data-bci="28"]').click()
    assert page.locator("#side").is_visible() and page.locator("#details").inner_text().startswith("B")
    page.close()
    wide = open_offline(browser, report, 1920, 1000)
    assert wide.locator("#side").is_visible(), "a wide window keeps the panel open"
    wide.close()
