"""The cache keeps what one run learnt of a large file for the next run of the same file: the newline counts the
line numbers of a compilation opened through the index start from, and whether the file holds perfasm heat columns
(looked for in the same pass). A file that changed is counted afresh; an entry that cannot be read is passed over;
an empty ASMCFG_CACHE_DIR turns the cache off."""

from __future__ import annotations

import gzip
import json
import lzma
import mmap
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from asmcfg.dialects import passes
from asmcfg.dialects.index import index_file
from asmcfg.run import opening, plain as plainfile
from asmcfg.sources import cache
from tests.conftest import DATA
from tests.corpus import run_cli
from tests.test_opening import Spy

DUMP = DATA / "nohsdis" / "jdk17-Copies-nohsdis.txt"


@pytest.fixture
def counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """A cache of its own, page-sized chunks, and the chunks counted (start, stop) as they are."""
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(passes, "COUNT_BYTES", mmap.PAGESIZE)
    seen: list[tuple[int, int]] = []
    real = passes._chunk

    def chunk(view: mmap.mmap, start: int, stop: int, *rest: Any) -> tuple[tuple[int, int | None], bool]:
        seen.append((start, stop))
        return real(view, start, stop, *rest)

    monkeypatch.setattr(passes, "_chunk", chunk)
    return seen


def line_at(path: Path, offset: int) -> int:
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        return passes.line_of(view, offset, str(path))


def test_the_counts_are_kept_and_the_next_run_counts_only_the_last_chunk(
    tmp_path: Path, counted: list[tuple[int, int]]
) -> None:
    path = tmp_path / DUMP.name
    shutil.copyfile(DUMP, path)
    text = path.read_bytes()
    offset = text.rindex(b"\nCompiled method") + 1
    assert line_at(path, offset) == text[:offset].count(b"\n") + 1
    whole = offset // mmap.PAGESIZE
    assert len(counted) == whole + 1  # every chunk before the offset, and the part of its own
    kept = cache.load("lines", str(path))
    assert kept["chunk"] == mmap.PAGESIZE and len(kept["counts"]) == whole
    counted.clear()
    assert line_at(path, offset) == text[:offset].count(b"\n") + 1
    assert counted == [(whole * mmap.PAGESIZE, offset)]  # the kept chunks were not read again


def test_a_file_that_changed_is_counted_afresh(tmp_path: Path, counted: list[tuple[int, int]]) -> None:
    path = tmp_path / DUMP.name
    shutil.copyfile(DUMP, path)
    offset = len(path.read_bytes()) // 2
    line_at(path, offset)
    path.write_bytes(b"# a line before\n" + DUMP.read_bytes())  # the same size would do: the time changed too
    counted.clear()
    text = path.read_bytes()
    assert line_at(path, offset) == text[:offset].count(b"\n") + 1
    assert len(counted) == offset // mmap.PAGESIZE + 1


@pytest.mark.parametrize("kept", ["not json", json.dumps({"chunk": 4096, "counts": [["1", None]]}),
                                  json.dumps({"chunk": 12345, "counts": [[1, None]]}), json.dumps([1, 2])])
def test_an_entry_that_cannot_be_read_is_passed_over(kept: str, tmp_path: Path, counted: list[tuple[int, int]]) -> None:
    path = tmp_path / DUMP.name
    shutil.copyfile(DUMP, path)
    entry = cache.entry("lines", str(path))
    assert entry is not None
    entry.parent.mkdir(parents=True)
    entry.write_text(kept)
    text = path.read_bytes()
    offset = len(text) - 100
    assert line_at(path, text.index(b"\n", offset) + 1) == text[: text.index(b"\n", offset) + 1].count(b"\n") + 1


def test_an_empty_cache_dir_turns_the_cache_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV, "")
    assert cache.folder() is None and cache.entry("lines", str(DUMP)) is None
    cache.store("lines", str(DUMP), {"chunk": 1})
    assert cache.load("lines", str(DUMP)) is None


def test_a_compilation_opened_twice_through_the_index_reads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(plainfile, "OPEN_BYTES", 0)
    monkeypatch.setattr(passes, "COUNT_BYTES", mmap.PAGESIZE)
    path = tmp_path / "switches.txt"  # hsdis text: its last compilation's piece starts after the first chunks
    path.write_bytes(gzip.decompress((DATA / "hsdis" / "jdk17-Switches-print-hsdis-att.txt.gz").read_bytes()))
    last = [r.compile_id for r in index_file(str(path)) if r.printed][-1]
    args = (str(path), "--compile-id", str(last), "--json", "-", "-q")
    runs = [run_cli(*args) for _ in range(2)]
    assert runs[0] == runs[1] and runs[0][0] == 0
    assert list((tmp_path / "cache" / "lines").iterdir())  # the first run kept its counts
    monkeypatch.setattr(plainfile, "OPEN_BYTES", 1 << 62)
    assert run_cli(*args) == runs[0]  # as the whole read gives it


@pytest.mark.parametrize("source", [DATA / "hsdis" / "jdk17-Switches-print-hsdis-att.txt.gz",
                                    DATA / "record" / "jdk17-Recompile" / "jvmpid5529.xml.xz"],
                         ids=["hsdis text .gz", "LogCompilation .xz"])
def test_a_compressed_input_is_decompressed_once_and_opened_from_the_copy(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    path = tmp_path / source.name
    shutil.copyfile(source, path)
    args = (str(path), "--compile-id", str(_printed(source)[-1]), "--json", "-")
    monkeypatch.setattr(plainfile, "COMPRESSED_BYTES", 1 << 62)
    whole = run_cli(*args, "-q")
    assert whole[0] == 0 and not (tmp_path / "cache").exists()  # a small one is read whole, as before
    monkeypatch.setattr(plainfile, "COMPRESSED_BYTES", 0)
    spy = Spy(monkeypatch)
    code, out, err = run_cli(*args)
    copies = list((tmp_path / "cache" / "plain").iterdir())
    assert code == 0 and len(copies) == 1 and spy.opened == 1
    assert f"decompressed {path} once into {copies[0]}: later runs open its compilations from there" in err
    assert out == whole[1]  # the method the whole read gives, named by the compressed file
    code, again, err = run_cli(*args)
    assert (code, again) == (0, out) and "decompressed" not in err and spy.opened == 2


def test_a_compressed_input_that_does_not_decompress_is_read_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(plainfile, "COMPRESSED_BYTES", 0)
    data = (DATA / "hsdis" / "jdk17-Switches-print-hsdis-att.txt.gz").read_bytes()
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(data[: len(data) // 2])
    code, _, err = run_cli(str(path), "--json", "-")
    assert code == 1 and err.startswith(f"asmcfg: {path}") and "input ends badly" in err
    assert not list((tmp_path / "cache" / "plain").iterdir())  # no copy, not even a partial one


def test_the_least_recently_used_copies_are_let_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "PLAIN_KEPT", 2)
    sources = []
    for n in range(3):
        path = tmp_path / f"copy{n}.txt.gz"
        path.write_bytes(gzip.compress(gzip.decompress((DATA / "hsdis" / "jdk17-Switches-print-hsdis-att.txt.gz")
                                                       .read_bytes()) + b"\n" * n))
        sources.append(path)
    first = cache.plain_copy(str(sources[0]))
    second = cache.plain_copy(str(sources[1]))
    assert first is not None and second is not None and first[1] and second[1]
    assert cache.plain_copy(str(sources[0])) == (first[0], False)  # used again: now the most recent
    third = cache.plain_copy(str(sources[2]))
    assert third is not None
    assert sorted(p.name for p in (tmp_path / "cache" / "plain").iterdir()) == sorted(
        Path(c[0]).name for c in (first, third))


def test_the_copies_are_let_go_past_their_bytes_the_new_one_kept(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    text = gzip.decompress((DATA / "hsdis" / "jdk17-Switches-print-hsdis-att.txt.gz").read_bytes())
    monkeypatch.setattr(cache, "PLAIN_BYTES", len(text) + 10)
    made = []
    for n in range(2):
        path = tmp_path / f"copy{n}.txt.gz"
        path.write_bytes(gzip.compress(text + b"\n" * n))
        made.append(cache.plain_copy(str(path)))
    assert made[1] is not None
    assert [p.name for p in (tmp_path / "cache" / "plain").iterdir()] == [Path(made[1][0]).name]


def test_a_file_rewritten_in_place_with_its_size_and_time_set_back_is_not_served_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(plainfile, "COMPRESSED_BYTES", 0)
    tensor = gzip.decompress((DATA / "hsdis" / "jdk17-Tensor4D-print-hsdis-att.txt.gz").read_bytes())
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(tensor, compresslevel=0, mtime=0))  # stored: its size is the text's
    ids = _printed(path)
    code, first, err = run_cli(str(path), "--compile-id", str(ids[-1]), "--json", "-", "-q")
    assert code == 0 and "Tensor4D" in first, err
    before = path.stat()
    packed = gzip.compress(tensor.replace(b"Tensor4D", b"Tensor5D"), compresslevel=0, mtime=0)
    assert len(packed) == before.st_size
    path.write_bytes(packed)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    code, second, err = run_cli(str(path), "--compile-id", str(ids[-1]), "--json", "-", "-q")
    assert code == 0, err
    assert "Tensor5D" in second and "Tensor4D" not in second


def test_an_entry_of_another_version_or_format_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    path = str(DUMP)
    cache.store("survey", path, {"sampled": False})
    assert cache.load("survey", path) == {"sampled": False}
    monkeypatch.setattr(cache, "FORMAT", cache.FORMAT + 1)
    assert cache.load("survey", path) is None
    monkeypatch.setattr(cache, "FORMAT", cache.FORMAT - 1)
    import asmcfg

    monkeypatch.setattr(asmcfg, "__version__", asmcfg.__version__ + ".dev1")
    assert cache.load("survey", path) is None


def test_each_kind_keeps_its_most_recent_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "KEPT", 3)
    for n in range(5):
        path = tmp_path / f"f{n}.txt"
        path.write_text(f"{n}\n")
        cache.store("survey", str(path), {"n": n})
    kept = {cache.load("survey", str(tmp_path / f"f{n}.txt")) is not None for n in range(5)}
    assert len(list((tmp_path / "cache" / "survey").iterdir())) == 3 and kept == {True, False}


def _printed(source: Path) -> list[int]:
    plain = source.read_bytes()
    plain = gzip.decompress(plain) if source.suffix == ".gz" else lzma.decompress(plain)
    return [int(m) for m in re.findall(rb"(?m)^Compiled method \(c[12]\)\s+\d+\s+(\d+)", plain)]


@pytest.mark.parametrize(("name", "sampled", "logged"), [
    ("hsdis/jdk17-Switches-print-hsdis-att.txt.gz", False, False),
    pytest.param("perfasm/jdk25-DevBench/perfasm-savelog-switchRun.log.xz", True, True,  # JMH's saveLog of a log
                 marks=pytest.mark.slow),
    ("logc/jdk17-Tensor4D.xml.gz", False, True),
])
def test_the_default_choice_looks_for_heat_once_per_file_in_the_pass_that_counts_its_lines(
    name: str, sampled: bool, logged: bool, tmp_path: Path, counted: list[tuple[int, int]],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plainfile, "OPEN_BYTES", 0)
    packed = (DATA / name).read_bytes()
    path = tmp_path / "run.log"
    text = gzip.decompress(packed) if name.endswith(".gz") else lzma.decompress(packed)
    path.write_bytes(text)
    monkeypatch.setattr(opening, "_TAILS", (len(text) // 3,))  # a log's last C2 compilation is in its last third
    args = (str(path), "--json", "-", "-q")
    first = run_cli(*args)
    assert first[0] == 0
    chunks = -(-len(text) // mmap.PAGESIZE)
    whole = [(n * mmap.PAGESIZE, min((n + 1) * mmap.PAGESIZE, len(text))) for n in range(chunks)]
    assert [c for c in counted if c in whole] == whole  # one pass over the whole file
    # and the part of the chosen compilation's own chunk before it, unless heat hands the choice to a whole read
    assert len(counted) == chunks + (not sampled and not logged)
    printed = text.count(b"Compiled method (") if logged else None  # a text file's index counts its compilations
    assert cache.load("survey", str(path)) == {"sampled": sampled, "printed": printed}
    assert len(cache.load("lines", str(path))["counts"]) == chunks
    counted.clear()
    assert run_cli(*args) == first
    # no second look: a log's lines naming the chosen compile id are searched again, but not counted
    assert len(counted) == (not sampled and not logged) + (chunks if logged and not sampled else 0)
