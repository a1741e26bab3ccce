"""`asmcfg serve OLD NEW` in Debian's Chromium (Playwright): the whole-log diff of two full runs of Tensor4D, on
JDK 17 and on JDK 25 (the inputs of tests/test_whole_diff.py), as the index; a pair's side-by-side page and a
method of one log's report opened from it; Back to the index as it was; the token every request needs."""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from corpus import DATA, run_cli
from pages import CHROMIUM, NO_CHROMIUM, launch
from served import Served

from asmcfg import describe

HSDIS = DATA / "hsdis"
TENSOR = tuple(HSDIS / f"jdk{jdk}-Tensor4D-printassembly-full.txt.gz" for jdk in (17, 25))
W, H = 1400, 900

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


@pytest.fixture(scope="module")
def tensor() -> Iterator[Served]:
    served = Served(TENSOR[0], str(TENSOR[1]))
    yield served
    served.stop(signal.SIGTERM)


@pytest.fixture(scope="module")
def whole() -> dict[str, Any]:
    """What `asmcfg diff OLD NEW --json` lists of the same two logs."""
    code, out, err = run_cli("diff", *map(str, TENSOR), "--json", "-", "-q")
    assert code == 0, err
    found: dict[str, Any] = json.loads(out)
    return found


def _open(browser: Any, url: str) -> Any:
    page = browser.new_page(viewport={"width": W, "height": H})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    page.errors = errors
    return page


ROWS = """rows => rows.map((r) => [r.dataset.kind, ...[...r.cells].slice(0, 6).map((td) => td.textContent),
                              r.dataset.oldId ?? null, r.dataset.newId ?? null, r.dataset.compileId ?? null])"""
"""Each drawn row: its kind, its cells #, method, compiler, OSR, old id, new id, and its data attributes."""


def _rows(page: Any) -> list[list[Any]]:
    found: list[list[Any]] = page.eval_on_selector_all("#index tr[data-row]", ROWS)
    return found


def _osr(value: int | None) -> str:
    return "" if value is None else str(value)


def test_the_index_lists_the_pairs_the_whole_log_diff_lists_in_its_order(browser: Any, tensor: Served,
                                                                         whole: dict[str, Any]) -> None:
    page = _open(browser, tensor.url)
    rows = _rows(page)
    pairs = [r for r in rows if r[0] == "pair"]
    expected = [[str(p["rank"]), describe.short_name(p["method"]), p["compiler"], _osr(p["osr_bci"]),
                 str(p["old_compile_id"]), str(p["new_compile_id"])] for p in whole["pairs"]]
    assert [r[1:7] for r in pairs] == expected, "every pair, ranked as `asmcfg diff OLD NEW` ranks them"
    assert len(pairs) == 9 and pairs[0][2] == "Tensor4D::sum4" and pairs[0][4] == "40"
    assert all(r[7] == r[5] and r[8] == r[6] == r[9] for r in pairs), "data-old-id, data-new-id, data-compile-id"
    only = {(r[0], r[2], r[3], r[7] or r[8]) for r in rows if r[0] != "pair"}
    short = describe.short_name
    assert only == {("old", short(m["method"]), m["compiler"], str(m["compile_id"])) for m in whole["only_old"]} | {
        ("new", short(m["method"]), m["compiler"], str(m["compile_id"])) for m in whole["only_new"]}
    assert len(only) == 5 and ("old", "Tensor4D::sum4", "c1", "7") in only
    sum4 = page.locator('#index tr[data-kind="pair"][data-old-id="10"] td')
    assert sum4.nth(1).inner_text() == "Tensor4D::sum4"
    # JDK 25 hoists the range checks of sum4's innermost loop (loop predicates) and adds 8 ints a trip in ymm
    # registers (tests/test_whole_diff.py reads it by hand): traps +3 -12, checks leave the loops, one vector loop
    assert sum4.nth(6).inner_text() == "+3 \u221212"
    assert sum4.nth(8).inner_text() == "0 \u2192 1"
    assert "vector loops 0 \u2192 1" in sum4.nth(11).inner_text()
    assert page.inner_text("#summary") == "9 pairs (9 changed), 2 only in the old log, 3 only in the new log"
    assert page.errors == []


def test_the_filter_narrows_and_a_column_sorts(browser: Any, tensor: Served, whole: dict[str, Any]) -> None:
    page = _open(browser, tensor.url)
    page.fill("#filter", "sumdiag")
    assert {(r[2], r[3]) for r in _rows(page)} == {("Tensor4D::sumDiag", "c1"), ("Tensor4D::sumDiag", "c2")}
    page.fill("#filter", "tensor4d sum4")
    assert {r[2] for r in _rows(page)} == {"Tensor4D::sum4"} and len(_rows(page)) == 5, "3 pairs, 2 of JDK 17 only"
    page.fill("#filter", "")
    page.click("#index th:text-is('traps')")
    page.click("#index th:text-is('traps')")  # descending: the most traps added first
    most = max(whole["pairs"], key=lambda p: (p["headline"]["traps_added"], -p["headline"]["traps_removed"]))
    first = _rows(page)[0]
    assert (first[2], first[3], first[4]) == (most["method"], most["compiler"], _osr(most["osr_bci"]))
    assert first[2] == "Tensor4D::sum4", "the loop predicates of JDK 25's sum4 add the most traps"


def test_a_pair_opens_its_side_by_side_diff_and_back_keeps_the_filter(browser: Any, tensor: Served) -> None:
    page = _open(browser, tensor.url)
    page.fill("#filter", "sum4")
    page.click('#index tr[data-kind="pair"][data-old-id="10"] td:nth-child(3)')
    page.wait_for_url("**/pair/10/11")
    page.wait_for_selector("body[data-ready]")  # both sides' report pages ran their scripts
    old, new = (page.inner_text(f"#diff-bar .sides span:nth-child({n})") for n in (1, 2))
    assert "Tensor4D::sum4" in old and "id 10" in old and "JDK 17" in old, old
    assert "Tensor4D::sum4" in new and "id 11" in new and "JDK 25" in new, new
    for side in ("old", "new"):
        frame = page.query_selector(f"#{side}").content_frame()
        assert frame.locator("g[data-block]").count() > 5, f"the {side} graph is drawn"
    assert page.errors == []
    page.go_back()
    page.wait_for_selector("body[data-ready]")
    assert page.input_value("#filter") == "sum4"
    assert len(_rows(page)) == 5, "the index as it was"


def test_a_method_of_one_log_opens_its_compilation(browser: Any, tensor: Served) -> None:
    page = _open(browser, tensor.url)
    page.click('#index tr[data-kind="old"][data-old-id="7"] td:nth-child(2)')
    page.wait_for_url("**/old/7")
    page.wait_for_selector("body[data-ready]")
    assert "Tensor4D::sum4" in page.title() and "7" in page.title()
    assert page.locator("#search").count() == 1, "the --html page of JDK 17's C1 compilation 7"
    assert page.errors == []


def test_a_request_without_the_token_is_refused(tensor: Served) -> None:
    for path in ("", "c/0", "pair/10/11", "old/7", "?token=wrong", "?code=wrong"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(tensor.base + path, timeout=10)
        assert refused.value.code == 403, path
    with tensor.opener().open(tensor.base, timeout=10) as answer:
        assert answer.status == 200 and b'id="index"' in answer.read()
