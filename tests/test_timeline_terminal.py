"""`--timeline` on a terminal: its rows of columns fit the terminal's width (an 80-column terminal gets each row on
one line), and a wide terminal or a pipe gets the full 100 columns."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from corpus import DATA, run_cli

PHASES = (str(DATA / "timeline" / "jdk17-Phases"), "--timeline", "--method", "Phases::hot")
BARS = set("▁▂▃▄▅▆▇█─")


def _on_terminal(columns: int, *args: str) -> tuple[int, str]:
    """`asmcfg ARGS` with stderr on a pseudo-terminal `columns` wide (COLUMNS, as a shell sets it): exit code and
    what the terminal got."""
    master, slave = os.openpty()
    process = subprocess.Popen([sys.executable, "-m", "asmcfg", *args], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=slave, env={**os.environ, "COLUMNS": str(columns)})
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return process.wait(), b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.mark.slow
def test_timeline_rows_fit_an_80_column_terminal() -> None:
    code, err = _on_terminal(80, *PHASES)
    assert code == 0, err
    drawn = [line for line in err.splitlines() if BARS & set(line)]
    assert len(drawn) >= 15, "the categories' rows and the story's bars"
    assert all(len(line) <= 80 for line in drawn), [line for line in drawn if len(line) > 80]
    assert "; one column: 120 ms\n" in err.splitlines()[0] + "\n"
    assert err.splitlines()[1].rstrip().endswith("4,657 ms") and len(err.splitlines()[1]) <= 80


@pytest.mark.slow
def test_timeline_keeps_its_full_width_on_a_wide_terminal_and_in_a_pipe() -> None:
    code, _, piped = run_cli(*PHASES)
    assert code == 0, piped
    assert "; one column: 48 ms" in piped.splitlines()[0]
    code, err = _on_terminal(200, *PHASES)
    assert code == 0 and err == piped
