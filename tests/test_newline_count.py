"""The C searches of `asmcfg/dialects/_lines.c` (built by `pip install .` where a C compiler is at hand) find what
their Python fallbacks find: the newline count what `bytes.count(b"\\n")` counts, in any byte range of bytes, a
bytearray or a mapped file; `percent_blank` what the heat look's pattern finds. The passes over a mapped file find
the same with them as without: line numbers, the lines holding a string, the number of a string's occurrences,
the JDK a `# VM version` line names, whether a line is sampled. Where the module is not built, it is compiled here
with the system's C compiler."""

from __future__ import annotations

import gzip
import lzma
import mmap
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from corpus import DATA
from native import built

from asmcfg.dialects import passes
from asmcfg.dialects.logcompilation.one import needle
from asmcfg.dialects.perfasm import saved
from asmcfg.dialects.perfasm.saved import sampled_in

Count = Callable[[Any, int, int], int]
LOG = DATA / "record" / "jdk17-Recompile" / "jvmpid5529.xml.xz"
"""A JDK 17 LogCompilation log of 1.6 MB."""
DUMP = DATA / "nohsdis" / "jdk17-Copies-nohsdis.txt"
"""A JDK 17 `[MachCode]` dump."""
SAVELOG = DATA / "perfasm" / "jdk25-DevBench" / "perfasm-savelog-switchRun-compile568.log"
"""A JMH saveLog of one compilation, its sampled lines after their percentage columns."""
CONSOLE = DATA / "perfasm" / "public" / "gpanther__benchmark-arraycopy" / "perfasm2.txt"
"""JMH console output with `# VM version: JDK 9-ea, VM 9-ea+111` lines."""


@pytest.fixture(scope="session")
def module(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The installed C module, or one built from its source for these tests."""
    if passes._COUNT is not None and saved._PERCENT_BLANK is not None:
        from asmcfg.dialects import _lines  # built: passes found it

        return SimpleNamespace(newlines=passes._COUNT, percent_blank=saved._PERCENT_BLANK,
                               block_newlines=_lines.block_newlines, find_all=_lines.find_all)
    return built("asmcfg.dialects._lines", Path(passes.__file__).with_name("_lines.c"), tmp_path_factory.mktemp("c"))


@pytest.fixture
def count(module: Any) -> Count:
    found: Count = module.newlines
    return found


def texts() -> Iterator[bytes]:
    yield lzma.decompress(LOG.read_bytes())
    yield DUMP.read_bytes()
    yield SAVELOG.read_bytes()
    yield gzip.decompress(gzip.compress(bytes(range(256)) * 40))  # every byte value, 10 KB


@pytest.mark.parametrize("text", list(texts()), ids=["log", "machcode", "savelog", "bytes"])
def test_c_counts_the_newlines_bytes_count_counts_in_any_range(text: bytes, count: Count, tmp_path: Path) -> None:
    path = tmp_path / "text"
    path.write_bytes(text)
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        assert count(view, 0, len(view)) == text.count(b"\n")
        chosen = random.Random(24)
        size = len(text)
        edges = [(0, 0), (0, 1), (size - 1, size), (size, size), (-5, size + 9), (-size - 9, -3), (9, 3)]
        picks = [(chosen.randrange(-size - 9, size + 9), chosen.randrange(-size - 9, size + 9)) for _ in range(300)]
        for start, stop in edges + picks:
            expected = text[start:stop].count(b"\n")
            assert count(view, start, stop) == expected, (start, stop)
            assert count(text, start, stop) == expected
            assert count(bytearray(text), start, stop) == expected


def test_c_refuses_what_has_no_bytes(module: Any) -> None:
    with pytest.raises(TypeError):
        module.newlines("text\n", 0, 5)
    with pytest.raises(TypeError):
        module.percent_blank("50% \n", 0, 5)


def heat_at(text: bytes, pos: int, endpos: int) -> int:
    found = saved._HEAT.search(text, pos, endpos)
    return -1 if found is None else found.start()


def test_c_finds_a_percent_before_exactly_the_bytes_the_heat_pattern_takes(module: Any) -> None:
    for byte in range(256):
        text = b"%rax %" + bytes([byte]) + b"x"
        assert module.percent_blank(text, 0, len(text)) == heat_at(text, 0, len(text)), byte
        assert module.percent_blank(text, 0, 6) == -1  # the byte after the `%` lies past the end
    saved_log = SAVELOG.read_bytes() + DUMP.read_bytes()
    chosen = random.Random(28)
    size = len(saved_log)
    picks = [(chosen.randrange(-size - 9, size + 9), chosen.randrange(-size - 9, size + 9)) for _ in range(300)]
    for pos, endpos in [(0, size), (-9, size), (size - 2, size), *picks]:
        clamped = slice(pos, endpos).indices(size)
        assert module.percent_blank(saved_log, pos, endpos) == heat_at(saved_log, clamped[0], clamped[1]), (pos, endpos)


def looked(view: mmap.mmap, text: bytes) -> tuple[Any, ...]:
    """What the passes find in a mapped `text`: the number of every 1,999th line start, the lines naming compile ids,
    `<nmethod ` occurrences with the counts, the chunks' JDKs and whether a line is sampled."""
    starts = [i + 1 for i, byte in enumerate(text) if byte == 0x0A][::1999]
    numbers = [passes.before(view, start) for start in starts]
    named = [passes.lines_with(view, needle(compile_id)) for compile_id in (1, 7, 175)]
    counts, found = passes.counted(view, None, [passes.occurrences(b"<nmethod "), sampled_in])
    return numbers, named, counts, found


@pytest.mark.parametrize("pages", [1, 3])
def test_the_passes_find_the_same_with_the_c_searches_and_without(
    pages: int, module: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(passes, "COUNT_BYTES", pages * mmap.PAGESIZE)
    text = lzma.decompress(LOG.read_bytes())[: 400 * mmap.PAGESIZE] + CONSOLE.read_bytes() + SAVELOG.read_bytes()
    path = tmp_path / "mixed.log"
    path.write_bytes(text)
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        monkeypatch.setattr(passes, "_COUNT", module.newlines)
        monkeypatch.setattr(saved, "_PERCENT_BLANK", module.percent_blank)
        with_c = looked(view, text)
        monkeypatch.setattr(passes, "_COUNT", None)
        monkeypatch.setattr(saved, "_PERCENT_BLANK", None)
        without = looked(view, text)
    assert with_c == without
    numbers, named, counts, found = with_c
    assert [number for number, _ in numbers] == [text[:s].count(b"\n") + 1 for s in
                                                 [i + 1 for i, b in enumerate(text) if b == 0x0A][::1999]]
    assert numbers[-1][1] == 9  # the console's `# VM version: JDK 9-ea` line, before the last start
    assert sum(lines for lines, _ in counts) == text.count(b"\n")
    assert sum(chunk[0] for chunk in found) == text.count(b"<nmethod ")
    assert any(chunk[1] for chunk in found)  # the saveLog's sampled lines
    assert all(named)


@pytest.mark.parametrize("text", list(texts()), ids=["log", "machcode", "savelog", "bytes"])
def test_page_counts_and_header_search_are_those_of_python(module: Any, text: bytes) -> None:
    from asmcfg.dialects.numbering import block_newlines

    chance = random.Random(len(text))
    with mmap.mmap(-1, len(text)) as view:
        view.write(text)
        for _ in range(40):
            start = chance.randrange(len(text))
            stop = chance.randrange(start, len(text) + 1)
            block = chance.choice((1, 7, 4096, 65536))
            expected = [text[at : min(at + block, stop)].count(b"\n") for at in range(start, stop, block)]
            assert module.block_newlines(view, start, stop, block) == expected
            assert module.block_newlines(bytearray(text), start, stop, block) == expected
            for needle_text in (b"Compiled method", b"<nmethod", b"\n", b"0x"):
                found, at = [], text.find(needle_text, start, stop + 64)
                while 0 <= at < stop:
                    found.append(at)
                    at = text.find(needle_text, at + len(needle_text), stop + 64)
                assert module.find_all(view, needle_text, start, stop, stop + 64) == found
        limit = min(len(text), 3 * mmap.PAGESIZE)
        assert block_newlines(view, 0, limit) == [text[at : min(at + mmap.PAGESIZE, limit)].count(b"\n")
                                                  for at in range(0, limit, mmap.PAGESIZE)]
