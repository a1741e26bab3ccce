"""The server of `asmcfg serve`: the standard library's threading HTTP server on 127.0.0.1, its routes, the cookie
every request must carry (set in exchange for a one-time code, `signin`), and the bounds on its connections
(`conns`) and on the pages it renders at once."""

from __future__ import annotations

import json
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from urllib.parse import parse_qs, urlsplit

from asmcfg.errors import AsmcfgError
from asmcfg.serve import links, pages
from asmcfg.serve.conns import BACKLOG, IDLE, Connections
from asmcfg.serve.signin import HOST, SignIn
from asmcfg.terminal import visible

if TYPE_CHECKING:
    from collections.abc import Callable

    from asmcfg.model.timeline import Window
    from asmcfg.serve.board import Board
    from asmcfg.serve.timeline import Timeline
    from asmcfg.serve.whatif import WhatIfs

CACHED_PAGES = 24
"""Compilation pages kept rendered (least recently used first out)."""
CACHED_BYTES = 96 << 20
"""…and at most this many bytes of them."""
WHATIF = "/whatif"
"""The address of a compilation's what-if: this, then the compilation page's own address."""
K = TypeVar("K")
"""What names a page kept: its row and time range."""
TIMELINE = "/timeline"
"""The address of the run over time."""
RENDERS = 2
"""Pages rendered at once, at most (each of its own row): one slow page never holds the others up, and memory stays
that of two."""


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
    whatif: WhatIfs | None = None
    """A record folder's what-ifs (`/whatif/<page>`), None for any other input."""
    timeline: Timeline | None = None
    """The run over time (`/timeline`) and its time ranges, None for an input without JIT events."""
    home_in: Callable[[Window], pages.Page] | None = None
    """The index of a time range (`/?from=MS&to=MS`); `render_in`, row `n`'s page of one: of samples only."""
    render_in: Callable[[int, Window], pages.Page] | None = None


class Pages(Generic[K]):
    """Compilation pages rendered on demand, at most RENDERS at once, the last ones kept; a page asked for while it
    is being rendered is rendered once."""

    def __init__(self, render: Callable[[K], pages.Page]) -> None:
        self._render = render
        self._kept: OrderedDict[K, pages.Page] = OrderedDict()
        self._rendering: dict[K, _Rendering] = {}
        self._lock = threading.Lock()
        """Held to look at or change `_kept` and `_rendering`, never while a page renders."""
        self._slots = threading.BoundedSemaphore(RENDERS)

    def get(self, n: K) -> pages.Page:
        """Row `n`'s page, from the cache or rendered now (or by the request already rendering it)."""
        with self._lock:
            page = self._kept.get(n)
            if page is not None:
                self._kept.move_to_end(n)
                return page
            running = self._rendering.get(n)
            mine = running is None
            if running is None:
                running = self._rendering[n] = _Rendering(threading.Event())
        if not mine:
            running.done.wait()
            if running.page is None:
                raise running.error or AsmcfgError("the page could not be made")
            return running.page
        try:
            with self._slots:
                running.page = self._render(n)
            self._keep(n, running.page)
            return running.page
        except AsmcfgError as error:
            running.error = error
            raise
        finally:
            with self._lock:
                del self._rendering[n]
            running.done.set()

    def _keep(self, n: K, page: pages.Page) -> None:
        with self._lock:
            self._kept[n] = page
            while len(self._kept) > CACHED_PAGES or (
                    len(self._kept) > 1 and sum(len(p.body) for p in self._kept.values()) > CACHED_BYTES):
                self._kept.popitem(last=False)


@dataclass(slots=True)
class _Rendering:
    """A page being rendered, for the requests that wait for it."""

    done: threading.Event
    page: pages.Page | None = None
    error: AsmcfgError | None = None


class Server(ThreadingHTTPServer):
    """The HTTP server with what its handlers need."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = BACKLOG

    def __init__(self, port: int, site: Site) -> None:
        super().__init__((HOST, port), Handler)
        self.site = site
        self.pages: Pages[tuple[int, Window]] = Pages(self._render)
        self.signin = SignIn(self.server_address[1])
        self.connections = Connections()

    def _render(self, key: tuple[int, Window]) -> pages.Page:
        n, window = key
        if window == (None, None) or self.site.render_in is None:
            return self.site.render(n)
        return self.site.render_in(n, window)

    @property
    def url(self) -> str:
        """An address to open once: a new one-time code's (see `signin`)."""
        return self.signin.url()

    def process_request(self, request: Any, client_address: Any) -> None:
        """A new connection: served in a thread of its own, within the bound on connections (`conns`)."""
        if not self.connections.opened(request):
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        self.connections.closed(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that failed: nothing for a client gone (it closed the connection, or sent nothing in time),
        else one line on stderr, never a traceback."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        sys.stderr.write(visible(f"asmcfg serve: a request failed: {type(error).__name__}: {error}") + "\n")


class Handler(BaseHTTPRequestHandler):
    """One request: refused without the cookie (or for another host name), else routed."""

    server: Server
    protocol_version = "HTTP/1.1"
    timeout = IDLE
    """Seconds a connection may wait for its request (and a response for its reader) before it is closed."""

    def do_GET(self) -> None:
        if not self.server.connections.busy(self.connection):
            self.close_connection = True  # closed to make room for a newer one
            return
        try:
            self._get()
        finally:
            self.server.connections.idle(self.connection)

    def _get(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        if not self._host_ok():
            return self._send(HTTPStatus.FORBIDDEN, b"forbidden: not a local address\n", "text/plain")
        code = query.get("code", [""])[0]
        if self._cookie_ok():
            return self._route(parts.path, query) if not code else self._leave_code(parts.path)
        if code and self.server.signin.use(code):
            return self._enter(parts.path)
        self._send(HTTPStatus.FORBIDDEN, b"forbidden: open the URL or the file asmcfg serve printed\n", "text/plain")

    def _route(self, path: str, query: dict[str, list[str]]) -> None:
        site = self.server.site
        if (window := self._window(path, query)) is None:
            return
        if path == "/":
            return self._page(site.home if window == (None, None) or site.home_in is None else site.home_in(window))
        if path == "/api/facts" and site.board is not None:
            start = int(since) if _count(since := query.get("since", ["0"])[0]) else 0
            try:  # a range whose samples cannot be read: the sentence why, as a page says it
                timeline = site.timeline if window != (None, None) else None
                answer = site.board.since_in(start, timeline.shares(window)) if timeline else site.board.since(start)
            except AsmcfgError as error:
                return self._page(pages.problem_page(path, str(error)), HTTPStatus.NOT_FOUND)
            body = json.dumps(answer, separators=(",", ":"))
            return self._send(HTTPStatus.OK, body.encode("utf-8"), "application/json")
        if path == TIMELINE and site.timeline is not None:
            return self._page(site.timeline.page())
        n = links.row_of(path, site.links)
        if n is not None:
            return self._compilation(n, path, window)
        if site.whatif is not None and path.startswith(WHATIF):
            n = links.row_of(path[len(WHATIF):], site.links)
            if n is not None:
                line, sweep = query.get("options", [""])[0], query.get("sweep", [""])[0] == "1"
                return self._page(site.whatif.page(n, line, sweep))
        self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")

    def _window(self, path: str, query: dict[str, list[str]]) -> Window | None:
        """The time range `?from=MS&to=MS` asks for; None, and a page saying why sent, when it is none."""
        from asmcfg.serve.timeline import RangeError, asked
        try:
            return asked(self.server.site.timeline, query)
        except RangeError as error:
            self._page(pages.problem_page(path, str(error)), HTTPStatus.BAD_REQUEST)
            return None

    def _compilation(self, n: int, path: str, window: Window = (None, None)) -> None:
        try:
            page = self.server.pages.get((n, window))
        except AsmcfgError as error:
            return self._page(pages.problem_page(path, str(error)), HTTPStatus.NOT_FOUND)
        whatif = self.server.site.whatif
        self._page(whatif.form(page, path) if whatif is not None and whatif.offers(n) else page)

    def _enter(self, path: str) -> None:
        """A code exchanged: set the cookie, and go on to the same page without the code (out of the address bar).
        A page that goes on by itself, not a redirect: a browser sends a `SameSite=Strict` cookie on the next
        request only when this server's own page asks for it, not when the sign-in file did."""
        signin = self.server.signin
        self.send_response(HTTPStatus.OK)
        self.send_header("Set-Cookie", f"{signin.cookie}={signin.cookie_value()}; Path=/; HttpOnly; SameSite=Strict")
        self._body(pages.go_on_page(self._within(path)), "text/html; charset=utf-8", pages.NO_SCRIPT)

    def _leave_code(self, path: str) -> None:
        """A code in the address of a browser signed in already (Back to a used code): the page without it."""
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", self._within(path))
        self._body(b"", "text/plain", pages.NO_SCRIPT)

    def _within(self, path: str) -> str:
        """`path` when it is one of this server's pages, else `/`: never an address on another host."""
        return path if path == "/" or path in self.server.site.links else "/"

    def _host_ok(self) -> bool:
        """The Host header names this server by its address or `localhost` (a rebound DNS name is refused)."""
        port = self.server.server_address[1]
        return self.headers.get("Host", "") in (f"{HOST}:{port}", f"localhost:{port}")

    def _cookie_ok(self) -> bool:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie", ""))
        except Exception:  # a malformed header is no cookie
            return False
        found = jar.get(self.server.signin.cookie)
        return found is not None and self.server.signin.signed_in(found.value)

    def _page(self, page: pages.Page, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(status, page.body, "text/html; charset=utf-8", page.policy)

    def _send(self, status: HTTPStatus, body: bytes, kind: str, policy: str = pages.NO_SCRIPT) -> None:
        self.send_response(status)
        self._body(body, kind, policy)

    def _body(self, body: bytes, kind: str, policy: str) -> None:
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", policy)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged: stdout holds the URLs alone, stderr stays quiet."""


def _count(text: str) -> bool:
    """True for a count as the pages write one: ASCII digits, at most 18 (a request's text is not trusted)."""
    return text.isascii() and text.isdigit() and len(text) <= 18
