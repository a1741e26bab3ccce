"""The interactive report in a real browser: Playwright drives Debian's headless Chromium over the page
`asmcfg --html` writes, and the tests check what an engineer sees after each click."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, json_methods
from pages import CHROMIUM, IMAGES, NO_CHROMIUM, WRITE_EXAMPLES, launch, open_offline, write_report

EXAMPLE = Path(__file__).parent.parent / "examples" / "c2-compiled-realTest.S"
TENSOR4D = DATA / "nohsdis" / "jdk17-Tensor4D-print-nohsdis.txt"
JAVA = DATA / "java"

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


def _page(browser: Any, path: Path, width: int = 1600, height: int = 1000) -> Any:
    return open_offline(browser, path, width, height)


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(tmp_path_factory.mktemp("example"), str(EXAMPLE))


@pytest.fixture(scope="module")
def example_model() -> dict[str, Any]:
    return json_methods(str(EXAMPLE))[0]


def _marked(page: Any, css: str) -> set[str]:
    """Names of the drawn nodes with class `css`: blocks (`B10`) and folded chains (`F20`)."""
    return set(page.eval_on_selector_all(f"g.node.{css}", "nodes => nodes.map(n => n.dataset.block || n.dataset.fold)"))


def _drawn(page: Any, blocks: set[str], method: int = 0) -> set[str]:
    """The nodes that draw `blocks`: their own, or the folded chain's they are in."""
    folds = page.evaluate(f"JSON.parse(document.getElementById('model').textContent).methods[{method}].page.folds")
    fold_of = {f"B{b}": f["name"] for f in folds for b in f["blocks"]}
    return {fold_of.get(b, b) for b in blocks}


def test_opens_centred_on_the_hot_loop_with_readable_text(browser: Any, example: Path) -> None:
    # The hot loop (B9) is 953 px tall at zoom 1 as system dot lays it out, 1021 px as graphviz-pure does (the
    # renderer without Graphviz installed): a pane of 1060 px holds it whole at a readable zoom with either.
    page = _page(browser, example, height=1100)
    pane = page.locator("#graph-pane").bounding_box()
    for name in ("B9", "B10", "B11", "B12", "B13"):
        box = page.locator(f'g[data-block="{name}"]').bounding_box()
        assert box["x"] >= pane["x"] and box["x"] + box["width"] <= pane["x"] + pane["width"], name
        assert box["y"] >= pane["y"] and box["y"] + box["height"] <= pane["y"] + pane["height"], name
    heights = page.eval_on_selector_all(
        'g[data-block="B10"] text', "ts => ts.map(t => t.getBoundingClientRect().height)")
    assert len(heights) >= 9 and min(heights) >= 10, "every line of B10 is at least 10 px tall"
    assert "B2" not in {n for n in _visible(page, pane)}, "the view is on the loop, not the whole method"
    page.close()


def _visible(page: Any, pane: dict[str, float]) -> list[str]:
    boxes = page.eval_on_selector_all(
        "g[data-block]",
        "ns => ns.map(n => { const r = n.getBoundingClientRect(); return [n.dataset.block, r.x, r.y]; })",
    )
    return [name for name, x, y in boxes
            if pane["x"] <= x <= pane["x"] + pane["width"] and pane["y"] <= y <= pane["y"] + pane["height"]]


def test_clicking_b10_shows_its_instructions_checks_and_where_debug_info_comes_from(
    browser: Any, example: Path, example_model: dict[str, Any], tmp_path: Path
) -> None:
    page = _page(browser, example)
    page.click('g[data-block="B10"]')
    details = page.locator("#details")
    text = details.inner_text()
    b10 = example_model["blocks"][10]
    for ins in b10["instructions"]:
        assert ins["address"][2:] in text and ins["mnemonic"] in text
    checks = details.locator("ul.checks li").all_inner_texts()
    assert len(checks) == 2
    assert {c.split(" at ")[0] for c in checks} == {"range check", "null check"}
    for check in checks:
        assert "aaload@42, line 25" in check, check
    assert any("trap range_check / make_not_entrant" in c for c in checks)
    assert any("trap null_check / maybe_recompile" in c for c in checks)
    assert "8 of 8 instructions carry no debug info" in text
    assert "only where the code records it: at safepoints, calls, and trap and implicit-exception sites" in text
    assert "comes from the trap its check leads to" in text
    assert page.locator('g[data-block="B10"]').get_attribute("class") == "node selected"
    page.close()
    _readme_screenshot(browser, example, IMAGES if WRITE_EXAMPLES else tmp_path)


def _readme_screenshot(browser: Any, example: Path, folder: Path) -> None:
    """The README's picture: 960 x 640 CSS pixels at twice the density, B10 clicked, the static hot path marked."""
    page = browser.new_page(viewport={"width": 960, "height": 640}, device_scale_factor=2)
    page.goto(example.as_uri())
    page.wait_for_selector("body[data-ready]")
    page.click('g[data-block="B10"]')
    page.screenshot(path=str(folder / "report-realTest.png"))
    page.close()
    assert (folder / "report-realTest.png").stat().st_size > 50_000


def test_a_check_reaches_its_failure_path_and_back(browser: Any, example: Path) -> None:
    page = _page(browser, example)
    page.click('g[data-block="B10"]')
    page.locator("ul.checks li", has_text="range check").locator("a", has_text="B20").click()
    assert page.locator("#details h2").inner_text().startswith("B20")
    box = page.locator('.fold-box .mini[data-block="B20"]')
    assert box.get_attribute("class") == "mini selected", "the folded chain opened on its block"
    assert box.is_visible()
    back = page.locator("#details li", has_text="the range check in")
    assert "B10" in back.inner_text()
    back.locator("a", has_text="B10").click()
    assert page.locator("#details h2").inner_text().startswith("B10")
    page.close()


def test_search_marks_the_blocks_holding_an_instruction(
    browser: Any, example: Path, example_model: dict[str, Any]
) -> None:
    page = _page(browser, example)
    holding = {f"B{b['id']}" for b in example_model["blocks"]
               if any(i["mnemonic"] == "vaddss" for i in b["instructions"])}
    page.fill("#search", "vaddss")
    assert _marked(page, "match") == holding
    assert "B13" in holding and len(holding) == 3, "the loop body, the pre-loop peel and the second loop each add once"
    for query in ("0x00007a9a54b0dc90", "7a9a54b0dc90", "dc90"):
        page.fill("#search", query)
        assert _marked(page, "match") == {"B13"}, query
    page.fill("#search", "@42")
    at42 = {f"B{b['id']}" for b in example_model["blocks"]
            if any(f["bci"] == 42 for i in b["instructions"] for f in i.get("frames", []))}
    assert at42 and _marked(page, "match") == _drawn(page, at42)
    page.fill("#search", "vaddss")
    page.press("#search", "Enter")
    assert page.locator("#search-status").inner_text() == "1 / 3 blocks"
    assert page.locator("#details h2").inner_text().startswith(sorted(holding, key=lambda b: int(b[1:]))[0])
    page.close()


def test_all_page_lists_every_compilation_and_opens_one(browser: Any, tmp_path: Path) -> None:
    listed = json_methods(str(TENSOR4D), "--all")
    page = _page(browser, write_report(tmp_path, str(TENSOR4D), "--all"))
    rows = page.locator("#index tr")
    assert rows.count() == len(listed) == 6
    ids = [int(t) for t in page.eval_on_selector_all("#index tr td:nth-child(2)", "ts => ts.map(t => t.textContent)")]
    assert sorted(ids) == sorted(m["compile_id"] for m in listed)
    page.click("#index-head th:nth-child(2)")
    page.click("#index-head th:nth-child(2)")
    ids = [int(t) for t in page.eval_on_selector_all("#index tr td:nth-child(2)", "ts => ts.map(t => t.textContent)")]
    assert ids == sorted(ids, reverse=True), "the id column sorts"
    page.locator("#index tr", has=page.locator("td:nth-child(2)", has_text=re.compile(r"^9$"))).click()
    page.wait_for_selector("#view:not([hidden])")
    assert "id 9 " in page.locator("#title").inner_text()
    sum4 = next(m for m in listed if m["compile_id"] == 9)
    folded = page.evaluate(f"JSON.parse(document.getElementById('model').textContent).methods[{listed.index(sum4)}]"
                           ".page.folds.reduce((n, f) => n + f.blocks.length, 0)")
    assert page.locator("#canvas g[data-block]").count() == len(sum4["blocks"]) - folded
    page.click("#to-index")  # a link to `#index-view`: the page shows the list when the address changes
    page.wait_for_selector("#index-view", state="visible", timeout=5000)
    assert page.locator("#index-view").is_visible() and not page.locator("#view").is_visible()
    page.close()


def test_source_lines_highlight_the_code_they_became(browser: Any, tmp_path: Path) -> None:
    model = json_methods(str(TENSOR4D), "--compile-id", "9")[0]
    page = _page(browser, write_report(tmp_path, str(TENSOR4D), "--compile-id", "9", "--source-path", str(JAVA)))
    assert page.locator("#source-files button").all_inner_texts() == ["Tensor4D.java"]
    line = 9
    assert "s += t[a][b][c][d];" in page.locator(f'#source [data-line="{line}"]').inner_text()
    page.click(f'#source [data-line="{line}"]')
    expected = {f"B{b['id']}" for b in model["blocks"]
                if any(f["line"] == line for i in b["instructions"] for f in i.get("frames", []))
                or (b["source"] and b["source"].get("via") == "check" and b["source"]["line"] == line)}
    assert expected and _marked(page, "from-line") == _drawn(page, expected)
    assert page.locator("#details .src-line", has_text="s += t[a][b][c][d];").count() >= 1
    assert page.locator("#details tr.from-line").count() >= 1
    page.close()
