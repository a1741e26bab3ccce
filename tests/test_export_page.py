"""The folder `asmcfg FILE --all --html DIR` writes, as a user meets it in Debian's Chromium (Playwright) opened from
the disk: the index filters and sorts with no server, a row and a toplist entry open their compilation's page whose
panel works, Back returns to the index as it was, and script in the log's text never runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, run_cli
from pages import CHROMIUM, NO_CHROMIUM, launch, open_offline
from test_export import injected

SHAPES = DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt"
"""Nine compilations of Shapes::total and Shapes::totalPerim, C1 and C2, OSR and not (compile ids 13-29)."""
W, H = 1280, 800

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "shapes"
    code, _, err = run_cli(str(SHAPES), "--all", "--html", str(out), "-q")
    assert code == 0, err
    return out


def _ids(page: Any) -> list[str]:
    return page.eval_on_selector_all("#index tr[data-compile-id]", "trs => trs.map(t => t.dataset.compileId)")


def test_the_index_opens_from_disk_filters_and_sorts(browser: Any, exported: Path) -> None:
    page = open_offline(browser, exported / "index.html", W, H)
    page.wait_for_selector("body[data-analysed]")
    assert _ids(page) == ["13", "14", "15", "16", "17", "18", "22", "23", "29"], "one row per compilation, in order"
    assert page.inner_text("#progress-text") == "9 analysed", "the analysis is in the page: nothing to wait for"
    page.fill("#filter", "Perim")
    assert _ids(page) == ["14", "17", "18", "22", "29"], "only Shapes::totalPerim's compilations"
    page.fill("#filter", "")
    page.click("#index th:text-is('loops')")
    page.click("#index th:text-is('loops')")
    loops = page.eval_on_selector_all("#index tr[data-compile-id] td:nth-child(8)",
                                      "tds => tds.map(t => +t.textContent)")
    assert loops == sorted(loops, reverse=True) and loops[0] >= 1, "sorted by an analysis column, most loops first"


def test_a_row_opens_its_page_whose_panel_works_and_back_keeps_the_filter(browser: Any, exported: Path) -> None:
    page = open_offline(browser, exported / "index.html", W, H)
    page.fill("#filter", "Perim")
    page.click("#index th:text-is('id')")
    page.click("#index th:text-is('id')")  # descending: 29, 22, 18, 17, 14
    assert _ids(page)[:2] == ["29", "22"]
    page.click('#index tr[data-compile-id="17"] td:nth-child(2)')
    page.wait_for_url("**/id-17.html")
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
    assert page.url.split("#")[0] == (exported / "index.html").as_uri()
    assert page.input_value("#filter") == "Perim"
    assert _ids(page) == ["29", "22", "18", "17", "14"], "the filter and the sort as they were"


def test_a_toplist_entry_opens_its_compilation(browser: Any, exported: Path) -> None:
    page = open_offline(browser, exported / "index.html", W, H)
    assert page.locator(".toplist").count() == 7
    assert page.inner_text("#top-largest li").startswith("Shapes::total")
    assert page.inner_text("#top-findings li").startswith("check-in-loop Shapes::totalPerim@")
    page.click("#top-largest li a")
    page.wait_for_selector("body[data-ready]")
    assert page.url.endswith("/id-15.html") and "15" in page.title() and "Shapes::total" in page.title()


def test_script_in_the_log_does_not_run(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, err = run_cli(str(injected(tmp_path)), "--all", "--html", str(out), "-q")
    assert code == 0, err
    page = open_offline(browser, out / "index.html", W, H)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.fill("#filter", "script")
    cell = page.inner_text('#index tr[data-compile-id="13"] td:nth-child(5)')
    assert cell.startswith("Shapes::total</script><script>document.title='pwned'</script>"), "shown as text"
    assert page.title() != "pwned" and dialogs == []
    page.click('#index tr[data-compile-id="13"] td:nth-child(2)')
    page.wait_for_selector("body[data-ready]")
    assert page.title().startswith("asmcfg: c1 id 13 tier 3 Shapes::total</script><script>document.title='pwned'")
    assert dialogs == [], "the name is the page's title as text; no script of it ran"
