"""The report page as a user meets it at 1280 x 800 in Debian's Chromium (Playwright): every tab's content, the
perfasm page opening on its hottest blocks, panes that resize and hide, search by block, trap reason and callee, a
source line with no code, folds that cover no block, the `--all` index's headers, and `diff --html`'s tables."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, json_methods, run_cli
from pages import CHROMIUM, IMAGES, NO_CHROMIUM, WRITE_EXAMPLES, launch, open_offline, write_report

EXAMPLE = Path(__file__).parent.parent / "examples" / "c2-compiled-realTest.S"
TENSOR4D = DATA / "nohsdis" / "jdk17-Tensor4D-print-nohsdis.txt"
JAVA = DATA / "java"
DEVBENCH = DATA / "perfasm" / "jdk17-DevBench" / "perfasm-console.txt"
RING_BEFORE = DATA / "diff" / "jdk17-Ring-before-nohsdis.txt"
RING_AFTER = DATA / "diff" / "jdk17-Ring-after-nohsdis.txt"
RECORDED = DATA / "record" / "jdk17-HotLoop"
W, H = 1280, 800

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(tmp_path_factory.mktemp("example"), str(EXAMPLE))


@pytest.fixture(scope="module")
def tensor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tensor")
    return write_report(folder, str(TENSOR4D), "--compile-id", "9", "--source-path", str(JAVA))


@pytest.fixture(scope="module")
def devbench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(tmp_path_factory.mktemp("devbench"), str(DEVBENCH))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(tmp_path_factory.mktemp("recorded"), str(RECORDED))


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is drawn"
    return box  # type: ignore[no-any-return]


def _meets(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def _marked(page: Any) -> set[str]:
    return set(page.eval_on_selector_all("g.node.match", "ns => ns.map(n => n.dataset.block || n.dataset.fold)"))


def _model(page: Any) -> dict[str, Any]:
    return page.evaluate("JSON.parse(document.getElementById('model').textContent).methods[0]")  # type: ignore[no-any-return]


def test_the_summary_tab_shows_at_load_with_block_links_that_select(browser: Any, example: Path) -> None:
    page = open_offline(browser, example, W, H)
    model = _model(page)
    assert page.locator("#tables").is_visible() and not page.locator("#details").is_visible()
    text = page.inner_text("#tables")
    assert ", ," not in text and "[object" not in text
    path = page.locator("#tables p", has=page.locator("a")).first
    assert path.locator("a").all_inner_texts() == [f"B{b}" for b in model["hot_path"]]
    trap_rows = page.locator("#tables tr", has_text="null_check / ")
    assert trap_rows.locator("a").count() == sum(1 for b in model["blocks"] if b.get("trap")
                                                   and b["trap"]["reason"] == "null_check")
    path.locator("a", has_text=re.compile(r"^B10$")).click()
    assert page.locator("#details").is_visible(), "a block link opens the block tab"
    assert page.inner_text("#details h2").startswith("B10")
    assert page.locator('g[data-block="B10"]').get_attribute("class") == "node selected"
    page.click("#tabs button[data-tab='legend']")
    legend = page.inner_text("#legend")
    assert "uncommon trap" in legend.lower() and "Edges" in legend and "depth 1" in legend
    page.click("#tabs button[data-tab='tables']")
    assert "Static hot path" in page.inner_text("#tables")
    page.close()


def test_measured_hot_paths_and_hottest_blocks_link_their_blocks(browser: Any, devbench: Path) -> None:
    page = open_offline(browser, devbench, W, H)
    model = _model(page)
    first = page.locator("#tables h3:has-text('Hot paths (measured)') + table tr").nth(1)
    assert first.locator("a").all_inner_texts() == [f"B{b}" for b in model["hot_paths"][0]["blocks"]]
    hottest = max((b for b in model["blocks"] if b.get("heat")), key=lambda b: next(iter(b["heat"].values())))
    page.locator("#tables h3:has-text('Hottest blocks') + table a").first.click()
    assert page.inner_text("#details h2").startswith(f"B{hottest['id']} ")
    page.close()


def test_a_recorded_page_says_whose_samples_and_what_a_sample_names(browser: Any, recorded: Path) -> None:
    """A record folder's page: HotLoop.run's 3,084 samples, a share of the JVM's samples, and the skid rule; its
    hottest block, clicked from the summary, is the loop's call block B8."""
    page = open_offline(browser, recorded, W, H)
    tables = page.inner_text("#tables")
    assert "0.00% of the JVM's samples; this compilation holds 21.04% (3,084 samples)" in tables
    assert page.inner_text("#tables p.skid").startswith("a sample names the instruction about to run (skid)")
    page.locator("#tables h3:has-text('Hottest blocks') + table a").first.click()
    assert page.inner_text("#details h2").startswith("B8 ")
    page.close()


def test_the_source_pane_marks_a_lines_blocks_and_says_when_none(browser: Any, tensor: Path) -> None:
    page = open_offline(browser, tensor, W, H)
    assert page.locator("#source-files button").all_inner_texts() == ["Tensor4D.java"]
    page.click('#source [data-line="9"]')
    assert page.locator("g.node.from-line").count() >= 1
    assert re.match(r"line 9: \d+ block", page.inner_text("#search-status"))
    page.click('#source [data-line="2"]')  # `public class Tensor4D {`: no code
    assert page.inner_text("#search-status") == "no code came from line 2"
    assert page.locator("g.node.from-line").count() == 0
    page.close()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)])
def test_a_perfasm_page_opens_on_its_hottest_blocks(browser: Any, devbench: Path, width: int, height: int) -> None:
    page = open_offline(browser, devbench, width, height)
    model = _model(page)
    heat = {f"B{b['id']}": next(iter(b["heat"].values())) for b in model["blocks"] if b.get("heat")}
    hottest = max(heat, key=lambda b: heat[b])
    assert (hottest, round(heat[hottest])) == ("B24", 27), "the hottest block of the innermost hot loop"
    pane = _box(page, "#graph-pane")
    assert _meets(_box(page, f'g[data-block="{hottest}"]'), pane)
    assert _meets(_box(page, 'g[data-block="B25"]'), pane), "its 10% neighbour too"
    text = page.eval_on_selector(f'g[data-block="{hottest}"] text', "t => t.getBoundingClientRect().height")
    assert text >= 10, "at a readable zoom"
    page.click("#fit")
    page.keyboard.press("h")
    assert _meets(_box(page, f'g[data-block="{hottest}"]'), _box(page, "#graph-pane")), "h comes back to it"
    page.close()


def test_panes_resize_by_dragging_and_hide_and_show(browser: Any, tensor: Path) -> None:
    page = open_offline(browser, tensor, W, H)
    graph = lambda: _box(page, "#graph-pane")["width"]  # noqa: E731
    start = graph()
    assert start >= 0.4 * W, "the graph gets at least 40% of the window beside a panel whose tables fit and a source"
    for splitter, dx in (("#split-side", -150), ("#split-source", 100)):
        bar = _box(page, splitter)
        page.mouse.move(bar["x"] + 3, bar["y"] + 200)
        page.mouse.down()
        page.mouse.move(bar["x"] + 3 + dx, bar["y"] + 200, steps=5)
        page.mouse.up()
        assert graph() == pytest.approx(start - abs(dx), abs=2), splitter
        start = graph()
    side = _box(page, "#side")["width"]
    page.click("#toggle-side")
    assert not page.locator("#side").is_visible() and graph() == pytest.approx(start + side + 6, abs=2)
    page.click("#toggle-source")
    assert not page.locator("#source-pane").is_visible()
    page.click("#toggle-side")
    page.click("#toggle-source")
    assert page.locator("#side").is_visible() and graph() == pytest.approx(start, abs=2)
    page.close()


def test_the_overview_covers_no_block_at_load(browser: Any, tensor: Path, devbench: Path, example: Path) -> None:
    for path in (tensor, devbench, example):
        page = open_offline(browser, path, W, H)
        if page.locator("#minimap").is_visible():
            minimap = _box(page, "#minimap")
            boxes = page.eval_on_selector_all("g.node", "ns => ns.map(n => { const r = n.getBoundingClientRect(); "
                                              "return {x: r.x, y: r.y, width: r.width, height: r.height}; })")
            assert not any(_meets(minimap, b) for b in boxes), path.name
        page.click("#toggle-map")
        assert page.locator("#minimap").is_visible() != ("collapsed" in (page.get_attribute("#minimap", "class") or ""))
        page.close()


def test_search_finds_a_block_a_trap_reason_and_a_callee(browser: Any, example: Path) -> None:
    page = open_offline(browser, example, W, H)
    model = _model(page)
    folds = {b: f["name"] for f in model["page"]["folds"] for b in f["blocks"]}
    drawn = lambda ids: {folds.get(b, f"B{b}") for b in ids}  # noqa: E731
    page.fill("#search", "B9")
    assert _marked(page) == {"B9"} and page.inner_text("#search-status") == "1 block"
    for reason in ("predicate", "null_check"):
        page.fill("#search", reason)
        trapping = {b["id"] for b in model["blocks"] if b.get("trap") and b["trap"]["reason"] == reason}
        assert trapping and drawn(trapping) <= _marked(page), reason
    page.fill("#search", "UncommonTrapBlob")
    calling = {b["id"] for b in model["blocks"]
               if any("UncommonTrapBlob" in r for i in b["instructions"] for r in i.get("relocs") or [])}
    assert calling and _marked(page) == drawn(calling)
    page.close()


def test_an_expanded_fold_covers_no_other_block(browser: Any, example: Path) -> None:
    page = open_offline(browser, example, W, H)
    fold = page.eval_on_selector("g[data-fold]", "n => n.dataset.fold")
    page.click("#fit")
    page.click(f'g[data-fold="{fold}"]')
    box = _box(page, ".fold-box")
    others = page.eval_on_selector_all("g.node", "ns => ns.map(n => { const r = n.getBoundingClientRect(); "
                                       "return {x: r.x, y: r.y, width: r.width, height: r.height}; })")
    assert not any(_meets(box, b) for b in others)
    assert _meets(box, _box(page, "#graph-pane")), "the expansion is brought into view"
    page.close()


def test_the_index_headers_are_whole(browser: Any, tmp_path: Path) -> None:
    page = open_offline(browser, write_report(tmp_path, str(TENSOR4D), "--all"), W, H)
    heads = page.eval_on_selector_all("#index-head th", "ths => ths.map(t => [t.textContent, t.title, "
                                      "t.scrollWidth <= t.clientWidth, t.getBoundingClientRect().height])")
    assert [h[0] for h in heads][:3] == ["compiler", "id", "tier"]
    for text, title, whole, _ in heads:
        assert whole and title.startswith(text), text
    page.close()


def test_the_diff_page_shows_the_tables_and_sources(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "diff.html"
    args = ("diff", str(RING_BEFORE), str(RING_AFTER), "--method", "sum", "--compiler", "c2")
    code, _, err = run_cli(*args, "--html", str(out), "--source-path", str(JAVA / "ring" / "after"))
    assert code == 0, err
    assert f"wrote {out}: c2 id 8 tier 4 Ring::sum (47 bytes) -> c2 id 9 tier 4 Ring::sum (66 bytes)" in err
    page = open_offline(browser, out, W, H)
    assert "main code B 544 → 960 (+76.5%)" in page.inner_text("#diff-summary")
    page.click("#diff-summary")
    tables = page.locator("#diff-tables")
    assert tables.locator("h3").all_inner_texts() == ["Compilations", "Loops (old → new)",
                                                      "Traps, checks, calls and polls that changed"]
    assert tables.locator("tr", has_text="main code B").inner_text().split("\t") == ["main code B", "544 → 960",
                                                                                      "+76.5%"]
    document = json_diff(*args)
    changes = tables.locator("table").nth(2).locator("tr")
    assert changes.count() == 1 + len(document["changes"])
    assert {changes.nth(n).inner_text().split("\t")[1] for n in range(1, changes.count())} >= {"added", "removed"}
    for side in ("old", "new"):
        frame = page.query_selector(f"#{side}").content_frame()
        assert frame.inner_text("#source-files") == "Ring.java"
        pane, whole = frame.evaluate("[document.getElementById('graph-pane').clientWidth, window.innerWidth]")
        assert pane >= 0.7 * whole, "each graph gets its frame's width but the source until a block is clicked"
    page.close()
    clash = run_cli(*args, "--html", str(JAVA / "ring" / "after" / "Ring.java"),
                    "--source-path", str(JAVA / "ring" / "after"))
    assert clash[0] == 2 and "would overwrite a source of --source-path" in clash[2]


def json_diff(*args: str) -> dict[str, Any]:
    import json

    code, out, err = run_cli(*args, "--json", "-", "-q")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_a_screenshot_at_1280(browser: Any, example: Path, tmp_path: Path) -> None:
    """docs/images/report-1280.png (with ASMCFG_WRITE_EXAMPLES=1): the page at 1280 x 800 as it opens."""

    folder = IMAGES if WRITE_EXAMPLES else tmp_path
    page = open_offline(browser, example, W, H)
    page.click('g[data-block="B10"]')
    page.screenshot(path=str(folder / "report-1280.png"))
    assert (folder / "report-1280.png").stat().st_size > 50_000
    assert _model(page)["counts"]["blocks"] == len(json_methods(str(EXAMPLE))[0]["blocks"])
    page.close()


def test_a_compilation_nothing_could_draw_lists_its_blocks_that_click_and_search(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broken Graphviz on PATH (both renderers fail): the page says so above a listing of the blocks, whose
    boxes open the panel and take the search's marks as the graph's nodes do."""
    broken = tmp_path / "bin"
    broken.mkdir()
    for name in ("dot", "graphviz-pure"):
        (broken / name).write_text("#!/bin/sh\necho 'Error: renderer is broken' >&2\nexit 1\n")
        (broken / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{broken}:/usr/bin:/bin")
    out = tmp_path / "all.html"
    code, _, err = run_cli(str(EXAMPLE), "--all", "--html", str(out), "-q")
    assert code == 0, err
    page = open_offline(browser, out, W, H)
    model = _model(page)
    note = page.locator("#draw-note")
    assert note.is_visible()
    assert note.inner_text().startswith("not drawn: dot failed: Error: renderer is broken (with and without loop")
    assert page.eval_on_selector_all("div.listed", "ns => ns.map(n => n.dataset.block)") == [
        f"B{b['id']}" for b in model["blocks"]]
    b9 = page.inner_text('div.listed[data-block="B9"]')
    assert b9.startswith(f"B9  {model['blocks'][9]['start'][2:]}  [loop_header]")
    for ins in model["blocks"][9]["instructions"]:
        assert f"{ins['address'][2:]}  {ins['mnemonic']}" in b9
    pane, b9_box = _box(page, "#graph-pane"), _box(page, 'div.listed[data-block="B9"]')
    assert _meets(pane, b9_box) and not _meets(_box(page, "#draw-note"), b9_box), "the hot loop's header, in view"
    page.click('div.listed[data-block="B10"]')
    details = page.locator("#details").inner_text()
    assert details.startswith("B10") and "range check at" in details and "null check at" in details
    assert page.eval_on_selector_all("div.listed.selected", "ns => ns.map(n => n.dataset.block)") == ["B10"]
    page.fill("#search", "predicate")
    trapping = {f"B{b['id']}" for b in model["blocks"] if b.get("trap") and b["trap"]["reason"] == "predicate"}
    assert trapping and set(page.eval_on_selector_all("div.listed.match", "ns => ns.map(n => n.dataset.block)")) \
        == trapping
    page.screenshot(path=str(tmp_path / "listing.png"))
    page.click("#draw-note-close")
    assert not note.is_visible()
    page.close()
