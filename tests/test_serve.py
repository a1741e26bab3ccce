"""`asmcfg serve` as a user meets it in Debian's Chromium (Playwright): the index of every compilation, the filter
and the sort, a compilation's report opened from a row and from a toplist, Back to the index as it was, the
analysis columns filled from the facts, the token every request needs, and Ctrl-C or SIGTERM ending it cleanly."""

from __future__ import annotations

import shutil
import signal
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA
from pages import CHROMIUM, NO_CHROMIUM, launch
from served import Served

SHAPES = DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt"
"""Nine compilations of Shapes::total and Shapes::totalPerim, C1 and C2, OSR and not (compile ids 13-29)."""
DEVBENCH = DATA / "perfasm" / "jdk17-DevBench" / "perfasm-console.txt"
"""JMH perfasm output of three benchmarks, each run's hottest compilation printed with its share of the run."""
EQ = DATA / "logc" / "jdk17-Eq-inlined-trap.xml.gz"
"""A LogCompilation log of five compilations, only Eq::check's (compile id 3) printed; one trap of it fired."""
W, H = 1280, 800

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    copy = tmp_path_factory.mktemp("serve") / SHAPES.name
    shutil.copy(SHAPES, copy)
    served = Served(copy)
    yield served
    served.stop(signal.SIGTERM)


def _open(browser: Any, url: str) -> Any:
    page = browser.new_page(viewport={"width": W, "height": H})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    page.errors = errors
    return page


def _ids(page: Any) -> list[str]:
    return page.eval_on_selector_all("#index tr[data-compile-id]", "rows => rows.map(r => r.dataset.compileId)")


def test_the_index_lists_every_compilation_filters_as_you_type_and_sorts(browser: Any, shapes: Served) -> None:
    page = _open(browser, shapes.url)
    assert _ids(page) == ["13", "14", "15", "16", "17", "18", "22", "23", "29"], "one row per compilation, in order"
    page.fill("#filter", "Perim")
    assert _ids(page) == ["14", "17", "18", "22", "29"], "only Shapes::totalPerim's compilations"
    page.fill("#filter", "shapes total")
    assert len(_ids(page)) == 9, "words in any order, any case: the class and the method"
    page.fill("#filter", "")
    page.click("#index th:text-is('main code B')")
    sizes = page.eval_on_selector_all("#index tr[data-compile-id] td:nth-child(7)",
                                      "tds => tds.map(t => +t.textContent)")
    assert sizes == sorted(sizes) and sizes[0] == 288
    page.click("#index th:text-is('main code B')")
    assert _ids(page)[0] == "15", "the OSR compilation of Shapes::total has the most main code (864 bytes)"
    assert page.errors == []


def test_a_row_opens_its_report_whose_panel_works_and_back_keeps_the_filter(browser: Any, shapes: Served) -> None:
    page = _open(browser, shapes.url)
    page.fill("#filter", "Perim")
    page.click("#index th:text-is('id')")
    page.click("#index th:text-is('id')")  # descending: 29, 22, 18, 17, 14
    assert _ids(page)[:2] == ["29", "22"]
    page.click('#index tr[data-compile-id="17"] td:nth-child(2)')
    page.wait_for_url("**/c/17")  # named by its compile id
    page.wait_for_selector("body[data-ready]")
    assert "17" in page.title() and "totalPerim" in page.title()
    assert page.locator("#search").count() == 1, "the --html page, its search included"
    name = page.evaluate("""() => {
        const pane = document.getElementById("graph-pane").getBoundingClientRect();
        const shown = [...document.querySelectorAll("g[data-block]")].find((g) => {
            const box = g.getBoundingClientRect();
            return box.left >= pane.left && box.right <= pane.right && box.top >= pane.top && box.bottom <= pane.bottom;
        });
        return shown.dataset.block;
    }""")
    page.click(f'g[data-block="{name}"]')
    assert page.locator("#details").is_visible()
    assert page.inner_text("#details h2").startswith(f"{name} ")
    page.go_back()
    page.wait_for_selector("body[data-ready]")
    assert page.input_value("#filter") == "Perim"
    assert _ids(page) == ["29", "22", "18", "17", "14"], "the filter and the sort as they were"


def test_a_toplist_entry_opens_its_compilation(browser: Any, shapes: Served) -> None:
    page = _open(browser, shapes.url)
    page.wait_for_selector("body[data-analysed]")
    assert page.locator(".toplist").count() == 7
    assert page.inner_text("#top-largest li").startswith("Shapes::total")
    assert page.inner_text("#top-findings li").startswith("check-in-loop Shapes::totalPerim@")
    most = page.locator("#top-most li").all_inner_texts()
    assert most[0].endswith("5 compilations") and most[0].startswith("Shapes::totalPerim")
    page.click("#top-largest li a")
    page.wait_for_selector("body[data-ready]")
    assert page.url.endswith("/c/15") and "15" in page.title() and "Shapes::total" in page.title()


def test_the_analysis_columns_show_the_trap_that_fired(browser: Any, tmp_path: Path) -> None:
    copy = tmp_path / EQ.name
    shutil.copy(EQ, copy)
    served = Served(copy)
    try:
        page = _open(browser, served.url)
        page.wait_for_selector("body[data-analysed]")
        assert _ids(page) == ["1", "2", "3", "4", "5"]
        row = page.locator('#index tr[data-compile-id="3"] td')
        assert row.nth(9).inner_text() == "1", "one <uncommon_trap> record of compile id 3 in the log"
        assert "unstable_if" in row.nth(8).inner_text()
        assert page.locator('#index tr[data-compile-id="2"]').get_attribute("class") == "unprinted"
        count, progress = page.inner_text("#count"), page.inner_text("#progress-text")
        assert (count, progress) == ("5 of 5 compilations", "1 analysed (4 without code in the log)"), "they agree"
        entry = page.locator("#top-fired li")
        assert entry.count() == 1 and entry.inner_text().startswith("unstable_if in Eq::check")
        entry.locator("a").click()
        page.wait_for_selector("body[data-ready]")
        assert "Eq::check" in page.title()
        page.go_back()
        page.wait_for_selector("body[data-ready]")
        page.click('#index tr[data-compile-id="2"] td:nth-child(2)')
        assert "none of its code" in page.inner_text("#problem"), "a row without code says so at once"
    finally:
        served.stop(signal.SIGTERM)


def test_measured_heat_fills_its_column_and_ranks_the_hottest(browser: Any, tmp_path: Path) -> None:
    copy = tmp_path / DEVBENCH.name
    shutil.copy(DEVBENCH, copy)
    served = Served(copy)
    try:
        page = _open(browser, served.url)
        page.wait_for_selector("body[data-analysed]")
        heat = page.locator("#index th").all_inner_texts().index("heat")
        assert page.locator('#index tr[data-compile-id="524"] td').nth(heat).inner_text() == "95.72%"
        shares = page.locator("#top-hottest li .value").all_inner_texts()
        assert shares == ["95.72%", "94.57%", "93.72%"], "as --list's share column"
        assert "tensorSum4" in page.locator("#top-hottest li a").first.inner_text()
    finally:
        served.stop(signal.SIGTERM)


def test_a_request_without_the_token_is_refused(shapes: Served) -> None:
    for path in ("", "c/13", "api/facts?since=0", "?token=wrong", "?code=wrong"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(shapes.base + path, timeout=10)
        assert refused.value.code == 403, path
    other_host = urllib.request.Request(shapes.url, headers={"Host": "attacker.example"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(other_host, timeout=10)
    assert refused.value.code == 403, "a DNS name rebound to 127.0.0.1 is refused"


@pytest.mark.parametrize(("signum", "code", "said"), [(signal.SIGINT, 130, "asmcfg: interrupted"),
                                                      (signal.SIGTERM, 143, "asmcfg: stopped by SIGTERM")])
def test_ctrl_c_and_sigterm_stop_the_server_cleanly(tmp_path: Path, signum: int, code: int, said: str) -> None:
    copy = tmp_path / SHAPES.name
    shutil.copy(SHAPES, copy)
    served = Served(copy, "-q")
    try:
        with served.opener().open(served.base, timeout=10) as answer:
            assert answer.status == 200
        status, out, err = served.stop(signum)
    finally:
        if served.process.poll() is None:
            served.process.kill()
    assert status == code and out == ""
    assert err.strip() == said and "Traceback" not in err
