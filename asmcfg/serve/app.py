"""The server of `asmcfg serve`: the standard library's threading HTTP server on 127.0.0.1, its routes, and the
token every request must carry (in the query once, then in a cookie, as Jupyter does)."""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from asmcfg.errors import AsmcfgError
from asmcfg.serve import links, pages

if TYPE_CHECKING:
    from collections.abc import Callable

    from asmcfg.serve.board import Board

HOST = "127.0.0.1"
"""The only address served: nothing off this machine can connect."""
CACHED_PAGES = 24
"""Compilation pages kept rendered (least recently used first out)."""
CACHED_BYTES = 96 << 20
"""…and at most this many bytes of them."""


@dataclass(frozen=True, slots=True)
class Site:
    """What the routes serve: the index page, the analysis board and how a row's page is made."""

    links: dict[str, int]
    """Each row's address (`/c/475`, see `links`) and its row number."""
    home: pages.Page
    """The index page, made once."""
    board: Board | None
    """The analysis columns and toplists, filled in the background (`/api/facts`); None when the index has none."""
    render: Callable[[int], pages.Page]
    """Row number → its page (slow: read, analysed and drawn): a compilation's report, or a pair's diff."""


class Pages:
    """Compilation pages rendered on demand, one at a time (memory stays that of one), the last ones kept."""

    def __init__(self, render: Callable[[int], pages.Page]) -> None:
        self._render = render
        self._kept: OrderedDict[int, pages.Page] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, n: int) -> pages.Page:
        """Row `n`'s page, from the cache or rendered now."""
        with self._lock:
            page = self._kept.get(n)
            if page is None:
                page = self._render(n)
                self._kept[n] = page
                while len(self._kept) > CACHED_PAGES or (
                        len(self._kept) > 1 and sum(len(p.body) for p in self._kept.values()) > CACHED_BYTES):
                    self._kept.popitem(last=False)
            self._kept.move_to_end(n)
            return page


class Server(ThreadingHTTPServer):
    """The HTTP server with what its handlers need."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, port: int, site: Site) -> None:
        super().__init__((HOST, port), Handler)
        self.site = site
        self.pages = Pages(site.render)
        self.token = secrets.token_urlsafe(24)
        """The secret every request carries."""
        self.cookie = f"asmcfg-{self.server_address[1]}"
        """The cookie holding it (one per port: browsers share cookies between a host's ports)."""

    @property
    def url(self) -> str:
        """The address to open, token included."""
        return f"http://{HOST}:{self.server_address[1]}/?token={self.token}"


class Handler(BaseHTTPRequestHandler):
    """One request: refused without the token (or for another host name), else routed."""

    server: Server
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        if not self._host_ok():
            return self._send(HTTPStatus.FORBIDDEN, b"forbidden: not a local address\n", "text/plain")
        given = query.get("token", [""])[0]
        if given and secrets.compare_digest(given, self.server.token):
            return self._enter(parts.path)
        if not self._cookie_ok():
            return self._send(HTTPStatus.FORBIDDEN, b"forbidden: open the URL asmcfg serve printed\n", "text/plain")
        self._route(parts.path, query)

    def _route(self, path: str, query: dict[str, list[str]]) -> None:
        site = self.server.site
        if path == "/":
            return self._page(site.home)
        if path == "/api/facts" and site.board is not None:
            since = query.get("since", ["0"])[0]
            body = json.dumps(site.board.since(int(since) if _count(since) else 0), separators=(",", ":"))
            return self._send(HTTPStatus.OK, body.encode("utf-8"), "application/json")
        n = links.row_of(path, site.links)
        if n is not None:
            return self._compilation(n, path)
        self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")

    def _compilation(self, n: int, path: str) -> None:
        try:
            page = self.server.pages.get(n)
        except AsmcfgError as error:
            return self._page(pages.problem_page(path, str(error)), HTTPStatus.NOT_FOUND)
        self._page(page)

    def _enter(self, path: str) -> None:
        """The token in the query: set the cookie and go to the same page without it (out of the address bar)."""
        cookie = f"{self.server.cookie}={self.server.token}; Path=/; HttpOnly; SameSite=Strict"
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", path if path.startswith("/") else "/")
        self.send_header("Set-Cookie", cookie)
        self.send_header("Content-Length", "0")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()

    def _host_ok(self) -> bool:
        """The Host header names this server by its address or `localhost` (a rebound DNS name is refused)."""
        port = self.server.server_address[1]
        return self.headers.get("Host", "") in (f"{HOST}:{port}", f"localhost:{port}")

    def _cookie_ok(self) -> bool:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie", ""))
        except Exception:  # a malformed header is no token
            return False
        found = jar.get(self.server.cookie)
        return found is not None and secrets.compare_digest(found.value, self.server.token)

    def _page(self, page: pages.Page, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(status, page.body, "text/html; charset=utf-8", page.policy)

    def _send(self, status: HTTPStatus, body: bytes, kind: str, policy: str = pages.NO_SCRIPT) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", policy)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged: stdout holds the URL alone, stderr stays quiet."""


def _count(text: str) -> bool:
    """True for a count as the pages write one: ASCII digits, at most 18 (a request's text is not trusted)."""
    return text.isascii() and text.isdigit() and len(text) <= 18
