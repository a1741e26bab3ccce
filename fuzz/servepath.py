"""The `serve` path of a single case: the case's file served in this process on a loopback port, as `asmcfg serve
FILE` serves it (its background analysis aside: that is the `--jsonl` path, which every case runs), and requests
made to it. Its properties:

- a request without the cookie, or naming another host, is refused (403) and shows nothing of the log;
- a one-time code is exchanged for the cookie, once, and the page shown next is `/`, the code out of its URL;
- the index page is the index template with its one script (fuzz/page.py's `check_page`), and its rows are strict
  JSON;
- the pages of the first PAGES compilations, at the addresses the index links them at (`/c/475`), keep
  `check_report`'s properties (or, for one the input cannot give, a problem page with no script at all);
- crafted paths (`..`, absolute paths, encoded slashes, a huge, signed or non-ASCII compile id, a place or a row
  number written otherwise than the links write them; a few of them each case) get 404, never a file's bytes; so
  does `/api/facts` (no background analysis here).
"""

from __future__ import annotations

import http.client
import json
import re
import threading
import zlib
from importlib import resources
from pathlib import Path

import page
from properties import require

from asmcfg.model import DialectName
from asmcfg.render.html import PageOptions, Render
from asmcfg.run import enrich
from asmcfg.run.log import Log
from asmcfg.run.pipeline import no_methods_error
from asmcfg.serve import app, links, pages, rows
from asmcfg.serve.opening import Reading, open_compilation

PAGES = 1
"""Compilation pages asked for per case (each is read, analysed and drawn)."""
CRAFTED_PER_CASE = 3
"""Crafted paths asked for per case: a different few each case (chosen by the case's bytes), all over a run."""
CRAFTED = ("/../../../../etc/passwd", "/c/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd",
           "/c/%2F..%2F..%2Fetc%2Fpasswd", "/c/99999999999999999999999", "/c/-1", "/c/%D9%A1", "/c/0/../../x",
           "/etc/passwd", "/api/facts/../../etc/passwd", "/c/+1", "/c/%201", "/C/0", "/c/0x1", "/c/1.1", "/c/1.",
           "/c/1.0", "/r/-1", "/r/9999999999", "/pair/1/../../etc/passwd", "/old/%31", "/new/1/", "/r/0.2")
"""Request paths that name nothing the server serves."""
_ROWS = re.compile(r'<script type="application/json" id="data">(.*?)</script>', re.S)


def check(path: Path, forced: str | None, render: Render) -> None:
    """Serve the case's file and make the requests; a property that fails raises Violation."""
    reading = Reading(str(path), DialectName(forced) if forced else None)
    index = rows.build(Log(str(path), input_format=reading.dialect))
    if not index.entries:
        raise no_methods_error(str(path))
    addresses = index.links()
    home = pages.index_page(index, str(path), addresses)
    how = enrich.load(None, None, None, source=str(path))

    def draw(n: int) -> pages.Page:
        done = enrich.enrich(open_compilation(reading, index.entries[n].row), how)
        return pages.compilation_page(done.analysis, PageOptions(render=render))

    server = app.Server(0, app.Site(links.rows_of(addresses), home, None, draw))
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.005}, daemon=True)
    serving.start()
    first = zlib.crc32(path.read_bytes()[:65536])
    crafted = [CRAFTED[(first + k) % len(CRAFTED)] for k in range(CRAFTED_PER_CASE)]
    try:
        _requests(server, addresses, crafted)
    finally:
        server.shutdown()
        server.server_close()


def _requests(server: app.Server, addresses: list[str], crafted_paths: list[str]) -> None:
    port = server.server_address[1]
    host = f"127.0.0.1:{port}"
    status, _, body = _get(port, "/", host)
    require(status == 403 and body == b"forbidden: open the URL or the file asmcfg serve printed\n",
            f"serve: / without the cookie answered {status}")
    code = server.url.split("?", 1)[1]
    status, _, _ = _get(port, f"/?{code}", f"attacker.example:{port}")
    require(status == 403, f"serve: another host name with a code answered {status}")
    status, headers, body = _get(port, f"/?{code}", host)
    require(status == 200 and b'content="0; url=/"' in body, f"serve: a code answered {status}, not a page going "
            "on to /")
    cookie = headers.get("set-cookie", "").split(";", 1)[0]
    require(cookie.startswith(f"asmcfg-{port}=") and code not in cookie, "serve: the code set no cookie")
    status, _, _ = _get(port, f"/?{code}", host)
    require(status == 403, f"serve: a code used twice answered {status}")
    status, headers, body = _get(port, "/", host, cookie)
    require(status == 200, f"serve: the index answered {status}")
    text = body.decode("utf-8")
    page.check_page(text, _asset("index.html"), _asset("table.js") + _asset("index.js"))
    found = _ROWS.search(text)
    require(found is not None, "serve: the index holds no row data")
    if found is not None:
        json.loads(found.group(1), parse_constant=_not_json)
    require(headers.get("content-security-policy", "").startswith("default-src 'none'"),
            "serve: the index was sent without its Content-Security-Policy")
    for address in addresses[:PAGES]:
        status, _, body = _get(port, address, host, cookie)
        require(status in (200, 404), f"serve: {address} answered {status}")
        if status == 200:
            page.check_report(body.decode("utf-8"))
        else:
            require(b"<script" not in body, f"serve: {address}'s problem page holds a script")
    for crafted in crafted_paths:
        status, _, body = _get(port, crafted, host, cookie)
        require(status == 404 and body == b"not found\n", f"serve: {crafted!r} answered {status}")
    status, _, body = _get(port, "/api/facts?since=-5", host, cookie)
    require(status == 404, f"serve: /api/facts with no analysis answered {status}")


def _get(port: int, target: str, host: str, cookie: str = "") -> tuple[int, dict[str, str], bytes]:
    """GET `target` as sent (not normalised), with the Host header `host`."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.putrequest("GET", target, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", host)
        if cookie:
            connection.putheader("Cookie", cookie)
        connection.endheaders()
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        connection.close()


def _asset(name: str) -> str:
    return resources.files("asmcfg.serve").joinpath("assets", name).read_text(encoding="utf-8")


def _not_json(name: str) -> None:
    require(False, f"serve: the index's row data holds {name}")

