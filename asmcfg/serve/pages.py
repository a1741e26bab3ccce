"""The pages `asmcfg serve` sends: the index of every compilation, a compilation's report (the `--html` page) and
a short page saying why one cannot be shown. Each is one document whose Content-Security-Policy lets only its own
script run, pinned by its hash; text from the log reaches them as JSON the script puts in as text, or escaped."""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from asmcfg.terminal import visible

if TYPE_CHECKING:
    from asmcfg.model import Analysis
    from asmcfg.render.html import PageOptions
    from asmcfg.serve.rows import Index

POLICY = ("default-src 'none'; style-src 'unsafe-inline'; script-src {hash}; img-src data:; connect-src 'self'; "
          "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
"""The Content-Security-Policy header of a page whose one script has the hash `{hash}`."""
DIFF_POLICY = POLICY.replace("img-src data:;", "img-src data:; frame-src about:;")
"""The policy of the side-by-side diff page: its two frames are `srcdoc` documents."""
NO_SCRIPT = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
"""The policy of a page without script."""


@dataclass(frozen=True, slots=True)
class Page:
    """A page to send: its bytes and the policy that goes with them."""

    body: bytes
    """The HTML document, UTF-8."""
    policy: str
    """Its Content-Security-Policy."""


def script_hash(script: str) -> str:
    """The policy's `'sha256-…'` source for a script (as `render.html.script_hash`, without loading the renderer:
    the index is ready sooner)."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no `<` can close it."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")


def _asset(name: str) -> str:
    return resources.files("asmcfg.serve").joinpath("assets", name).read_text(encoding="utf-8")


def _fill(template: str, parts: dict[str, str]) -> str:
    pieces = re.split(r"\{\{(\w+)\}\}", template)
    return "".join(parts[piece] if n % 2 else piece for n, piece in enumerate(pieces))


def index_page(index: Index, source: str, links: list[str], facts: dict[str, Any] | None = None,
               more: dict[str, Any] | None = None) -> Page:
    """The index: every compilation's row and the page it opens (`links`: the server's addresses, or a folder's
    page files) as JSON the page script shows a window of, and the toplists' places; a folder's index adds the
    analysis the server would send (`facts`); the server's, its timeline's address (`more["timeline"]`) and the
    time range whose samples it counts (`more["range"]`: `said`, `query`)."""
    data = {"source": source, "rows": index.cells(), "pages": links, "known": index.known, **(more or {})}
    return _index("index", f"asmcfg: {source}", data if facts is None else {**data, "facts": facts})


def diff_index_page(title: str, data: dict[str, Any]) -> Page:
    """The index of two logs: every pair's row and every method of one log's, as JSON the page script shows a
    window of."""
    return _index("diff", title, data)


def _index(name: str, title: str, data: dict[str, Any]) -> Page:
    """An index page: its template and script (after the table's, `table.js`) named `name`, `data` as JSON."""
    script = _asset("table.js") + _asset(f"{name}.js")
    text = _fill(_asset(f"{name}.html"), {
        "TITLE": html.escape(visible(title)),
        "STYLE": _asset("index.css"),
        "DATA": script_json(data),
        "SCRIPT": script,
        "SCRIPT_HASH": script_hash(script),
    })
    return Page(text.encode("utf-8"), POLICY.format(hash=script_hash(script)))


def compilation_page(result: Analysis, options: PageOptions) -> Page:
    """The `--html` report of one compilation, as `asmcfg FILE --compile-id N --html` writes it."""
    from asmcfg.render.html import page_script, write_html

    out = io.StringIO()
    write_html([result], out, options)
    return Page(out.getvalue().encode("utf-8"), POLICY.format(hash=script_hash(page_script())))


def diff_page(text: str) -> Page:
    """The side-by-side page of two compilations, as `asmcfg diff OLD NEW --html FILE` writes it; its frames (each
    side's report) inherit its policy, which so names both pages' scripts."""
    from asmcfg.compare.html import script_hashes

    return Page(text.encode("utf-8"), DIFF_POLICY.format(hash=script_hashes()))


def timeline_page(document: dict[str, Any], title: str, given: str, served: dict[str, Any]) -> Page:
    """The run over time (`--timeline --html`'s page), its bars opening the server's pages (`served`)."""
    from asmcfg.render import timeline_html

    text = timeline_html.timeline_page(document, visible(title), given, served)
    return Page(text.encode("utf-8"), POLICY.format(hash=script_hash(timeline_html.timeline_script())))


def with_range(page: Page, said: str, whole: str) -> Page:
    """A compilation's page saying, in its bar, which samples its heat counts (`said`, as `timeline.words` makes
    it), with a link to the whole run's page (`whole`, a server address)."""
    note = (f'<span id="range" style="color:#a35200;white-space:nowrap">{html.escape(said)} '
            f'(<a href="{html.escape(whole)}">the whole run</a>)</span>')
    return Page(page.body.replace(b'<span id="title"></span>', b'<span id="title"></span>' + note.encode(), 1),
                page.policy)


def go_on_page(path: str) -> bytes:
    """The page a code is exchanged for: it goes on to `path` (a page of this server) at once, a link besides."""
    target = html.escape(path)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="refresh" content="0; url={target}"><title>asmcfg serve</title></head>'
            f'<body><p><a href="{target}">Go on</a></p></body></html>\n').encode()


def problem_page(title: str, message: str) -> Page:
    """A page that says why a compilation cannot be shown; `message` may quote the log and is escaped."""
    text = _fill(_asset("problem.html"), {
        "TITLE": html.escape(visible(title)),
        "MESSAGE": html.escape(visible(message)),
    })
    return Page(text.encode("utf-8"), NO_SCRIPT)
