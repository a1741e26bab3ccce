"""`asmcfg diff --html` in a real browser: both compilations' pages side by side, the diff's colours on each, and
a click on one side selecting and centring its counterpart on the other (Debian's Chromium, via Playwright)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, HSDIS, run_cli
from pages import CHROMIUM, NO_CHROMIUM, launch, open_offline, sync_api

from asmcfg import describe

SHAPES = str(HSDIS / "jdk17-Shapes-print-hsdis-att.txt.gz")
RING_BEFORE = str(DATA / "diff" / "jdk17-Ring-before-nohsdis.txt")
RING_AFTER = str(DATA / "diff" / "jdk17-Ring-after-nohsdis.txt")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


def _status_starts(page: Any, text: str) -> None:
    """Wait until the status bar starts with `text` (a locator wait: the page's CSP forbids the eval a predicate
    string needs)."""
    sync_api.expect(page.locator("#diff-status")).to_have_text(re.compile("^" + re.escape(text)))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


def _open(browser: Any, tmp: Path, *args: str) -> Any:
    out = tmp / "diff.html"
    code, _, err = run_cli("diff", *args, "--html", str(out), "-q")
    assert code == 0, err
    return open_offline(browser, out, 1800, 1000)


def _frame(page: Any, side: str) -> Any:
    return page.query_selector(f"#{side}").content_frame()


def _centred(frame: Any, selector: str) -> bool:
    """The element's centre lies inside the graph pane of its side."""
    return bool(frame.evaluate("""(sel) => {
        const r = document.querySelector(sel).getBoundingClientRect();
        const p = document.getElementById("graph-pane").getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + Math.min(r.height / 2, 40);
        return x >= p.left && x <= p.right && y >= p.top && y <= p.bottom;
    }""", selector))


def test_clicking_the_old_loop_shows_the_new_main_loop(browser: Any, tmp_path: Path) -> None:
    page = _open(browser, tmp_path, RING_BEFORE, RING_AFTER, "--method", "sum", "--compiler", "c2")
    old, new = _frame(page, "old"), _frame(page, "new")
    # the old loop B14 held the range checks; the rewrite's main loop B9 (inside strip-mined B8) is its match
    old.click("g#loop14 > text")
    page.wait_for_selector("#diff-status[data-match='new:loop:9']")
    assert new.get_attribute("g.cluster.peer", "id") == "loop9"
    assert _centred(new, "g#loop9")
    status = page.text_content("#diff-status") or ""
    assert "old loop B14 → new loop B9" in status and "main loop x16" in status
    # the old loop's blocks holding the checks that left it are painted as removed, the loops as changed
    removed = old.eval_on_selector('g[data-block="B11"] > path, g[data-block="B11"] > polygon',
                                   "el => el.getAttribute('fill')")
    assert removed == describe.DIFF_FILLS["removed"]
    assert old.get_attribute("g#loop14 > path, g#loop14 > polygon", "stroke") == describe.DIFF_COLOURS["changed"]
    # a block with no counterpart says so and selects nothing on the other side
    old.click('g[data-block="B11"]')
    _status_starts(page, "old B11:")
    assert "check left the loop: range_check of iaload at Ring::sum@35" in (page.text_content("#diff-status") or "")
    assert new.query_selector("g.peer") is None
    page.screenshot(path=str(tmp_path / "ring-diff.png"))


def _trap_check(model: dict[str, Any], reason: str, bytecode: str, bci: int) -> int:
    """The block whose check branches to the trap with this reason at bytecode@bci (from the page's own model)."""
    traps = {b["id"]: b["trap"] for b in model["blocks"] if b.get("trap")}
    (block,) = [c["from"] for c in model["page"]["checks"] if c["trap_block"] in traps
                and (traps[c["trap_block"]]["reason"], traps[c["trap_block"]]["bytecode"],
                     traps[c["trap_block"]]["bci"]) == (reason, bytecode, bci)]
    return int(block)


def test_clicking_a_check_and_a_trap_selects_their_matches_after_the_deopt(browser: Any, tmp_path: Path) -> None:
    page = _open(browser, tmp_path, SHAPES, "--compile-id", "17", "--compile-id", "25", "--no-fold")
    old, new = _frame(page, "old"), _frame(page, "new")
    model = "JSON.parse(document.getElementById('model').textContent).methods[0]"
    old_check = _trap_check(old.evaluate(model), "null_check", "arraylength", 5)
    new_check = _trap_check(new.evaluate(model), "null_check", "arraylength", 5)
    old.click(f'g[data-block="B{old_check}"]')
    page.wait_for_selector(f"#diff-status[data-match='new:block:{new_check}']")
    assert new.get_attribute("g.node.peer", "data-block") == f"B{new_check}"
    assert _centred(new, "g.node.peer")
    assert (new.text_content("#details h2") or "").startswith(f"B{new_check} ")
    # the trap the interface call's null check reaches: B26 before the deopt, B12 after
    old.click('g[data-block="B26"]')
    page.wait_for_selector("#diff-status[data-match='new:block:12']")
    panel = new.text_content("#details") or ""
    assert "null_check" in panel and "invokeinterface area@27" in panel
    assert "trap: null_check / maybe_recompile at invokeinterface area, Shapes::total@27" in (
        page.text_content("#diff-status") or "")
    # the class_check trap is gone after the deopt: red on the old side, nothing selected on the new one
    assert old.get_attribute('g[data-block="B22"] > path, g[data-block="B22"] > polygon', "fill") == \
        describe.DIFF_FILLS["removed"]
    old.click('g[data-block="B22"]')
    _status_starts(page, "old B22:")
    assert "trap removed: class_check / maybe_recompile" in (page.text_content("#diff-status") or "")
    # and the other way round: the new side's interface call is amber, and leads back to the old inlined site
    assert new.get_attribute('g[data-block="B8"] > path, g[data-block="B8"] > polygon', "fill") == \
        describe.DIFF_FILLS["changed"]
    page.screenshot(path=str(tmp_path / "shapes-diff.png"))
