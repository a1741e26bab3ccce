"""A pass over a mapped file reads each chunk once for several looks, and each look finds what one look over the
whole file finds: the lines holding a string (across chunk boundaries, and on a line longer than a chunk), how
often a string occurs, the newlines, the JDK a `# VM version` line names (however many `#`s a chunk holds)."""

from __future__ import annotations

import lzma
import mmap
import re
from pathlib import Path

import pytest

from asmcfg.dialects import passes
from asmcfg.dialects.logcompilation.one import needle
from asmcfg.dialects.perfasm.saved import sampled, sampled_in
from tests.conftest import DATA

LOG = DATA / "record" / "jdk17-Recompile" / "jvmpid5529.xml.xz"
"""A JDK 17 LogCompilation log of 1.6 MB."""
CONSOLE = DATA / "perfasm" / "public" / "gpanther__benchmark-arraycopy" / "perfasm2.txt"
"""JMH console output with `# VM version: JDK 9-ea, VM 9-ea+111` lines."""


def naive(text: bytes, wanted: bytes) -> list[tuple[int, int]]:
    """(start, number) of each line of `text` holding `wanted`, line by line."""
    found, start = [], 0
    for number, line in enumerate(text.split(b"\n"), 1):
        if wanted in line:
            found.append((start, number))
        start += len(line) + 1
    return found


def mapped(path: Path) -> mmap.mmap:
    with open(path, "rb") as file:
        return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)


@pytest.mark.parametrize("pages", [1, 3])
def test_every_look_finds_in_chunks_what_a_look_at_the_whole_file_finds(
    pages: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(passes, "COUNT_BYTES", pages * mmap.PAGESIZE)
    text = lzma.decompress(LOG.read_bytes())
    long = b"<!-- " + needle(7) + b" " + b"x" * (3 * pages * mmap.PAGESIZE) + needle(7) + b" -->\n"
    text = text + long + text  # a line of three chunks that names compile id 7 at both ends
    path = tmp_path / "run.log"
    path.write_bytes(text)
    view = mapped(path)
    for compile_id in (1, 7, 175, 9999):
        wanted = needle(compile_id)
        assert passes.lines_with(view, wanted) == naive(text, wanted)
    counts, found = passes.counted(view, None, [passes.occurrences(b"<nmethod "), passes.holding(needle(7))])
    assert sum(lines for lines, _ in counts) == text.count(b"\n")
    assert sum(chunk[0] for chunk in found) == text.count(b"<nmethod ")
    assert passes.numbered(counts, [chunk[1] for chunk in found]) == naive(text, needle(7))
    assert naive(text, needle(7))  # the log names it


@pytest.mark.parametrize("hashes", [0, 1, passes._HASHES - 1, passes._HASHES, passes._HASHES + 1, 5 * passes._HASHES])
def test_a_vm_version_line_is_found_however_many_hashes_come_before_it(hashes: int, tmp_path: Path) -> None:
    text = CONSOLE.read_bytes()
    at = text.index(b"# VM version: JDK ")
    data = text[:at] + b"#" * hashes + b"\n" + text[at:]
    hidden = data.replace(b"# VM version: JDK ", b"# VM version:  JDK ")
    for variant, jdk in ((data, 9), (hidden, None)):
        path = tmp_path / "console.txt"
        path.write_bytes(variant)
        assert passes.newlines(mapped(path), 0, len(variant)) == (variant.count(b"\n"), jdk)


SAVELOG = DATA / "perfasm" / "jdk25-DevBench" / "perfasm-savelog-switchRun-compile568.log"
"""A JMH saveLog of one compilation: PrintAssembly lines, the sampled ones after their percentage column."""


def _blanked(text: bytes) -> bytes:
    """`text` with every percentage column blanked (a saveLog with no sampled line)."""
    return re.sub(rb"\d+\.\d\d%", lambda m: b" " * len(m.group()), text)


@pytest.mark.parametrize(("variant", "expected"), [
    ("saveLog", True),
    ("blanked", False),
    ("a sampled line three chunks long, its column in its last chunk, after U+2003", True),
    ("a line of columns three chunks long, no address after them", False),
    ("a sampled line that starts a chunk", True),
])
def test_the_heat_look_finds_a_sampled_line_wherever_it_starts_and_ends(
    variant: str, expected: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(passes, "COUNT_BYTES", mmap.PAGESIZE)
    saved = SAVELOG.read_bytes()
    sampled_line = "   2.48%\u2003   0x00007f41e3eefa13:   notl\t\t%r11d".encode()
    text = {
        "saveLog": saved,
        "blanked": _blanked(saved),
        "a sampled line three chunks long, its column in its last chunk, after U+2003":
            _blanked(saved) + b" " * (3 * mmap.PAGESIZE) + sampled_line + b"\n" + _blanked(saved),
        "a line of columns three chunks long, no address after them":
            _blanked(saved) + b"0.50% " * mmap.PAGESIZE + b"x\n" + _blanked(saved),
        "a sampled line that starts a chunk":
            b"x" * (mmap.PAGESIZE - 1) + b"\n" + sampled_line + b"\n" + _blanked(saved),
    }[variant]
    path = tmp_path / "saved.log"
    path.write_bytes(text)
    lines = text.decode("utf-8", "replace").split("\n")
    assert any(map(sampled, lines)) is expected  # what a read of every line finds
    assert any(chunk[0] for chunk in passes.survey(mapped(path), [sampled_in])) is expected


@pytest.mark.parametrize(("count", "limit"), [(400, 4 << 20), (3, 4 << 20), (400, 1000), (5, 37), (400, 0)])
def test_the_first_lines_are_those_a_split_of_the_head_gives(count: int, limit: int, tmp_path: Path) -> None:
    text = lzma.decompress(LOG.read_bytes())
    for name, data in (("run.log", text), ("short.log", text[:2000]), ("cut.log", text[:2000].rstrip(b"\n"))):
        path = tmp_path / name
        path.write_bytes(data)
        view = mapped(path)
        lines = passes.first_lines(view, count, limit)
        assert lines == data[:limit].split(b"\n", count)[:count]
        assert lines[0].startswith(b"<?xml") or limit < 6
