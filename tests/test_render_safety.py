"""Reports of untrusted logs: a very long method name renders, clipped as single-method output clips it; the page
runs only its own script (CSP by hash), so markup that slipped into it could not run a script; bidirectional
controls in names are shown as escapes, not obeyed.

Inputs are the real Ring pair of tests/data/diff (JDK 17, no hsdis) with the method's name `sum` replaced."""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

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
    code, _, err = run_cli("diff", str(old), str(new), "--compiler", "c2", "--svg", str(out), "--renderer", renderer,
                           "-q")
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
    code, _, err = run_cli("diff", str(old), str(new), "--compiler", "c2", "--svg", str(both), "--renderer", renderer,
                           "-q")
    assert code == 0, err
    label = next(t for t in svg_texts(single) if "Ring::m" in t)
    compilation = label.split("Ring::")[0] + "Ring::" + name  # `c2 id 9 tier 4 Ring::mmm…`
    assert label == quoting.clipped(compilation)
    assert quoting.clipped(f"new: {compilation}  (JDK 17)") in svg_texts(both)
    for args in ((str(new), "--compile-id", "9"), ("diff", str(old), str(new), "--compiler", "c2")):
        code, dot_text, err = run_cli(*args, "--dot", "-", "-q")
        assert code == 0, err
        assert "m" * quoting.MAX_LINE not in dot_text, "every label is clipped before it reaches Graphviz"


# ------------------------------------------------------------------------------------------ CSP (item 11)


class _Scripts(HTMLParser):
    """The CSP meta's policy, and the text of every script element that would run (no data type)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.policy: str | None = None
        self.scripts: list[str] = []
        self.srcdocs: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "meta" and (found.get("http-equiv") or "").lower() == "content-security-policy":
            assert self.policy is None, "one policy"
            self.policy = found.get("content")
        elif tag == "script" and found.get("type") in (None, "", "text/javascript", "module"):
            self._open = []
        elif tag == "iframe" and found.get("srcdoc") is not None:
            self.srcdocs.append(found["srcdoc"] or "")

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._open is not None:
            self.scripts.append("".join(self._open))
            self._open = None


def _parsed(text: str) -> _Scripts:
    parser = _Scripts()
    parser.feed(text)
    parser.close()
    return parser


def _directives(policy: str) -> dict[str, list[str]]:
    parts = (d.split() for d in policy.split(";") if d.strip())
    return {p[0]: p[1:] for p in parts}


def _sha256(script: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode() + "'"


def _assert_pinned(page: _Scripts, extra: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """The page's policy lets exactly its own scripts (and `extra` hashes) run, and restricts base and forms."""
    assert page.policy is not None, "the page has a Content-Security-Policy"
    policy = _directives(page.policy)
    assert page.scripts, "the page has its script"
    assert sorted(policy["script-src"]) == sorted({_sha256(s) for s in page.scripts} | set(extra))
    assert not {"'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", "*"} & set(policy["script-src"])
    assert policy["default-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"] and policy["form-action"] == ["'none'"]
    return policy


@pytest.fixture(scope="module")
def injected(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The Ring pair whose method name holds `</script><script>…` and a bidirectional override."""
    name = f"sum</script><script>{INJECTED.replace(' ', '')}</script>{RLO}evil"
    return renamed(tmp_path_factory.mktemp("injected"), name)


def _html(folder: Path, *args: str) -> Path:
    out = folder / "page.html"
    code, _, err = run_cli(*args, "--html", str(out), "-q")
    assert code == 0, err
    return out


def test_page_and_all_page_pin_their_script_by_hash(injected: tuple[Path, Path], tmp_path: Path) -> None:
    for args in (("--compile-id", "9"), ("--all",)):
        page = _parsed(_html(tmp_path, str(injected[1]), *args).read_text(encoding="utf-8"))
        _assert_pinned(page)
        assert len(page.scripts) == 1, "the name's </script><script> stays text inside the model"


def test_diff_page_pins_its_script_and_the_framed_pages(injected: tuple[Path, Path], tmp_path: Path) -> None:
    page = _html(tmp_path, "diff", str(injected[0]), str(injected[1]), "--compiler", "c2")  # one pair, one page
    outer = _parsed(page.read_text(encoding="utf-8"))
    assert len(outer.srcdocs) == 2 and len(outer.scripts) == 1
    inner = [_parsed(srcdoc) for srcdoc in outer.srcdocs]  # the parser has decoded the attribute's references
    for page in inner:
        _assert_pinned(page)
    # a framed page inherits the outer policy too: it must let the framed page's script run, and nothing else
    _assert_pinned(outer, extra=(_sha256(inner[0].scripts[0]),))


# ------------------------------------------------------------------------------------------ in a real browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from pages import launch

    yield from launch()


def _opened(browser: Any, path: Path) -> tuple[Any, list[str]]:
    """The page once ready, and what its console said (a refused script is reported there)."""
    from pages import CHROMIUM

    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (.ci/run installs Debian's)")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    console: list[str] = []
    errors: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: errors.append("request " + req.url) if not req.url.startswith("file:") else None)
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]")
    assert errors == [], "the page raised no error and loaded nothing but itself"
    return page, console


def _tampered(path: Path, policy: str | None = None) -> Path:
    """The page as if escaping had failed: a script element and an inline handler among the page's data (after
    the model, before the graphs); `policy` replaces the page's script-src."""
    text = path.read_text(encoding="utf-8")
    payload = f'<script>{INJECTED}</script><svg onload="document.body.dataset.handler = 1"></svg>\n'
    text = text.replace("\n<template id=\"svg0\">", "\n" + payload + "<template id=\"svg0\">", 1)
    assert payload in text
    if policy is not None:
        text = re.sub(r"script-src [^;]*;", f"script-src {policy};", text, count=1)
    out = path.with_name("tampered.html")
    out.write_text(text, encoding="utf-8")
    return out


def _clicks_a_block(page: Any) -> None:
    page.click("#fit")
    node = page.locator("g[data-block]").first
    name = node.get_attribute("data-block")
    node.click()
    assert page.locator("#details h2").inner_text().startswith(name), "the block's details open"


def test_page_works_and_an_injected_script_does_not_run(
    browser: Any, injected: tuple[Path, Path], tmp_path: Path
) -> None:
    page, _ = _opened(browser, _html(tmp_path, str(injected[1]), "--compile-id", "9"))
    _clicks_a_block(page)
    assert page.get_attribute("body", "data-pwned") is None, "the name's <script> is text, not a script"
    page, console = _opened(browser, _tampered(tmp_path / "page.html"))
    _clicks_a_block(page)
    assert page.get_attribute("body", "data-pwned") is None and page.get_attribute("body", "data-handler") is None
    assert any("Content Security Policy" in line for line in console), console


def test_the_tampered_page_would_run_its_script_without_the_hash(
    browser: Any, injected: tuple[Path, Path], tmp_path: Path
) -> None:
    """The check above can fail: with 'unsafe-inline' in place of the hash, the same injection runs."""
    page, _ = _opened(browser, _tampered(_html(tmp_path, str(injected[1]), "--compile-id", "9"), "'unsafe-inline'"))
    assert page.get_attribute("body", "data-pwned") == "script"
    assert page.get_attribute("body", "data-handler") == "1"


# ------------------------------------------------------------------------------------------ bidi controls (item 11)


def test_a_bidi_override_in_a_name_is_shown_as_an_escape(
    browser: Any, injected: tuple[Path, Path], tmp_path: Path
) -> None:
    path = _html(tmp_path, str(injected[1]), "--compile-id", "9")
    page, _ = _opened(browser, path)
    _clicks_a_block(page)
    page.click("#tabs button[data-tab='tables']")
    shown = page.inner_text("body")
    assert RLO not in shown and RLO not in page.title()
    assert f"{RLO}evil" not in page.locator("#canvas svg").text_content()
    assert "\\x202eevil" in page.inner_text("#title") and "\\x202eevil" in page.title()
    assert "\\x202eevil" in page.inner_text("#tables")
    titles = page.eval_on_selector_all("g[data-block] > title", "ts => ts.map(t => t.textContent)")
    assert not any(RLO in t for t in titles)
    model = page.eval_on_selector("#model", "m => JSON.parse(m.textContent).methods[0].name")
    assert f"{RLO}evil" in model, "the model keeps the name as read: only what is shown changes"


def test_the_diff_page_shows_a_bidi_override_as_an_escape(
    browser: Any, injected: tuple[Path, Path], tmp_path: Path
) -> None:
    page, _ = _opened(browser, _html(tmp_path, "diff", str(injected[0]), str(injected[1]), "--compiler", "c2"))
    assert "\\x202eevil" in page.inner_text("#diff-bar") and RLO not in page.inner_text("#diff-bar")
    assert RLO not in page.title()
    for side in ("old", "new"):
        frame = page.query_selector(f"#{side}").content_frame()
        assert "\\x202eevil" in frame.inner_text("#title") and RLO not in frame.inner_text("body")


def test_page_scripts_escape_the_controls_the_dot_writer_lists() -> None:
    """page.js, diff.js and serve's table.js name the characters of `quoting.SPOOFING` (the bidi controls and the
    characters that draw as nothing), escaped as the DOT writer escapes them."""
    serve_assets = Path(quoting.__file__).parent.parent / "serve" / "assets"
    for script_path in (Path(quoting.__file__).parent / "assets" / "page.js",
                        Path(quoting.__file__).parent / "assets" / "diff.js", serve_assets / "table.js"):
        script = script_path.read_text(encoding="utf-8")
        found = re.search(r"const HIDDEN = /\[([^\]]*)\]/gu;", script)
        assert found, script_path.name
        chars: set[str] = set()
        for first, last in re.findall(r"\\u\{?([0-9a-f]{4,5})\}?(?:-\\u\{?([0-9a-f]{4,5})\}?)?", found.group(1)):
            chars.update(chr(c) for c in range(int(first, 16), int(last or first, 16) + 1))
        assert chars == quoting.SPOOFING, script_path.name
    assert quoting.visible(f"a{RLO}b\u2066c\u00e9") == "a\\x202eb\\x2066c\u00e9"
    assert quoting.quote(f"a{RLO}b") == '"a\\\\x202eb"', "the DOT writer's escape of the same character"
