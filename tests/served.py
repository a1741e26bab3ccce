"""`asmcfg serve` started as a user starts it, for the tests that drive it."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path


class Served:
    """`asmcfg serve FILE [NEW] --no-open --port P` running, and the URL it printed."""

    def __init__(self, path: Path, *args: str) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "asmcfg", "serve", str(path), "--no-open", "--port", str(port), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        assert self.url.startswith(f"http://127.0.0.1:{port}/?token="), self.url
        self.base = self.url.split("?", 1)[0]

    def stop(self, signum: int) -> tuple[int, str, str]:
        """Send `signum`; the exit status, stdout after the URL and stderr."""
        self.process.send_signal(signum)
        out, err = self.process.communicate(timeout=30)
        return self.process.returncode, out, err
