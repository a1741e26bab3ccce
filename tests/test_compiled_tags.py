"""The optional compiled build's LogCompilation markup reader (`asmcfg/dialects/logcompilation/_tags.c`) reads every
markup line of the copied logs as the Python reader does: the same tags, names, closing and empty flags, and
attributes with their entities replaced, in the same order; its loop over a compiler log's tags gives the trap
records and inlining decisions the Python loop gives. Where it is not built, it is compiled here with the system's
C compiler."""

from __future__ import annotations

import gzip
import itertools
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from corpus import DATA
from native import built

from asmcfg.dialects.logcompilation import inline, logxml
from asmcfg.dialects.logcompilation.logxml import Tag, unescape

LOGS = sorted((DATA / "logc").glob("*.xml.gz"))
ReadTags = Callable[[str, type, Callable[[str], str]], "list[Tag] | None"]


@pytest.fixture(scope="session")
def module(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The installed C module, or one built from its source for these tests."""
    if logxml.TAGS is not None and inline.COLLECT is not None:
        return SimpleNamespace(tags=logxml.TAGS, collect=inline.COLLECT)
    out = tmp_path_factory.mktemp("native")
    return built("asmcfg.dialects.logcompilation._tags", Path(logxml.__file__).with_name("_tags.c"), out)


@pytest.fixture
def native(module: Any) -> ReadTags:
    reader: ReadTags = module.tags
    return reader


def markup(path: Path) -> list[str]:
    """The distinct lines of a log that hold markup."""
    text = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
    return list(dict.fromkeys(line for line in text.split("\n") if "<" in line))


def fields(found: list[Tag] | None) -> list[tuple[Any, ...]] | None:
    """Each tag's fields, attributes in their order."""
    return None if found is None else [(t.name, t.closing, t.empty, list(t.attrs.items())) for t in found]


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_every_markup_line_of_a_log_reads_the_same_in_c(path: Path, native: ReadTags) -> None:
    lines = markup(path)
    assert len(lines) > 20  # the smallest, one compilation's printing cut out of a log, has 30
    read = 0
    for line in lines:
        found = native(line, Tag, unescape)
        if found is None:  # left to Python: a character outside ASCII
            assert not line.isascii()
            continue
        read += 1
        assert fields(found) == fields(logxml._tags(line)), line
    assert read > 0.99 * len(lines)


def test_cut_and_joined_lines_read_the_same_in_c(native: ReadTags) -> None:
    # every cut of real lines: tags without their `>`, attributes without their closing quote, names cut short
    lines = markup(DATA / "logc" / "jdk17-Eq-inlined-trap.xml.gz")
    with_entities = [line for line in lines if "&" in line][:20]
    with_quotes = [line for line in lines if '"' in line or "  " in line][:20]
    sample = lines[:: max(len(lines) // 40, 1)] + with_entities + with_quotes
    assert with_entities
    for line in sample:
        for cut in range(len(line) + 1):
            for text in (line[:cut], line[cut:], line[:cut] + line):
                assert fields(native(text, Tag, unescape)) == fields(logxml._tags(text)), text


def test_blanks_and_quotes_around_values_read_the_same_in_c(native: ReadTags) -> None:
    # a real tag whose attributes are spaced out or quoted the other way, as another writer of the format might
    line = next(line for line in markup(DATA / "logc" / "jdk17-Eq-inlined-trap.xml.gz") if "<nmethod " in line)
    for variant in (line.replace("='", " = '"), line.replace("='", "=\t\x1c'"), line.replace("'", '"'),
                    line.replace("' ", "'\n"), line.replace(" ", "")):
        assert fields(native(variant, Tag, unescape)) == fields(logxml._tags(variant)), variant


def test_the_reader_uses_the_c_reader_first(native: ReadTags, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logxml, "TAGS", native)
    line = "<writer thread='1234'/>"
    assert fields(logxml.tags(line)) == [("writer", False, True, [("thread", "1234")])]
    wide = "<method id='1' name='caf\u00e9'/>"  # not ASCII: read by Python
    assert native(wide, Tag, unescape) is None
    assert fields(logxml.tags(wide)) == [("method", False, True, [("id", "1"), ("name", "caf\u00e9")])]


def collected(data: bytes, pieces: int) -> tuple[Any, ...]:
    """The trap records and inlining decisions of `data` read in `pieces` runs of whole lines, and the line numbers
    `collect` gives back."""
    traps, inlines = logxml.TrapCollector(), inline.InlineCollector()
    bounds = [0]
    for k in range(1, pieces):
        bounds.append(data.index(b"\n", max(len(data) * k // pieces, bounds[-1])) + 1)
    bounds.append(len(data))
    number, numbers = 0, []
    for start, stop in itertools.pairwise(bounds):
        number = inline.collect((traps, inlines), data, number, start, stop)
        numbers.append(number)
    return traps.traps, inlines.inlines, inlines.tasks, numbers


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
@pytest.mark.parametrize("pieces", [1, 7])
def test_a_logs_records_collect_the_same_in_c(
    path: Path, pieces: int, module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = gzip.decompress(path.read_bytes())
    monkeypatch.setattr(inline, "COLLECT", None)
    want = collected(data, pieces)
    monkeypatch.setattr(inline, "COLLECT", module.collect)
    got = collected(data, pieces)
    assert got == want
    assert want[3][-1] == data.count(b"\n")
    if b"<task " in data:
        assert any(want[0].values()) or any(want[1].values())
