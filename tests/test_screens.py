"""The whole-log screens and the report page at 1280x800 in a real browser (Debian's Chromium via Playwright): what
a laptop shows is measured, not looked at. A method's name keeps its class and method, its figure stays in view, no
cell or header is cut, the report's panel fits its tables, a large method opens on its loop's header block whole,
the diff page's heat is on one scale of the run's samples, and what the index cannot know it says it cannot."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, run_cli
from pages import CHROMIUM, NO_CHROMIUM, launch, open_offline, write_report
from served import Served

from asmcfg import describe

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)

W, H = 1280, 800
JAVAC = DATA / "hsdis" / "jdk17-javac-printassembly-slice.txt.gz"
"""33 compilations of javac's own methods, PrintAssembly text without a LogCompilation log or heat."""
READ_TOKEN = DATA / "logc" / "javac-jdk17-cluster-abort.xml.gz"
"""`JavaTokenizer::readToken` compiled by C2: 1,236 blocks, 46 loops, drawn without loop clusters."""
RECORD = DATA / "record"
TENSOR4D = DATA / "nohsdis" / "jdk17-Tensor4D-print-nohsdis.txt"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


def _open(browser: Any, url: str) -> Any:
    page = browser.new_page(viewport={"width": W, "height": H})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    page.errors = errors
    return page


@pytest.fixture(scope="module")
def javac(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    copy = tmp_path_factory.mktemp("javac") / JAVAC.name
    shutil.copy(JAVAC, copy)
    served = Served(copy)
    yield served
    served.stop(signal.SIGTERM)


def _class_and_method(name: str) -> str:
    """`Class::method` of `pkg.Class::method`: what a shortened name must keep."""
    owner, _, method = name.partition("::")
    return owner.rsplit(".", 1)[-1] + "::" + method


CUT_TOPLISTS = """() => [...document.querySelectorAll("#toplists li")].filter((li) => li.offsetParent).map((li) => {
    const link = li.querySelector("a, span[title]"), value = li.querySelector(".value");
    const list = li.closest(".toplist").getBoundingClientRect(), v = value.getBoundingClientRect();
    return {text: link.textContent, title: link.title, cut: li.scrollWidth > li.clientWidth + 1
            || link.scrollWidth > link.clientWidth + 1, valueIn: v.width > 0 && v.right <= list.right + 1};
})"""


def _check_toplists(page: Any) -> None:
    entries = page.evaluate(CUT_TOPLISTS)
    named = [e for e in entries if "::" in e["title"]]
    assert len(named) >= 10, "the toplists name methods"
    for entry in named:
        assert not entry["cut"], f"{entry['text']!r} is cut"
        assert entry["valueIn"], f"the figure after {entry['text']!r} is in view"
        for name in re.findall(r"[\w.$<>]+::[\w$<>]+", entry["title"]):
            assert _class_and_method(name) in entry["text"], f"{entry['text']!r} keeps the class and method"
    assert any(e["text"] != e["title"] for e in named), "long names are shortened, the tooltip has them whole"
    for box in page.eval_on_selector_all(".toplist", "ls => ls.map(l => l.getBoundingClientRect().width)"):
        assert box < 0.4 * W, "each toplist takes less than 40% of the screen's width"
    assert page.locator("#toplists").bounding_box()["height"] < 0.4 * H, "and all of them less than 40% of its height"


def _check_method_cells(page: Any) -> None:
    cells = page.eval_on_selector_all(
        "#index tbody tr[data-row] td.left a",
        "as => as.map(a => ({text: a.textContent, title: a.closest('td').title,"
        " cut: a.closest('td').scrollWidth > a.closest('td').clientWidth + 1}))")
    assert cells
    for cell in cells:
        assert _class_and_method(cell["title"]) in cell["text"], cell
        assert not cell["cut"], f"{cell['text']!r} is cut"


def test_the_index_keeps_class_and_method_and_hides_what_a_text_log_cannot_fill(browser: Any, javac: Served) -> None:
    page = _open(browser, javac.url)
    page.wait_for_selector("body[data-analysed]")
    _check_toplists(page)
    _check_method_cells(page)
    headers = page.locator("#index th").all_inner_texts()
    assert "fired" not in headers and "heat" not in headers, "no --log and no samples: those columns cannot fill"
    assert "method" in headers and "loops" in headers
    assert page.inner_text("#top-fired .empty") == "No log given: fired traps unknown (--log gives them)."
    assert page.inner_text("#top-hottest .empty").startswith("No measured heat")
    assert "None fired" not in page.inner_text("#toplists")
    for th in page.eval_on_selector_all("#index th", "ths => ths.map(t => t.scrollWidth <= t.clientWidth + 1)"):
        assert th, "every header shows whole"
    assert page.errors == []
    page.close()


def test_the_toplists_say_not_known_yet_while_the_analysis_runs(browser: Any, javac: Served) -> None:
    page = browser.new_page(viewport={"width": W, "height": H})
    running = {"rows": [], "next": 0, "done": 0, "total": 33, "finished": False, "problem": None, "toplists": {}}
    page.route("**/api/facts*", lambda route: route.fulfill(status=200, content_type="application/json",
                                                             body=json.dumps(running)))
    page.goto(javac.url)
    page.wait_for_selector("body[data-ready]")
    page.wait_for_function("document.getElementById('progress-text').textContent.startsWith('analysed 0')")
    assert page.inner_text("#top-calls .empty") == "not known yet"
    assert page.inner_text("#top-checks .empty") == "not known yet"
    assert page.inner_text("#top-fired .empty").startswith("No log given"), "nothing can be known without a log"
    page.close()


@pytest.mark.slow
def test_the_folder_export_index_keeps_class_and_method(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "pages"
    code, _, err = run_cli(str(JAVAC), "--all", "--html", str(out), "-q")
    assert code == 0, err
    page = open_offline(browser, out / "index.html", W, H)
    _check_toplists(page)
    _check_method_cells(page)
    headers = page.locator("#index th").all_inner_texts()
    assert "fired" not in headers and "heat" not in headers
    page.close()


@pytest.mark.slow
def test_the_two_log_index_cuts_no_cell_and_blanks_what_did_not_change(browser: Any) -> None:
    served = Served(RECORD / "jdk17-HotLoop", str(RECORD / "jdk25-HotLoop"))
    try:
        page = _open(browser, served.url)
        headers = page.eval_on_selector_all("#index th", "ths => ths.map(t => t.getBoundingClientRect())")
        for left, right in itertools.pairwise(headers):
            assert left["right"] <= right["left"] + 1, "no header overlaps the next"
        for th in page.eval_on_selector_all("#index th", "ths => ths.map(t => [t.textContent, "
                                            "t.scrollWidth <= t.clientWidth + 1])"):
            assert th[1], f"header {th[0]!r} shows whole"
        cells = page.eval_on_selector_all(
            "#index tbody tr[data-row] td:not(.left)",
            "tds => tds.map(t => [t.textContent, t.scrollWidth <= t.clientWidth + 1])")
        assert cells
        for text, whole in cells:
            assert whole, f"cell {text!r} is cut"
            assert text not in ("+0 \u22120", "0 \u2192 0"), "a count that did not change shows nothing"
        assert any("inlined" in text for text, _ in cells), "0 (+1 inlined) shows whole"
        _check_method_cells(page)
        assert page.errors == []
        page.close()
    finally:
        served.stop(signal.SIGTERM)


@pytest.mark.slow
def test_a_large_method_opens_on_its_loop_header_and_the_panel_fits_its_tables(browser: Any, tmp_path: Path) -> None:
    page = open_offline(browser, write_report(tmp_path, str(READ_TOKEN)), W, H)
    page.screenshot(path=str(tmp_path / "readToken.png"))
    model = page.evaluate("JSON.parse(document.getElementById('model').textContent).methods[0]")
    assert len(model["blocks"]) > 1000 and model["page"]["focus_loop"] is not None
    pane = page.locator("#graph-pane").bounding_box()
    head = page.locator(f'g[data-block="B{model["page"]["focus_loop"]}"]').bounding_box()
    assert head["x"] >= pane["x"] and head["x"] + head["width"] <= pane["x"] + pane["width"], "the header whole"
    assert head["y"] >= pane["y"] and head["y"] + head["height"] <= pane["y"] + pane["height"]
    tables = page.evaluate("""() => { const tab = document.getElementById("tables");
        return [tab.scrollWidth <= tab.clientWidth + 1,
                [...tab.querySelectorAll("table")].map(t => t.getBoundingClientRect().width <= tab.clientWidth),
                [...tab.querySelectorAll("table.loops td:last-child")].map(td => td.getBoundingClientRect().width)];
    }""")
    fits, each, calls = tables
    assert fits and all(each), "the summary's tables fit the side panel"
    assert min(calls) >= 60, "the Loops table's calls column is never one letter a line"
    page.close()


def test_the_source_pane_shows_a_line(browser: Any, tmp_path: Path) -> None:
    page = open_offline(browser, write_report(tmp_path, str(TENSOR4D), "--source-path", str(DATA / "java")), W, H)
    shown = page.evaluate("""() => { const pre = document.getElementById("source");
        const line = pre.querySelector(".ln"), no = line.querySelector(".no");
        const probe = document.createElement("span"); probe.textContent = "x".repeat(100);
        probe.style.font = getComputedStyle(pre).font; document.body.append(probe);
        const char = probe.getBoundingClientRect().width / 100; probe.remove();
        const gutter = no.getBoundingClientRect().right - pre.getBoundingClientRect().left;
        return [(pre.clientWidth - gutter) / char, getComputedStyle(pre).overflowX]; }""")
    chars, overflow = shown
    assert chars >= 32, f"the source pane shows {chars:.0f} characters of a line"
    assert overflow == "auto", "and scrolls to the rest"
    assert page.locator("#graph-pane").bounding_box()["width"] >= 0.4 * W
    page.close()


@pytest.mark.slow
def test_the_diff_page_fills_heat_by_the_runs_share(browser: Any, tmp_path: Path) -> None:
    # HotLoop::run's OSR compilation @6 took 0.01% and 0.02% of its runs' samples: before, its hottest block was as
    # red as the hottest of the method holding 21%
    out = tmp_path / "diff.html"
    args = (str(RECORD / "jdk17-HotLoop"), str(RECORD / "jdk25-HotLoop"))
    code, _, err = run_cli("diff", *args, "--compile-id", "15", "--compile-id", "19", "--html", str(out), "-q")
    assert code == 0, err
    page = open_offline(browser, out, W, H)
    assert "share of the run" in page.inner_text("#diff-bar")
    for side in ("old", "new"):
        frame = page.query_selector(f"#{side}").content_frame()
        model = frame.evaluate("JSON.parse(document.getElementById('model').textContent).methods[0]")
        heat = {b["id"]: next(iter(b["heat"].values())) for b in model["blocks"] if b.get("heat")}
        hottest = max(heat, key=lambda b: heat[b])
        assert heat[hottest] < 1
        fill = frame.get_attribute(f'g[data-block="B{hottest}"] > path, g[data-block="B{hottest}"] > polygon', "fill")
        assert fill == describe.run_heat_colour(heat[hottest]) and int(fill[3:5], 16) >= 0xd0, "pale, not red"
        assert "share of the run" in frame.evaluate("JSON.parse(document.getElementById('model').textContent)"
                                                    ".methods[0].page.heat_label")
    page.close()


@pytest.mark.slow
def test_a_record_folders_compilation_without_samples_says_so(browser: Any) -> None:
    served = Served(RECORD / "jdk17-HotLoop")
    try:
        page = _open(browser, served.url)
        page.click('#index tr[data-compile-id="19"] td a')
        page.wait_for_selector("body[data-ready]")
        summary = page.inner_text("#tables")
        assert "0 samples in this compilation" in summary and "no profile" not in summary
        page.close()
    finally:
        served.stop(signal.SIGTERM)


@pytest.mark.slow
def test_the_title_flags_are_explained(browser: Any, tmp_path: Path) -> None:
    page = open_offline(browser, write_report(tmp_path, str(READ_TOKEN)), W, H)
    assert "[!]" in page.inner_text("#title")
    assert f"[!] {describe.FLAG_LABELS['!']}" in page.get_attribute("#title", "title")
    assert f"[!] {describe.FLAG_LABELS['!']}" in page.inner_text("#tables")
    page.click('#tabs button[data-tab="legend"]')
    legend = page.inner_text("#legend")
    assert all(f"[{flag}] {label}" in legend for flag, label in describe.FLAG_LABELS.items())
    page.close()
