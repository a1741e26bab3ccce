"""`asmcfg serve` started as a user starts it, for the tests that drive it."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

_CODE_URL = re.compile(r'url=(http://127\.0\.0\.1:[0-9]+/\?code=[A-Za-z0-9_-]+)"')


class Served:
    """`asmcfg serve FILE [NEW] --no-open --port P` running, the URL it printed to open once and its sign-in file
    (`prefix`: a command it runs under, as `prlimit`)."""

    def __init__(self, path: Path, *args: str, prefix: tuple[str, ...] = ()) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [*prefix, sys.executable, "-m", "asmcfg", "serve", str(path), "--no-open", "--port", str(port), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        assert self.process.stdout is not None
        self.printed = self.process.stdout.readline().strip()
        """The URL printed first: a one-time code's."""
        self.file = self.process.stdout.readline().strip()
        """The sign-in file's `file://` URL."""
        assert self.printed.startswith(f"http://127.0.0.1:{port}/?code="), self.printed
        assert self.file.startswith("file:///") and self.file.endswith("/open.html"), self.file
        self.base = self.printed.split("?", 1)[0]

    @property
    def url(self) -> str:
        """A URL that signs one browser in: the one-time code the sign-in file holds now (a new one each time the
        last is used)."""
        found = _CODE_URL.search(Path(self.file.removeprefix("file://")).read_text(encoding="utf-8"))
        assert found is not None
        return found[1]

    def opener(self) -> urllib.request.OpenerDirector:
        """A browser-like client signed in: a code exchanged for the cookie, which its jar keeps."""
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(self.url, timeout=60) as answer:
            assert answer.status == 200 and 'content="0; url=/"' in answer.read().decode("utf-8")
        return opener

    def stop(self, signum: int) -> tuple[int, str, str]:
        """Send `signum`; the exit status, stdout after the URLs and stderr."""
        self.process.send_signal(signum)
        out, err = self.process.communicate(timeout=120)  # a loaded machine: as the run-safety tests wait
        return self.process.returncode, out, err
