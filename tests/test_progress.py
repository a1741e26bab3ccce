"""The progress bar: drawn on a terminal for a large input, never on a pipe or with -q."""

from __future__ import annotations

import gzip
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from asmcfg.run.progress import PROGRESS_BYTES
from tests.conftest import DATA

SAMPLE = DATA / "hsdis" / "jdk17-BigMethod-print-hsdis-att.txt.gz"
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A real log repeated past the size that gets a bar, and how many compilations it holds."""
    text = gzip.decompress(SAMPLE.read_bytes())
    copies = PROGRESS_BYTES // len(text) + 1
    path = tmp_path_factory.mktemp("progress") / "large.txt"
    path.write_bytes(text * copies)
    return path, text.count(b"Compiled method (") * copies


def on_terminal(*args: str) -> str:
    """Run asmcfg with stderr on a pseudo-terminal; what it drew there, escapes removed."""
    main, side = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "asmcfg", *args], stdout=subprocess.DEVNULL, stderr=side, stdin=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "160"},
    )
    os.close(side)
    drawn = b""
    while True:
        try:
            chunk = os.read(main, 1 << 16)
        except OSError:  # the terminal is gone once the process has exited
            break
        if not chunk:
            break
        drawn += chunk
    os.close(main)
    assert process.wait(timeout=120) == 0
    return _ESCAPES.sub("", drawn.decode("utf-8", "replace"))


def test_a_large_input_gets_a_bar_with_bytes_methods_and_rate(large: tuple[Path, int], tmp_path: Path) -> None:
    path, compilations = large
    drawn = on_terminal(str(path), "--jsonl", str(tmp_path / "out.jsonl"))
    frames = [f for f in re.split(r"[\r\n]", drawn) if f.startswith("reading")]
    assert frames
    size = f"{path.stat().st_size / 1e6:.1f}"
    assert all(f"/{size} MB" in f for f in frames)
    counts = [int(m.group(1).replace(",", "")) for f in frames if (m := re.search(r"([\d,]+) methods", f))]
    assert counts == sorted(counts) and 0 < counts[-1] <= compilations
    assert re.search(r"[\d.]+ [kM]?B/s", frames[-1])  # the rate, once there are two samples
    assert f"{compilations} of {compilations} compilations written" in drawn


def test_the_single_method_run_draws_the_bar_too(large: tuple[Path, int]) -> None:
    path, _ = large
    drawn = on_terminal(str(path), "--compile-id", "11", "--dot", os.devnull)
    assert re.search(r"reading .* MB .* methods", drawn)


def test_no_bar_with_quiet_or_when_stderr_is_not_a_terminal(large: tuple[Path, int], tmp_path: Path) -> None:
    path, _ = large
    assert "reading" not in on_terminal(str(path), "--jsonl", str(tmp_path / "q.jsonl"), "-q")
    piped = subprocess.run(
        [sys.executable, "-m", "asmcfg", str(path), "--jsonl", str(tmp_path / "p.jsonl")],
        capture_output=True, text=True, check=True,
    )
    assert "reading" not in piped.stderr and "MB" not in piped.stderr
