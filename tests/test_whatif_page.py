"""`asmcfg whatif --html` in a real browser: the side-by-side page of `asmcfg diff`, its sides named baseline and
what-if, the what-if's lines (fidelity first) above them (Debian's Chromium, via Playwright)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pages import CHROMIUM, NO_CHROMIUM, launch, open_offline
from test_whatif import ADD, assert_nothing_left, fake, whatif

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
__all__ = ["fake"]  # the fixture, used by name


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch()


def test_the_page_says_the_baseline_matches_and_names_its_sides(browser: Any, fake: dict[str, str],
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "whatif.html"
    done = whatif(fake, "--compile-id", str(ADD), "--html", str(out), "-q", "--", "-XX:-UseSuperWord")
    assert done.returncode == 0, done.stderr
    page = open_offline(browser, out, 1280, 800)
    said = page.locator("p.whatif").all_inner_texts()
    assert said[0].startswith("whatif: WhatIf::add (compile id 17 of pid 19291)")
    assert said[1] == "baseline matches the recording"
    sides = page.locator("div.sides span").all_inner_texts()
    assert sides[0].startswith("baseline: c2 id 3") and sides[1].startswith("what-if: c2 id 3")
    page.screenshot(path=str(tmp_path / "whatif.png"))
    assert_nothing_left(fake)
