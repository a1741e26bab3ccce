"""How a browser signs in to `asmcfg serve` without the server's secret leaving it: one-time codes, each exchanged
once for the cookie that holds the secret. A code reaches the browser in the sign-in file, a page in a folder only
the user can read (the browser's command line names the file, never a code), or in the URL printed on stdout; a
code already used signs nobody in, so one left in a browser's history or a terminal is worth nothing."""

from __future__ import annotations

import html
import os
import secrets
import shutil
import tempfile
import threading

HOST = "127.0.0.1"
"""The only address served: nothing off this machine can connect."""
FILE = "open.html"
"""The sign-in file's name, in its private folder."""


class SignIn:
    """The server's secret (the cookie's value, never printed), the codes that stand for it and the sign-in file."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = f"asmcfg-{port}"
        """The cookie holding the secret (one per port: browsers share cookies between a host's ports)."""
        self._secret = secrets.token_urlsafe(32).encode("ascii")
        self._codes: list[bytes] = []
        self._file_code = b""
        self._folder: str | None = None
        self._lock = threading.Lock()

    def url(self) -> str:
        """A new one-time code's address (`http://127.0.0.1:PORT/?code=…`): the page it opens signs one browser in."""
        with self._lock:
            return self._url(self._new_code())

    def use(self, given: str) -> bool:
        """True when `given` is a code not yet used, which it no longer is (a new sign-in file then holds another)."""
        offered = given.encode("utf-8", "replace")
        with self._lock:
            found = [code for code in self._codes if secrets.compare_digest(code, offered)]
            if not found:
                return False
            self._codes.remove(found[0])
            if found[0] == self._file_code and self._folder is not None:
                self._write_file()
            return True

    def cookie_value(self) -> str:
        """What the cookie is set to."""
        return self._secret.decode("ascii")

    def signed_in(self, value: str) -> bool:
        """True when a cookie's value is the secret (any text compared in constant time, never an error)."""
        return secrets.compare_digest(value.encode("utf-8", "replace"), self._secret)

    def write_file(self) -> str:
        """Write the sign-in file, in a new folder only this user can read, and return its `file://` URL."""
        with self._lock:
            if self._folder is None:
                self._folder = tempfile.mkdtemp(prefix="asmcfg-serve-")  # mode 0700, a name no one could guess
                self._write_file()
            return "file://" + os.path.join(self._folder, FILE)

    def remove_file(self) -> None:
        """Remove the sign-in file and its folder."""
        with self._lock:
            if self._folder is not None:
                shutil.rmtree(self._folder, ignore_errors=True)
                self._folder = None

    def _new_code(self) -> bytes:
        code = secrets.token_urlsafe(24).encode("ascii")
        self._codes.append(code)
        return code

    def _url(self, code: bytes) -> str:
        return f"http://{HOST}:{self.port}/?code={code.decode('ascii')}"

    def _write_file(self) -> None:
        """The file with a fresh code, replacing the one whose code was used (its own code is then dropped)."""
        assert self._folder is not None
        if self._file_code in self._codes:
            self._codes.remove(self._file_code)
        self._file_code = self._new_code()
        url = html.escape(self._url(self._file_code))
        text = SIGN_IN.format(url=url)
        final = os.path.join(self._folder, FILE)
        fresh = final + ".new"
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(fresh, final)


SIGN_IN = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="0; url={url}">
<meta name="referrer" content="no-referrer">
<title>asmcfg serve</title>
</head>
<body>
<p><a href="{url}">Open asmcfg serve</a>. This page signs one browser in; asmcfg serve then writes a fresh one
here, so it can be opened again in another browser.</p>
</body>
</html>
"""
"""The sign-in file: it sends the browser to a code's address at once (a link when refreshing is off)."""
