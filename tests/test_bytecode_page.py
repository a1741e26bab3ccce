"""The report's bytecode pane and per-line heat in a real browser (headless Chromium under Playwright): each
bytecode tied to its blocks by bci and back, the share of the run's samples beside each source line and bci."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA
from pages import CHROMIUM, IMAGES, NO_CHROMIUM, WRITE_EXAMPLES, launch, open_offline, write_report

CHECK_HOT = (str(DATA / "findings" / "jdk17"), "--compile-id", "42", "--classpath", str(DATA / "findings" / "classes"),
             "--source-path", str(DATA / "java"))
"""C2's Findings::checkHot (compile id 42 of the JDK 17 recording): `s += data[idx[i]]` keeps its range check."""

pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM), pytest.mark.slow]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


def test_a_bytecode_lights_its_blocks_and_a_block_marks_its_bytecodes(browser: Any, tmp_path: Path) -> None:
    page = open_offline(browser, write_report(tmp_path, *CHECK_HOT), 1280, 800)
    assert page.locator("#bytecode-pane").is_visible() and page.locator("#toggle-bytecode").is_visible()
    assert page.locator("#bytecode-methods button").all_inner_texts() == ["Findings::checkHot"]
    note = page.locator("#bytecode-note").inner_text()
    assert note == "Findings::checkHot([I[II)I from Findings.class · 0.05% of the run on instructions without debug " \
        "info, counted for no bci or line"
    load = page.locator('#bytecode [data-bci="17"]')
    assert "iaload" in load.inner_text() and "has-code" in (load.get_attribute("class") or "")
    load.click()
    assert page.locator("#search-status").inner_text().startswith("@17: ")
    lit = page.eval_on_selector_all("#canvas g.from-line[data-block]", "els => els.map(e => e.dataset.block)")
    assert lit, "the blocks whose debug info names checkHot@17 are outlined"
    selected = page.eval_on_selector("#canvas g.selected", "e => e.dataset.block")
    assert selected in lit
    rows = page.locator("#details table.ins tr.from-line").all_inner_texts()
    assert rows and all("Findings::checkHot@17" in row for row in rows)  # its instructions, in the block panel
    assert "mark" in (load.get_attribute("class") or "")  # the selected block marks the bytecodes it holds
    page.locator('#canvas g[data-block="B0"]').dispatch_event("click")  # the entry: no code of bci 17 in it
    assert "mark" not in (load.get_attribute("class") or "")


def test_the_source_and_the_bytecode_carry_the_share_of_each_line_and_bci(browser: Any, tmp_path: Path) -> None:
    page = open_offline(browser, write_report(tmp_path, *CHECK_HOT), 1280, 800)
    line = page.locator('#source [data-line="15"] .heat-cell').inner_text()
    assert line.endswith("%") and float(line.rstrip("%")) > 0
    assert page.locator('#source [data-line="3"] .heat-cell').inner_text() == ""
    bci = page.locator('#bytecode [data-bci="16"] .heat-cell').inner_text()
    assert bci.endswith("%") and float(bci.rstrip("%")) > 0
    page.locator("#toggle-side").click()  # the source and the bytecode beside the graph: the panel starts closed
    tab = page.locator('#tabs button[data-tab="findings"]')
    tab.click()
    assert "Findings::checkHot iaload@17 line 15" in page.locator("#findings .finding-head").first.inner_text()
    if WRITE_EXAMPLES:
        page.locator('#bytecode [data-bci="17"]').click()
        page.locator("#toggle-side").click()  # closed again
        page.evaluate("document.getElementById('source-pane').style.width = '440px'")  # as the splitter drags it
        page.mouse.move(0, 799)
        page.screenshot(path=str(IMAGES / "report-bytecode.png"))


def test_a_report_without_class_files_has_no_bytecode_pane(browser: Any, tmp_path: Path) -> None:
    page = open_offline(browser, write_report(tmp_path, str(DATA / "findings" / "jdk17"), "--compile-id", "42"),
                        1280, 800)
    assert page.locator("#bytecode-pane").is_hidden() and page.locator("#toggle-bytecode").is_hidden()
