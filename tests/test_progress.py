"""The progress bar: drawn on a terminal for a large input, never on a pipe or with -q."""

from __future__ import annotations

import gzip
import io
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from asmcfg.run.progress import PROGRESS_BYTES, Progress
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


@pytest.mark.slow
def test_a_large_input_gets_a_bar_with_bytes_methods_and_rate(large: tuple[Path, int], tmp_path: Path) -> None:
    path, compilations = large
    drawn = on_terminal(str(path), "--jsonl", str(tmp_path / "out.jsonl"))
    frames = [f for f in re.split(r"[\r\n]", drawn) if f.startswith("reading")]
    assert frames
    size = f"{path.stat().st_size / 1e6:.1f}"
    assert all(f"/{size} MB" in f for f in frames)
    counts = [int(m.group(1).replace(",", "")) for f in frames if (m := re.search(r"([\d,]+) methods", f))]
    assert counts == sorted(counts) and 0 < counts[-1] <= compilations
    # the rate column: `?` until there are two samples, then bytes per second (its value: test_the_rate_is_...)
    assert all(re.search(r" (\?|[\d.]+ [kM]?B/s) ", f) for f in frames)
    assert f"{compilations} of {compilations} compilations written" in drawn


def test_the_single_method_run_draws_the_bar_too(large: tuple[Path, int]) -> None:
    path, _ = large
    drawn = on_terminal(str(path), "--compile-id", "11", "--dot", os.devnull)
    assert re.search(r"reading .* MB .* methods", drawn)


@pytest.mark.slow
def test_no_bar_with_quiet_or_when_stderr_is_not_a_terminal(large: tuple[Path, int], tmp_path: Path) -> None:
    path, _ = large
    assert "reading" not in on_terminal(str(path), "--jsonl", str(tmp_path / "q.jsonl"), "-q")
    piped = subprocess.run(
        [sys.executable, "-m", "asmcfg", str(path), "--jsonl", str(tmp_path / "p.jsonl")],
        capture_output=True, text=True, check=True,
    )
    assert "reading" not in piped.stderr and "MB" not in piped.stderr


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal and keeps what was drawn on it."""

    def isatty(self) -> bool:
        return True


def test_the_rate_is_bytes_read_since_the_first_sample_over_the_time_between(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a clock the test sets: the rate is computed from these times, never from how fast this machine is
    path = tmp_path / "large.txt"
    with path.open("wb") as sparse:
        sparse.truncate(PROGRESS_BYTES)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "160")
    now = [0.0]
    reads = [(1.0, 1_000_000, 0), (1.5, 1_500_000, 0), (1.55, 500_000, 0), (1.7, 0, 4)]
    """(clock, bytes read, methods found): the read at 1.55 s comes within a redraw interval of the last one."""
    with Progress(str(path), quiet=False, clock=lambda: now[0]) as progress:
        assert progress.shown
        for at, count, methods in reads:
            now[0] = at
            if count:
                progress.read(count)
            if methods:
                progress.found(methods)
    drawn = _ESCAPES.sub("", terminal.getvalue())
    frames = re.findall(r"reading \S* +([\d.]+)/([\d.]+) MB +(\?|[\d.]+ MB/s) +(\d+) methods", drawn)
    shown = list(dict.fromkeys(frames))  # each distinct frame once, in order (the last is drawn again on close)
    total = f"{PROGRESS_BYTES / 1e6:.1f}"
    first_rate = 1_500_000 / (1.5 - 1.0)  # bytes after the first sample / seconds since it
    second_rate = (1_500_000 + 500_000) / (1.7 - 1.0)  # the undrawn read at 1.55 s counts at the next redraw
    assert shown[-3:] == [
        ("1.0", total, "?", "0"),
        ("2.5", total, f"{first_rate / 1e6:.1f} MB/s", "0"),
        ("3.0", total, f"{second_rate / 1e6:.1f} MB/s", "4"),
    ]
    assert [f[0] for f in shown[:-3]] in ([], ["0.0"])  # at most the empty bar before the first read
