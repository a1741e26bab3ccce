"""Properties of an HTML page asmcfg writes (`--html`, `diff --html`), whatever the log held.

The page is parsed as a browser's tokenizer would see it: only the elements and attributes of its template
and of Graphviz's SVG appear, no event-handler attribute, no link off the page, exactly the template's own
`<script>` elements (the page's script byte for byte, its model JSON that parses), the template's
Content-Security-Policy unchanged (and, when it pins scripts by hash, the page's scripts among the hashes),
and no raw bidi control anywhere a reader sees text. `diff --html` pages hold the two sides' pages in their
frames' `srcdoc`: those are checked as pages too.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from importlib import resources

from properties import require

SVG_TAGS = frozenset({"svg", "g", "title", "polygon", "polyline", "path", "ellipse", "text", "a", "defs",
                      "lineargradient", "radialgradient", "stop", "tspan"})
"""Elements Graphviz writes into an SVG (which the page holds in `<template>` elements)."""
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
"""Bidi embedding, override and isolate controls and the directional marks: reorder what a reader sees."""


def asset(name: str) -> str:
    """A page asset's text as asmcfg ships it."""
    return resources.files("asmcfg.render").joinpath("assets", name).read_text(encoding="utf-8")


class _Tokens(HTMLParser):
    """Start tags with their attributes, and each `<script>` element's text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[tuple[dict[str, str], str]] = []
        self._script: dict[str, str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = {name: value or "" for name, value in attrs}
        self.tags.append((tag, named))
        if tag == "script":
            self._script, self._text = named, []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None


def tokens(page: str) -> _Tokens:
    """The page's tokens."""
    parser = _Tokens()
    parser.feed(page)
    parser.close()
    return parser


def _csp(found: _Tokens) -> list[str]:
    return [a.get("content", "") for tag, a in found.tags
            if tag == "meta" and a.get("http-equiv", "").lower() == "content-security-policy"]


def check_page(page: str, template: str, script: str) -> None:
    """`page` was made from the asset `template` with the asset `script` as its one executable script."""
    expected = tokens(template.replace("{{SCRIPT}}", script))
    found = tokens(page)
    allowed = {tag for tag, _ in expected.tags} | SVG_TAGS | {"template"}
    for tag, attrs in found.tags:
        require(tag in allowed, f"page: an element <{tag}> that is neither the template's nor Graphviz's")
        for name, value in attrs.items():
            require(not name.startswith("on"), f"page: an event handler attribute {name}= on <{tag}>")
            if name.endswith("href"):
                require(value.startswith("#"), f"page: a link off the page on <{tag}>: {value[:60]!r}")
    require(len(found.scripts) == len(expected.scripts), f"page: {len(found.scripts)} <script> elements, "
            f"the template has {len(expected.scripts)}")
    csp, pinned = _csp(found), [_placeholders(c) for c in _csp(expected)]
    require(len(csp) == len(pinned) and all(p.fullmatch(c) for p, c in zip(pinned, csp, strict=False)),
            f"page: Content-Security-Policy changed: {csp!r}")
    hashes = set(re.findall(r"'(sha(?:256|384|512)-[^']+)'", csp[0] if csp else ""))
    for attrs, text in found.scripts:
        if attrs.get("type") == "application/json":
            json.loads(text, parse_constant=_not_json)
            continue
        require(text.strip() == script.strip(), "page: an executable <script> that is not the page's own")
        if hashes:
            require(_hashes(text) & hashes != set(), "page: the page's script is not among the CSP's hashes")
    outside = page.replace(script, "")
    spoof = BIDI.search(outside)
    require(spoof is None, f"page: raw bidi control U+{ord(spoof.group()):04X} in the page" if spoof else "")


_SOURCES = r"'sha(?:256|384|512)-[A-Za-z0-9+/=]+'(?: 'sha(?:256|384|512)-[A-Za-z0-9+/=]+')*"
"""What a `{{SCRIPT_HASH}}` of a template's policy becomes: one or more quoted script hashes, nothing else."""


def _placeholders(template_csp: str) -> re.Pattern[str]:
    """The template's policy, each `{{NAME}}` in it (the page's script hashes, filled in per page) matching only
    quoted hashes."""
    pieces = re.split(r"\{\{\w+\}\}", template_csp)
    return re.compile(_SOURCES.join(map(re.escape, pieces)))


def _hashes(text: str) -> set[str]:
    data = text.encode("utf-8")
    return {f"{name}-{base64.b64encode(hashlib.new(name, data).digest()).decode()}"
            for name in ("sha256", "sha384", "sha512")}


def _not_json(name: str) -> None:
    require(False, f"page: the model JSON holds {name}")


def check_report(page: str) -> None:
    """An `--html` page."""
    check_page(page, asset("page.html"), asset("page.js"))


def check_diff_report(page: str) -> None:
    """A `diff --html` page, and the two pages in its frames."""
    check_page(page, asset("diff.html"), asset("diff.js"))
    frames = [a.get("srcdoc", "") for tag, a in tokens(page).tags if tag == "iframe"]
    require(len(frames) == 2, f"diff page: {len(frames)} frames with a page")
    for frame in frames:
        check_report(frame)
