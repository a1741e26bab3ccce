"""Text from a log reaches a terminal with its control characters made visible, never acted on.

A real dump whose method name carries OSC 0 (window title), OSC 52 (clipboard write), SGR 8 (hidden text), an
8-bit CSI and a bidi override, run through the real CLI on a real pseudo-terminal: every line asmcfg shows a
person (`--list`, the summary, `wrote FILE`, errors, `asmcfg diff` and its `--fail-on` lines) shows the
escapes as text (`\\x1b]0;`) and no raw ESC, BEL, C1 or bidi character reaches the terminal.
"""

from __future__ import annotations

import fcntl
import gzip
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from asmcfg.errors import InputError
from asmcfg.terminal import visible
from tests.conftest import DATA
from tests.corpus import run_cli

ROOT = Path(__file__).resolve().parent.parent
SHAPES = DATA / "hsdis" / "jdk17-Shapes-print-hsdis-att.txt.gz"
PERFASM = DATA / "perfasm" / "jdk17-DevBench" / "perfasm-console.txt"
PAYLOAD = "\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[8m\x9b31m\u202e[bold]:warning:"
"""Window title, clipboard, hidden text, an 8-bit CSI, a right-to-left override, and rich markup and emoji."""
SHOWN = "\\x1b]0;pwned\\x07\\x1b]52;c;cHduZWQ=\\x07\\x1b[8m\\x9b31m\\u202e[bold]:warning:"
"""The payload as a terminal must show it."""
NAME = "Shapes::total" + PAYLOAD
_STYLES = re.compile(r"\x1b\[[0-9;]*m")
"""The colour and weight sequences rich itself writes (SGR)."""
_COLUMNS = 1000
"""The pseudo-terminal's width: wide enough that no line wraps inside an escape."""


@pytest.fixture(scope="module")
def crafted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real Shapes dump with the payload after every `Shapes::total` (headers and debug info alike)."""
    text = gzip.decompress(SHAPES.read_bytes()).decode("utf-8")
    assert text.count("Shapes::total") > 20
    path = tmp_path_factory.mktemp("escapes") / "shapes.txt"
    path.write_text(text.replace("Shapes::total", NAME), encoding="utf-8")
    return path


def on_terminal(*argv: str, cwd: Path | None = None) -> tuple[int, str]:
    """Run `argv` with stdin, stdout and stderr on one pseudo-terminal; its exit status and everything written
    there, which must be valid UTF-8 (a raw 8-bit control byte alone is not)."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 50, _COLUMNS, 0, 0))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": str(_COLUMNS)}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(argv, stdin=side, stdout=side, stderr=side, env=env, cwd=cwd, close_fds=True)
    os.close(side)
    drawn = b""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 1.0)
        if not ready:
            if process.poll() is not None:
                break
            continue
        try:
            chunk = os.read(main, 1 << 16)
        except OSError:  # the terminal is gone once the process has exited
            break
        if not chunk:
            break
        drawn += chunk
    os.close(main)
    return process.wait(timeout=60), drawn.decode("utf-8")


def asmcfg(*args: str, cwd: Path | None = None) -> tuple[int, str]:
    """`python -m asmcfg ARGS` on a pseudo-terminal."""
    return on_terminal(sys.executable, "-m", "asmcfg", *args, cwd=cwd)


def assert_nothing_raw(shown: str) -> None:
    """No control character from the input reached the terminal: no OSC, BEL, SGR 8, C1 or bidi control, and
    no ESC at all but rich's own colour and weight sequences."""
    for raw in ("\x1b]", "\x07", "\x1b[8m", "\x9b", "\u202e"):
        assert raw not in shown, f"{raw!r} reached the terminal"
    rest = _STYLES.sub("", shown)
    stray = sorted({c for c in rest if (ord(c) < 32 and c not in "\r\n") or 0x7F <= ord(c) <= 0x9F})
    assert stray == []


def lines_with(shown: str, text: str) -> list[str]:
    """The lines of the terminal's text (styles removed) that hold `text`."""
    return [line for line in _STYLES.sub("", shown).splitlines() if text in line]


def test_list_rows_show_the_escapes(crafted: Path) -> None:
    code, shown = asmcfg(str(crafted), "--list")
    assert code == 0
    assert_nothing_raw(shown)
    rows = lines_with(shown, "Shapes::total" + SHOWN)
    assert len(rows) == 9  # every compilation of total and totalPerim, each on one row
    assert any(row.split()[:2] == ["c2", "25"] for row in rows)


def test_the_index_listing_of_a_large_log_shows_the_escapes(crafted: Path) -> None:
    # the launcher's fast path (no click, no rich) lists a large log from its header index
    probe = ("import sys\nfrom asmcfg.run import wholelog\nwholelog.INDEX_BYTES = 0\nfrom asmcfg.launch import main\n"
             f"sys.argv = ['asmcfg', {str(crafted)!r}, '--list']\nmain()\n")
    code, shown = on_terminal(sys.executable, "-c", probe)
    assert code == 0
    assert_nothing_raw(shown)
    rows = lines_with(shown, "Shapes::total" + SHOWN)
    assert len(rows) == 9 and all(row.endswith(SHOWN) or row.endswith(SHOWN + "Perim") for row in rows)


def test_the_summary_shows_the_escapes(crafted: Path) -> None:
    code, shown = asmcfg(str(crafted), "--method", "Shapes::total*", "--dot", os.devnull)
    assert code == 0
    assert_nothing_raw(shown)
    (chose,) = lines_with(shown, "chose the last C2")
    assert f"of 2 methods: Shapes::total{SHOWN}, Shapes::total{SHOWN}Perim;" in chose
    (title,) = lines_with(shown, " tier 4 Shapes::total")
    assert title.startswith(f"c2 id 31 tier 4 Shapes::total{SHOWN}Perim (27 bytes)  ")
    assert lines_with(shown, f"Shapes::total{SHOWN}Perim line ")  # the hot path's source column


def test_the_profile_summary_shows_the_escapes_of_the_file_and_the_methods(tmp_path: Path) -> None:
    perfasm = tmp_path / f"perfasm{PAYLOAD}.txt"
    text = PERFASM.read_text(encoding="utf-8")
    assert text.count("bench.DevBench::dense") > 5
    perfasm.write_text(text.replace("bench.DevBench::dense", "bench.DevBench::dense" + PAYLOAD), encoding="utf-8")
    code, shown = asmcfg(str(perfasm), "--compile-id", "513", "--dot", os.devnull)
    assert code == 0
    assert_nothing_raw(shown)
    assert lines_with(shown, f"profile {tmp_path}/perfasm{SHOWN}.txt: cpu-clock; this compilation holds ")
    assert lines_with(shown, f"bench.DevBench::dense{SHOWN} line 24")  # the hottest blocks' source column


def test_wrote_lines_show_the_escapes_of_the_file_and_the_method(crafted: Path, tmp_path: Path) -> None:
    svg, html = tmp_path / f"graph{PAYLOAD}.svg", tmp_path / f"page{PAYLOAD}.html"
    code, shown = asmcfg(str(crafted), "--compile-id", "25", "--svg", str(svg), "--html", str(html),
                         "--renderer", "graphviz-pure")
    assert code == 0 and svg.stat().st_size > 0 and html.stat().st_size > 0
    assert_nothing_raw(shown)
    assert lines_with(shown, f"wrote {tmp_path}/graph{SHOWN}.svg: c2 id 25 tier 4 Shapes::total{SHOWN} (42 bytes), ")
    assert lines_with(shown, f"wrote {tmp_path}/page{SHOWN}.html: c2 id 25 tier 4 Shapes::total{SHOWN} (42 bytes)")


def test_an_error_line_shows_the_escapes_of_the_file_name(tmp_path: Path) -> None:
    missing = tmp_path / f"run{PAYLOAD}.log"
    code, shown = asmcfg(str(missing))
    assert code == 1
    assert_nothing_raw(shown)
    assert lines_with(shown, f"asmcfg: {tmp_path}/run{SHOWN}.log: ")


def test_diff_fail_on_with_q_shows_the_escapes(crafted: Path) -> None:
    code, shown = asmcfg("diff", str(crafted), "--compile-id", "17", "--compile-id", "25", "-q",
                         "--fail-on", "not-inlined")
    assert code == 5
    assert_nothing_raw(shown)
    assert [line.strip() for line in lines_with(shown, "--fail-on")] == [
        f"asmcfg diff: --fail-on not-inlined: interface call area at Shapes::total{SHOWN}@27 (B8)"
    ]


def test_diff_tables_show_the_escapes(crafted: Path) -> None:
    code, shown = asmcfg("diff", str(crafted), "--compile-id", "17", "--compile-id", "25")
    assert code == 0
    assert_nothing_raw(shown)
    assert lines_with(shown, f"old: c2 id 17 tier 4 Shapes::total{SHOWN} (42 bytes)")
    assert lines_with(shown, f"new: c2 id 25 tier 4 Shapes::total{SHOWN} (42 bytes)")
    assert lines_with(shown, f"interface call area at Shapes::total{SHOWN}@27")  # the table of changes


@pytest.mark.parametrize("char", [*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)),
                                  "\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)),
                                  *map(chr, range(0x2066, 0x206A))])
def test_every_control_is_spelled_as_an_escape(char: str) -> None:
    code = ord(char)
    spelled = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    assert visible(f"a{char}b") == f"a{spelled}b"


def test_ordinary_text_is_the_same_object_and_escaping_is_idempotent() -> None:
    for text in ("Tensor4D::sum4", "C:\\logs\\run.log", "entry → innermost loop ⟲", "Größe::日本", "[b]x[/b] :smile:"):
        assert visible(text) is text
    once = visible(NAME)
    assert visible(once) == once and once == "Shapes::total" + SHOWN


def test_an_error_quoting_the_input_is_made_visible() -> None:
    error = InputError(f"line not understood: {PAYLOAD}", f"run{PAYLOAD}.log", 7)
    assert str(error) == f"run{SHOWN}.log:7: line not understood: {SHOWN}"


@pytest.mark.parametrize("char", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\ufe0f", "\U000e0041",
                                  "\U000e007f", "\u3164"])
def test_characters_that_draw_as_nothing_are_spelled_too(char: str) -> None:
    # two names that differ only by a zero-width or tag character must not look alike, here or on a page
    from asmcfg.render.quoting import visible as on_page

    code = ord(char)
    spelled = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    assert visible(f"Shapes::to{char}tal") == f"Shapes::to{spelled}tal"
    assert on_page(f"Shapes::to{char}tal") == f"Shapes::to\\x{code:02x}tal"


def test_list_rows_show_a_zero_width_space(tmp_path: Path) -> None:
    text = gzip.decompress(SHAPES.read_bytes()).decode("utf-8")
    path = tmp_path / "shapes.txt"
    path.write_text(text.replace("Shapes::total", "Shapes::to\u200btal"), encoding="utf-8")
    code, out, _ = run_cli(str(path), "--list")
    assert code == 0 and "Shapes::to\\u200btal" in out and "\u200b" not in out
