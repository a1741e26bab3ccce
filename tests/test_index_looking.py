"""The index of a large text file looks for its newlines (and, for a choice, for a sampled line) in its own pass, in
each window while the window's pages are in memory: the records are the index's, the counts kept are those a pass
of their own counts (the JDK a `# VM version` line names included), the heat answer is the heat look's, on one
core and on two; a first open then makes no second pass over the file, and reads what the whole read reads."""

from __future__ import annotations

import gzip
import mmap
from pathlib import Path

import pytest

from asmcfg.dialects import index, passes
from asmcfg.dialects.perfasm.saved import sampled_in
from asmcfg.run import plain as plainfile
from asmcfg.sources import cache
from tests.conftest import DATA
from tests.corpus import run_cli

SWITCHES = DATA / "hsdis" / "jdk17-Switches-print-hsdis-att.txt.gz"
"""JDK 17 hsdis AT&T text of a whole run."""
CONSOLE = DATA / "perfasm" / "public" / "gpanther__benchmark-arraycopy" / "perfasm2.txt"
"""JMH console output with `# VM version: JDK 9-ea, VM 9-ea+111` lines."""
SAVELOG = DATA / "perfasm" / "jdk25-DevBench" / "perfasm-savelog-switchRun-compile568.log"
"""A JMH saveLog of one compilation, its sampled lines after their percentage columns."""


def mixed(tmp_path: Path, heat: bool) -> Path:
    """hsdis text, then when `heat` JMH console output (its `# VM version` lines) and a saveLog (both with sampled
    lines)."""
    path = tmp_path / "run.txt"
    text = gzip.decompress(SWITCHES.read_bytes()) + (CONSOLE.read_bytes() + SAVELOG.read_bytes() if heat else b"")
    path.write_bytes(text)
    return path


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache of its own; windows of a page, chunks of four, and two cores from 64 KB."""
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(index, "BUFFER", mmap.PAGESIZE)
    monkeypatch.setattr(passes, "COUNT_BYTES", 4 * mmap.PAGESIZE)


@pytest.mark.usefixtures("small")
@pytest.mark.parametrize("cores", [1, 2])
@pytest.mark.parametrize("heat", [False, True])
def test_the_index_pass_finds_what_passes_of_their_own_find(
    cores: int, heat: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index, "SPLIT_BYTES", 1 << 16 if cores == 2 else 1 << 62)
    path = mixed(tmp_path, heat)
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        records, looked = index.index_looking(view, None, None, [passes.newlines, sampled_in])
        assert records == list(index.index_file(str(path)))
        assert len(records) > 5
        assert passes.keep_windows(view, str(path), looked)
        own = passes.survey(view, (passes.newlines, sampled_in))
    kept = cache.load("lines", str(path))["counts"]
    assert [tuple(chunk) for chunk in kept] == [chunk[0] for chunk in own]
    assert sum(lines for lines, _ in kept) == path.read_bytes().count(b"\n")
    assert any(jdk == 9 for _, jdk in kept) is heat  # the console's `# VM version: JDK 9-ea`
    assert any(found[1] for _, _, found in looked) is any(chunk[1] for chunk in own) is heat


@pytest.mark.usefixtures("small")
def test_windows_across_chunks_keep_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index, "BUFFER", 3 * mmap.PAGESIZE)  # a window of three pages across chunks of four
    path = mixed(tmp_path, False)
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        _, looked = index.index_looking(view, None, None, [passes.newlines])
        assert not passes.keep_windows(view, str(path), looked)
        assert not passes.keep_windows(view, str(path), looked[1:])  # nor windows that leave a gap
    assert cache.load("lines", str(path)) is None


@pytest.mark.usefixtures("small")
@pytest.mark.parametrize("heat", [False, True])
def test_a_first_open_makes_no_pass_of_its_own_and_reads_what_the_whole_read_reads(
    heat: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plainfile, "OPEN_BYTES", 0)
    path = mixed(tmp_path, heat)
    looked: list[tuple[int, int]] = []
    real = passes._chunk

    def chunk(view: mmap.mmap, start: int, stop: int, *rest: object) -> object:
        looked.append((start, stop))
        return real(view, start, stop, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(passes, "_chunk", chunk)
    args = (str(path), "--json", "-", "-q")
    first = run_cli(*args)
    assert first[0] == 0
    # only the part of the chosen compilation's own chunk before it (none when heat hands the choice to a whole read)
    assert len(looked) == (0 if heat else 1)
    assert cache.load("survey", str(path)) == {"sampled": heat, "printed": None}
    monkeypatch.setattr(plainfile, "OPEN_BYTES", 1 << 62)
    assert run_cli(*args) == first
