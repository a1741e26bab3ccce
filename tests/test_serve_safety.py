"""What another user of the machine, or a crafted log, can do to `asmcfg serve`: requests that break off or carry
odd bytes leave no traceback and get a clear 4xx; connections held open without a request never keep a real one
out; the secret never reaches a command line or a browser's history, and no address leads off the server; one
compilation whose graph Graphviz cannot draw in time lists its blocks at once."""

from __future__ import annotations

import gzip
import http.client
import lzma
import os
import random
import re
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA
from pages import CHROMIUM, NO_CHROMIUM, launch
from served import Served

from asmcfg.serve import app, pages

SHAPES = DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt"
"""Nine compilations of Shapes::total and Shapes::totalPerim (compile ids 13-29)."""
BIG = DATA / "hsdis" / "jdk17-BigMethod-print-hsdis-att.txt.gz"
"""BigMethod::big, its C1 compilation (compile id 5) 6,405 instructions long."""


def _get(served: Served, target: str, cookie: str = "") -> tuple[int, dict[str, str], bytes]:
    """GET `target` of `served` as sent (not normalised)."""
    return _raw(served.base.split("/")[2], target, cookie)


def _cookie(served: Served) -> str:
    """A code exchanged for the cookie, as `name=value`."""
    status, headers, _ = _get(served, "/" + served.url.split("/", 3)[3])
    assert status == 200
    return headers["set-cookie"].split(";", 1)[0]


@pytest.fixture
def shapes(tmp_path: Path) -> Iterator[Served]:
    copy = tmp_path / SHAPES.name
    shutil.copy(SHAPES, copy)
    served = Served(copy, "-q")
    yield served
    if served.process.poll() is None:
        served.process.kill()
        served.process.communicate()


def test_odd_bytes_and_clients_gone_mid_page_leave_no_traceback(shapes: Served) -> None:
    for target in ("/?token=%C3%A9", "/?code=%C3%A9", "/?code=%FF%FE%00", "/c/13?code=%7F%C3"):
        assert _get(shapes, target)[0] == 403, target
    port = shapes.base.rsplit(":", 1)[1].strip("/")
    assert _get(shapes, "/", cookie=f"asmcfg-{port}=\xe9\xff")[0] == 403, "a cookie of any bytes is no cookie"
    cookie = _cookie(shapes)
    assert _get(shapes, "/api/facts?since=%C3%A9", cookie)[0] == 200
    for target in ("/c/13", "/c/14", "/c/15", "/c/16", "/"):  # the client goes before the page is sent
        with socket.create_connection(("127.0.0.1", int(port))) as gone:
            gone.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n".encode())
            gone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a reset, as a tab closed
    status, _, body = _get(shapes, "/c/17", cookie)
    assert status == 200 and b"Shapes::totalPerim" in body, "the server goes on"
    code, out, err = shapes.stop(signal.SIGTERM)
    assert code == 143 and out == ""
    assert err.strip() == "asmcfg: stopped by SIGTERM", "not a line more: no traceback"


@pytest.mark.skipif(shutil.which("prlimit") is None, reason="prlimit (util-linux) is not installed")
def test_connections_held_open_keep_no_request_out(tmp_path: Path) -> None:
    """A server that may open 200 files, 600 connections opened to it and held (some with half a request), then a
    browser's request: it gets its page."""
    copy = tmp_path / SHAPES.name
    shutil.copy(SHAPES, copy)
    served = Served(copy, "-q", prefix=("prlimit", "--nofile=200"))
    held: list[socket.socket] = []
    try:
        opener = served.opener()
        port = int(served.base.rsplit(":", 1)[1].strip("/"))
        for n in range(600):  # each connected (the server's queue took it) before the next
            idle = socket.create_connection(("127.0.0.1", port), timeout=60)
            held.append(idle)
            if n % 3 == 0:
                idle.sendall(b"GET / HTTP/1.1\r\nHo")  # a slow client: the rest never comes
        with opener.open(served.base + "c/15", timeout=120) as answer:
            assert answer.status == 200 and b"Shapes::total" in answer.read()
    finally:
        for idle in held:
            idle.close()
        served.stop(signal.SIGTERM)


def test_pages_render_side_by_side_and_once_each() -> None:
    """A page whose drawing has not ended holds no other page up; asked for twice meanwhile, it is made once."""
    release = threading.Event()
    made: list[int] = []

    def render(n: int) -> pages.Page:
        made.append(n)
        if n == 0:
            release.wait()
        return pages.Page(f"page {n}".encode(), pages.NO_SCRIPT)

    kept = app.Pages(render)
    slow = [threading.Thread(target=kept.get, args=(0,)) for _ in range(2)]
    got: list[pages.Page] = []
    other = threading.Thread(target=lambda: got.append(kept.get(1)))
    try:
        for thread in slow:
            thread.start()
        other.start()
        other.join(120)  # a generous bound: it ends at once, or never when page 0 holds it up
        assert got and got[0].body == b"page 1", "while page 0 is still being drawn"
    finally:
        release.set()
    for thread in [*slow, other]:
        thread.join()
    assert kept.get(0).body == b"page 0" and made.count(0) == 1


def test_the_tries_of_one_drawing_share_one_timeout(tmp_path: Path) -> None:
    """A Graphviz that never ends, tried with and without loop clusters and as the other renderer: started once, and
    the drawing ends after the one timeout."""
    from asmcfg import open as open_log
    from asmcfg.render.drawing import draw
    from asmcfg.render.svg import Renderer, run_renderer

    started = tmp_path / "started"
    stuck = tmp_path / "dot"
    stuck.write_text(f"#!/bin/sh\necho run >> {started}\nexec sleep 600\n")
    stuck.chmod(0o755)
    result = next(open_log(str(DATA / "hsdis" / "jdk17-Shapes-print-hsdis-att.txt.gz")).stream())

    def render(dot: str) -> bytes:
        return run_renderer(str(stuck), dot, 2)

    drawing = draw(result, render, [Renderer("other", render)])
    assert drawing.svg is None and started.read_text().count("run") == 1
    assert "took longer than 2 s" in drawing.failures[0][0]
    assert all("not run: the 2 s given to Graphviz are spent" in why for why, _ in drawing.failures[1:])


def crafted_log(path: Path, seed: int = 43) -> Path:
    """BigMethod::big's C1 compilation as HotSpot printed it, three instructions in ten (calls aside) made into
    jumps to random places of it: 6,405 instructions, branches all over. Written as `.xz`, about 30 KB."""
    with gzip.open(BIG, "rt", encoding="utf-8") as real:
        lines = real.read().splitlines(keepends=True)
    first = next(n for n, line in enumerate(lines) if line.startswith("Compiled method (c1)") and " 5 " in line)
    start = max(n for n in range(first) if lines[n].startswith("====="))
    end = next(n for n in range(first, len(lines)) if lines[n].startswith("[/Disassembly]")) + 1
    instruction = re.compile(r"  0x([0-9a-f]+):   (\S+)")
    places = [found[1] for line in lines[start:end] if (found := instruction.match(line))]
    chance = random.Random(seed)
    out = []
    for line in lines[start:end]:
        found = instruction.match(line)
        if found and not found[2].startswith("call") and chance.random() < 0.3:
            jump = chance.choice(("je", "jne", "jl", "jg"))
            line = f"  0x{found[1]}:   {jump}\t\t0x{chance.choice(places).lstrip('0')}\n"
        out.append(line)
    with lzma.open(path, "wt", encoding="utf-8") as log:
        log.writelines(out)
    return path


def test_a_graph_too_tangled_to_draw_lists_its_blocks_at_once(tmp_path: Path) -> None:
    """The crafted compilation took Graphviz minutes and GBs a try; its page comes with its blocks listed."""
    log = crafted_log(tmp_path / "crafted.txt.xz")
    assert log.stat().st_size < 64_000
    served = Served(log, "-q")
    try:
        with served.opener().open(served.base + "c/5", timeout=120) as answer:
            page = answer.read().decode("utf-8")
        assert "too tangled for Graphviz to draw in time" in page
        assert "BigMethod::big" in page
    finally:
        served.stop(signal.SIGTERM)


@pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
def test_the_browser_is_given_a_file_only_you_read_and_the_code_works_once(tmp_path: Path) -> None:
    """`asmcfg serve` opening the browser: the browser's command line names the sign-in file, which only this user
    can read; opened, it signs the browser in and lands on the index with no code in the address; its code is then
    spent, the file holds a new one, and no address a code is exchanged at leads off the server."""
    copy = tmp_path / SHAPES.name
    shutil.copy(SHAPES, copy)
    told = tmp_path / "browser-argv"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {told}.part && mv {told}.part {told}\n')
    browser.chmod(0o755)
    process = subprocess.Popen([sys.executable, "-m", "asmcfg", "serve", str(copy), "-q"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "BROWSER": str(browser)})
    try:
        assert process.stdout is not None
        printed, signin = process.stdout.readline().strip(), process.stdout.readline().strip()
        while not told.exists():  # the browser is started once the URLs are printed
            assert process.poll() is None
            time.sleep(0.05)
        assert told.read_text().split() == [signin], "the browser is given the sign-in file, no code"
        file = Path(signin.removeprefix("file://"))
        assert stat.S_IMODE(file.stat().st_mode) == 0o600 and stat.S_IMODE(file.parent.stat().st_mode) == 0o700
        assert file.stat().st_uid == os.getuid()
        code = re.search(r"code=([A-Za-z0-9_-]+)", file.read_text()).group(1)  # type: ignore[union-attr]
        assert code not in printed, "each way in has a code of its own"
        _browse(signin, printed.split("?")[0])
        assert code not in file.read_text(), "a spent code is replaced"
        port = printed.split(":")[2].split("/")[0]
        host = f"127.0.0.1:{port}"
        status, _, _ = _raw(host, f"/?code={code}")
        assert status == 403, "a code works once"
        fresh = printed.split("code=")[1]
        status, headers, body = _raw(host, "/\\evil.example/x?code=" + fresh)
        assert status == 200 and b'content="0; url=/"' in body and "location" not in headers
        cookie = headers["set-cookie"].split(";", 1)[0]
        for target in ("//evil.example/x?code=1", "/\\evil.example?code=1", "/c/13?code=1"):
            status, headers, _ = _raw(host, target, cookie)
            assert status == 303 and headers["location"] in ("/", "/c/13"), target
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
    assert not file.parent.exists(), "the sign-in file goes with the server"


def _raw(host: str, target: str, cookie: str = "") -> tuple[int, dict[str, str], bytes]:
    """GET `target` as sent (not normalised) of the server at `host`."""
    connection = http.client.HTTPConnection(host, timeout=300)
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


def _browse(signin: str, base: str) -> None:
    """Open the sign-in file in Chromium at 1280x800: it lands on the index, the code out of the address."""
    for chromium in launch():
        page: Any = chromium.new_page(viewport={"width": 1280, "height": 800})
        page.goto(signin)
        page.wait_for_selector("body[data-ready]")
        assert page.url == base and "asmcfg" in page.title()
        shot = os.environ.get("ASMCFG_SHOT")
        if shot:
            page.screenshot(path=shot)
