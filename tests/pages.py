"""What the browser tests share: Debian's Chromium under Playwright, and opening a page that must load nothing but
itself and raise no error."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NO_CHROMIUM = "Chromium is not installed (.ci/run installs Debian's)"
IMAGES = Path(__file__).parent.parent / "docs" / "images"
"""The README's and the docs' screenshots."""
WRITE_EXAMPLES = os.environ.get("ASMCFG_WRITE_EXAMPLES") == "1"
"""Set to 1 to have the browser tests write their screenshots to IMAGES (else to their temporary folders)."""

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


def launch() -> Iterator[Any]:
    """A headless Chromium for a module's tests (the body of a module-scoped fixture)."""
    with sync_api.sync_playwright() as play:
        launched = play.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


def open_offline(browser: Any, path: Path, width: int, height: int) -> Any:
    """`path` opened at that viewport once its script says it is ready; fails on a page error or any load that is
    not the file itself."""
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: errors.append("request " + req.url) if not req.url.startswith("file:") else None)
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")
    assert errors == [], "the page raised no error and loaded nothing but itself"
    return page


def write_report(folder: Path, *args: str) -> Path:
    """`asmcfg ARGS --html FOLDER/report.html -q`, which must succeed; the page's path."""
    out = folder / "report.html"
    code, _, err = run_cli(*args, "--html", str(out), "-q")
    assert code == 0, err
    return out
