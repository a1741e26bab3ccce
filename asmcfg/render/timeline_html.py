"""The run over time as one offline HTML page (`--timeline --html FILE`): an SVG of the stacked samples, the
compilations as bars, the events as marks, with zoom and brush; the page's script and style inlined."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from asmcfg.render.html import script_hash


def _asset(name: str) -> str:
    return resources.files("asmcfg.render").joinpath("assets", name).read_text(encoding="utf-8")


def timeline_script() -> str:
    """The page's script (its hash pins it in a policy)."""
    return _asset("timeline.js")


def timeline_page(document: dict[str, Any], title: str, given: str, served: dict[str, Any] | None = None) -> str:
    """The page of `document` (the `--timeline --json` document); `given` is the input as typed, for the commands
    the page shows; `served`, of `asmcfg serve`'s page: `pages`, each compile id's address, and `served: true`
    (a bar opens its compilation, a stretch chosen filters the index)."""
    script = timeline_script()
    data = json.dumps({**document, "title": title, "input": given, **(served or {})}, ensure_ascii=True)
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    escaped = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    page = _asset("timeline.html")
    for key, value in (("{{SCRIPT_HASH}}", script_hash(script)), ("{{TITLE}}", escaped), ("{{SCRIPT}}", script)):
        page = page.replace(key, value)
    return page.replace("{{DATA}}", data)
