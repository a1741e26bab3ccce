"""`--html` without a browser: the page is one self-contained file, and bad options fail cleanly."""

from __future__ import annotations

import json
import re
from pathlib import Path

from corpus import run_cli

EXAMPLE = Path(__file__).parent.parent / "examples" / "c2-compiled-realTest.S"


def test_html_to_stdout_is_one_self_contained_page() -> None:
    code, out, err = run_cli(str(EXAMPLE), "--html", "-", "-q")
    assert code == 0, err
    assert out.startswith("<!DOCTYPE html>")
    assert not re.search(r"<script[^>]+src=|<link\b|@import|url\(|<img\b|<iframe\b", out)
    drawn = 72 - _folded(out)
    assert out.count('<g id="b') == out.count('class="node" data-block="B') == drawn, "one node per drawn block"


def _folded(page: str) -> int:
    model = json.loads(re.search(r'<script type="application/json" id="model">(.*?)</script>', page, re.S).group(1))
    return sum(len(f["blocks"]) for f in model["methods"][0]["page"]["folds"])


def test_a_missing_source_folder_is_one_line_and_leaves_the_page_alone(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    out.write_text("kept")
    code, _, err = run_cli(str(EXAMPLE), "--html", str(out), "--source-path", str(tmp_path / "nowhere"), "-q")
    assert code == 1
    assert err.strip() == f"asmcfg: {tmp_path / 'nowhere'}: no such folder (--source-path takes folders of .java files)"
    assert out.read_text() == "kept"


def test_a_page_written_to_a_file_is_reported_on_stderr(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    code, stdout, err = run_cli(str(EXAMPLE), "--html", str(out))
    assert code == 0, err
    assert stdout == "", "no DOT on stdout when --html is asked"
    assert f"wrote {out}: c2 id 950 tier 4 com.mpataki.Tensor4DBenchmark::realTest (59 bytes)" in err.replace("\n", "")
    assert out.read_text().startswith("<!DOCTYPE html>")
