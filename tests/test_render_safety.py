"""Reports of untrusted logs: a very long method name renders, clipped as single-method output clips it.

Inputs are the real Ring pair of tests/data/diff (JDK 17, no hsdis) with the method's name `sum` replaced."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from corpus import DATA, run_cli

from asmcfg.render import quoting

RING = {side: DATA / "diff" / f"jdk17-Ring-{side}-nohsdis.txt" for side in ("before", "after")}
SVG_NS = "{http://www.w3.org/2000/svg}"
RENDERERS = [
    pytest.param("dot", marks=pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not on PATH")),
    "graphviz-pure",
]
INJECTED = "document.body.dataset.pwned = 'script'"
RLO = "\u202e"


def renamed(folder: Path, name: str) -> tuple[Path, Path]:
    """The Ring pair with the method `sum` named `name` everywhere it is printed."""
    paths = []
    for side, source in RING.items():
        path = folder / f"{side}.txt"
        path.write_text(re.sub(r"\bsum\b", lambda _: name, source.read_text(encoding="utf-8")), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]


def svg_texts(path: Path) -> list[str]:
    """Every `<text>` of an SVG as a reader sees it."""
    return ["".join(t.itertext()) for t in ET.parse(path).getroot().iter(f"{SVG_NS}text")]


# ------------------------------------------------------------------------------------------ long names (item 10)


@pytest.mark.parametrize("length", [8000, 16400])
@pytest.mark.parametrize("renderer", RENDERERS)
def test_diff_svg_of_a_long_method_name_renders_with_the_name_clipped(
    tmp_path: Path, renderer: str, length: int
) -> None:
    old, new = renamed(tmp_path, "m" * length)
    out = tmp_path / "diff.svg"
    code, _, err = run_cli("diff", str(old), str(new), "--svg", str(out), "--renderer", renderer, "-q")
    assert code == 0, err
    texts = svg_texts(out)
    titles = {t[:5]: t for t in texts if "Ring::m" in t and t[:5] in ("old: ", "new: ")}
    assert set(titles) == {"old: ", "new: "}, "both sides' titles are drawn"
    for title in titles.values():
        assert len(title) == quoting.MAX_LINE and title.endswith("m..."), title
    assert max(len(t) for t in texts) <= quoting.MAX_LINE


@pytest.mark.parametrize("renderer", RENDERERS)
def test_single_method_and_diff_clip_a_long_name_the_same_way(tmp_path: Path, renderer: str) -> None:
    name = "m" * 8000
    old, new = renamed(tmp_path, name)
    single, both = tmp_path / "single.svg", tmp_path / "diff.svg"
    code, _, err = run_cli(str(new), "--compile-id", "9", "--svg", str(single), "--renderer", renderer, "-q")
    assert code == 0, err
    code, _, err = run_cli("diff", str(old), str(new), "--svg", str(both), "--renderer", renderer, "-q")
    assert code == 0, err
    label = next(t for t in svg_texts(single) if "Ring::m" in t)
    compilation = label.split("Ring::")[0] + "Ring::" + name  # `c2 id 9 tier 4 Ring::mmm…`
    assert label == quoting.clipped(compilation)
    assert quoting.clipped(f"new: {compilation}  (JDK 17)") in svg_texts(both)
    for args in ((str(new), "--compile-id", "9"), ("diff", str(old), str(new))):
        code, dot_text, err = run_cli(*args, "--dot", "-", "-q")
        assert code == 0, err
        assert "m" * quoting.MAX_LINE not in dot_text, "every label is clipped before it reaches Graphviz"
