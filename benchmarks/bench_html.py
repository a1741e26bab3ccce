"""The interactive report of BigMethod's largest C2 compile (1,158 blocks) in headless Chromium.

Measures, as ratios against references run in the same script:
1. time until the page is interactive (its script has drawn the view and set `body[data-ready]`) against
   Chromium opening a blank page from disk in the same browser (aim: <= 3 s absolute);
2. the page's size (aim: < 5 MB);
3. writing the page (`asmcfg … --html`) against `python -c "import networkx"`.

Run: python benchmarks/bench_html.py [--runs N]   (needs the playwright package and Debian's chromium)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIG = ROOT / "tests" / "data" / "hsdis" / "jdk17-BigMethod-print-hsdis-att.txt.gz"
COMPILE_ID = "11"
ASMCFG = [sys.executable, "-m", "asmcfg"]


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=ROOT)
    return time.perf_counter() - start


def open_times(browser: object, url: str, runs: int, ready: str | None) -> list[float]:
    """Seconds from navigation to `ready` (a selector) or to the load event, one fresh page per run."""
    times = []
    for _ in range(runs):
        page = browser.new_page(viewport={"width": 1600, "height": 1000})  # type: ignore[attr-defined]
        start = time.perf_counter()
        page.goto(url)
        if ready:
            page.wait_for_selector(ready, timeout=60_000)
        times.append(time.perf_counter() - start)
        page.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("bench_html: Debian's chromium is not installed")
    with tempfile.TemporaryDirectory() as folder:
        page_file = Path(folder) / "big.html"
        blank = Path(folder) / "blank.html"
        blank.write_text("<!DOCTYPE html><html><body></body></html>")
        reference = statistics.median(timed([sys.executable, "-c", "import networkx"]) for _ in range(runs))
        write = statistics.median(
            timed([*ASMCFG, str(BIG), "--compile-id", COMPILE_ID, "--html", str(page_file), "-q"]) for _ in range(runs)
        )
        size = page_file.stat().st_size
        with sync_playwright() as play:
            browser = play.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            open_times(browser, blank.as_uri(), 2, None)  # warm the browser up
            empty = statistics.median(open_times(browser, blank.as_uri(), runs, None))
            ready = open_times(browser, page_file.as_uri(), runs, "body[data-ready]")
            browser.close()
    interactive = statistics.median(ready)
    print(f"cores: {os.cpu_count()}  runs per figure: {runs} (median)")
    print(f"{'measure':64} {'value':>10} {'ratio':>8}")
    print(f"{'Chromium opens a blank page from disk (reference), s':64} {empty:10.3f} {1:8.2f}")
    print(f"{'BigMethod id 11 page interactive, s (aim <= 3)':64} {interactive:10.3f} {interactive / empty:8.2f}")
    print(f"{'  slowest of the runs, s':64} {max(ready):10.3f} {max(ready) / empty:8.2f}")
    print(f"{'page size, MB (aim < 5)':64} {size / 1e6:10.2f}")
    name = 'python -c "import networkx" (reference), s'
    print(f"{name:64} {reference:10.3f} {1:8.2f}")
    print(f"{'asmcfg BigMethod --compile-id 11 --html (system dot), s':64} {write:10.3f} {write / reference:8.2f}")


if __name__ == "__main__":
    main()
