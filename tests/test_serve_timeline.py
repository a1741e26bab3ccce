"""The run over time in `asmcfg serve`, as a user meets it in Debian's Chromium: the timeline of a record folder
linked from the index, a stretch brushed on it giving the index of those samples alone (the hottest list changes to
the compilation that ran then), a bar opening its compilation's page; and the time range's rules: the same samples
`--from`/`--to` keep, a clear page for a range that is none, the cookie and the policy as on every page.
`ASMCFG_WRITE_EXAMPLES=1` also writes its 1280x800 screenshot to docs/images/serve-timeline-1280.png."""

from __future__ import annotations

import html
import os
import re
import shutil
import signal
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA
from pages import CHROMIUM, IMAGES, NO_CHROMIUM, WRITE_EXAMPLES, launch
from served import Served

from asmcfg import describe
from asmcfg.render.timeline_html import timeline_script
from asmcfg.run.log import Log
from asmcfg.serve.pages import script_hash

PHASES = DATA / "timeline" / "jdk17-Phases"
"""A hot method whose input changes twice: C2 versions id 8 (322 to 1,642 ms), 15 and 20 (3,214 ms to the end, the
hottest of the whole run)."""
EQ = DATA / "logc" / "jdk17-Eq-inlined-trap.xml.gz"
"""A LogCompilation log alone: JIT events, no samples."""
SHAPES = DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt"
"""A PrintAssembly dump: no JIT events at all."""
W, H = 1280, 800

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def phases() -> Iterator[Served]:
    served = Served(Path(os.path.relpath(PHASES)))  # as a user in the repository types it (the page shows it)
    yield served
    served.stop(signal.SIGTERM)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip(NO_CHROMIUM)
    yield from launch()


def _open(browser: Any, served: Served, path: str) -> Any:
    page = browser.new_page(viewport={"width": W, "height": H})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: None if req.url.startswith(served.base) else errors.append("request " + req.url))
    page.goto(served.url)
    page.wait_for_selector("body[data-ready]")
    if path != "/":
        page.goto(served.base.rstrip("/") + path)
        page.wait_for_selector("body[data-ready]")
    page.errors = errors
    return page


def _get(opener: urllib.request.OpenerDirector, served: Served, path: str) -> tuple[int, str, dict[str, str]]:
    try:
        with opener.open(served.base.rstrip("/") + path, timeout=120) as answer:
            return answer.status, answer.read().decode("utf-8"), dict(answer.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8"), dict(error.headers)


def test_a_stretch_brushed_on_the_timeline_gives_the_index_of_its_samples(browser: Any, phases: Served) -> None:
    page = _open(browser, phases, "/")
    page.click("#timeline")
    page.wait_for_url("**/timeline")
    page.wait_for_selector("body[data-ready]")
    assert page.locator("rect.sample").count() > 100 and page.locator("rect.bar").count() > 10
    assert page.locator("line.event.uncommon_trap").count() >= 4 and page.locator("#warm").count() == 1
    if WRITE_EXAMPLES:
        page.screenshot(path=str(IMAGES / "serve-timeline-1280.png"))
    box = page.locator("#chart").bounding_box()
    plot = box["width"] - 230 - 16
    at = lambda ms: box["x"] + 230 + ms / 4657 * plot  # noqa: E731
    page.mouse.move(at(400), box["y"] + 80)
    page.mouse.down()
    page.mouse.move(at(1500), box["y"] + 80)
    page.mouse.up()
    start, end = (int(v) for v in (page.locator("body").get_attribute("data-view") or "").split("-"))
    assert 380 < start < 420 and 1480 < end < 1520
    assert page.locator("#apply").get_attribute("href") == f"/?from={start}&to={end}"
    page.click("#apply")
    page.wait_for_selector("body[data-ready]")
    assert page.inner_text("#range").startswith(f"samples from {start:,} ms to {end:,} ms")
    page.wait_for_selector("#top-hottest li")
    first = page.locator("#top-hottest li a").first
    assert first.inner_text() == "Phases::hot"
    assert first.get_attribute("href") == f"/c/8?from={start}&to={end}", "the C2 version that ran then"
    assert page.locator("#top-hottest h2").inner_text() == f"Hottest (samples from {start:,} ms to {end:,} ms)"
    first.click()
    page.wait_for_url(f"**/c/8?from={start}&to={end}")
    page.wait_for_selector("body[data-ready]")
    assert page.inner_text("#range").startswith(f"samples from {start:,} ms to {end:,} ms")
    page.go_back()
    page.wait_for_selector("body[data-ready]")
    page.click("#range a")  # the whole run again
    page.wait_for_url(phases.base)
    page.wait_for_selector("body[data-analysed]")
    assert page.locator("#top-hottest li a").first.get_attribute("href") == "/c/20", "the last version, whole run"
    assert page.locator("#range").count() == 0
    assert page.errors == []
    page.close()


def test_a_click_on_a_bar_opens_that_compilation(browser: Any, phases: Served) -> None:
    page = _open(browser, phases, "/timeline")
    page.locator("rect.bar[data-id='15']").click()
    page.wait_for_url("**/c/15")
    page.wait_for_selector("body[data-ready]")
    assert "15" in page.title() and "Phases::hot" in page.title()
    page.go_back()
    page.wait_for_selector("body[data-ready]")
    page.click("#steady")  # the steady state alone: from the warm-up point on
    page.wait_for_selector("#top-hottest li")
    assert page.inner_text("#range").startswith("samples from 3,216 ms on")
    assert page.locator("#top-hottest li a").first.get_attribute("href") == "/c/20?from=3216"
    assert page.errors == []
    page.close()


def test_a_range_counts_the_samples_from_to_keeps(phases: Served) -> None:
    opener = phases.opener()
    status, _, _ = _get(opener, phases, "/?from=400&to=1500")
    assert status == 200
    answer = opener.open(phases.base + "api/facts?since=0&from=400&to=1500", timeout=120).read().decode("utf-8")
    values = re.findall(r'"hottest":\[(.*?)\]', answer)[0]
    expected = Log(str(PHASES), window=(400, 1500)).enrichment.perf
    assert expected is not None
    top = max(expected.sampled(), key=lambda s: s.samples)
    assert top.compile_id == 8
    assert f'"value":"{describe.percent((expected.share(top.samples),))}"' in values.split("},{")[0]


@pytest.mark.parametrize(("query", "said"), [
    ("from=abc", "`from` is a time in ms from the JVM's start"),
    ("from=1e9", "`from` is a time in ms"),
    ("to=-5", "`to` is a time in ms"),
    ("from=1500&to=400", "`to` (400 ms) must come after `from` (1500 ms)"),
    ("from=1&from=2", "`from` is a time in ms"),
    ("to=" + "9" * 40, "`to` is a time in ms"),
])
def test_a_range_that_is_none_is_a_clear_page_not_an_error(phases: Served, query: str, said: str) -> None:
    opener = phases.opener()
    for path in ("/", "/api/facts", "/c/8"):
        status, body, headers = _get(opener, phases, f"{path}?{query}")
        assert status == 400 and said in html.unescape(body), (path, body)
        assert "script-src" not in headers["Content-Security-Policy"]


def test_the_timeline_keeps_the_rules_of_every_page(phases: Served) -> None:
    outsider = urllib.request.build_opener()
    status, _, _ = _get(outsider, phases, "/timeline")
    assert status == 403, "no cookie, no timeline"
    status, body, headers = _get(phases.opener(), phases, "/timeline")
    assert status == 200 and script_hash(timeline_script()) in headers["Content-Security-Policy"]
    policy = headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, "nothing loaded from anywhere"
    assert "<script src" not in body


def test_a_log_alone_has_its_jit_events_and_no_range(tmp_path: Path) -> None:
    copy = tmp_path / EQ.name
    shutil.copy(EQ, copy)
    served = Served(copy)
    try:
        opener = served.opener()
        status, body, _ = _get(opener, served, "/timeline")
        assert status == 200 and '"buckets":[]' in body.replace(" ", "")
        assert "no samples (a record folder has them): the JIT events alone" in body
        status, body, _ = _get(opener, served, "/?from=10")
        assert status == 400 and "this input has no samples" in body
    finally:
        served.stop(signal.SIGTERM)
    plain = tmp_path / SHAPES.name
    shutil.copy(SHAPES, plain)
    served = Served(plain)
    try:
        opener = served.opener()
        assert _get(opener, served, "/timeline")[0] == 404, "a dump without JIT events has no timeline"
        assert _get(opener, served, "/?to=10")[0] == 400
        assert '"timeline":"/timeline"' not in _get(opener, served, "/")[1]
    finally:
        served.stop(signal.SIGTERM)
