"""One compilation opened through the header index reads as the whole input's read gives it.

`plain.OPEN_BYTES` decides which path a run takes: 0 sends every plain file through the index, a huge value
sends every one through the whole-input read (the path for small files, compressed files and stdin).
"""

from __future__ import annotations

import gzip
import lzma
import mmap
import shutil
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any, TypeVar

import pytest

import asmcfg
from asmcfg.dialects import index, seek
from asmcfg.dialects.index import index_file
from asmcfg.model import Compiler
from asmcfg.render.listing import write_index
from asmcfg.run import opening, plain as plainfile
from tests.conftest import DATA
from tests.corpus import run_cli

T = TypeVar("T")
WHOLE = 1 << 62
"""`OPEN_BYTES` that sends every file through the whole-input read."""


def plain(source: Path, tmp_path: Path) -> Path:
    """A plain copy of a test input (decompressed when it is compressed)."""
    target = tmp_path / source.name.removesuffix(".gz").removesuffix(".xz")
    if source.suffix == ".gz":
        target.write_bytes(gzip.decompress(source.read_bytes()))
    elif source.suffix == ".xz":
        target.write_bytes(lzma.decompress(source.read_bytes()))
    else:
        shutil.copyfile(source, target)
    return target


class Spy:
    """Counts the runs the index path answered."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.opened = 0
        real = opening.open_one

        def spied(*args: object, **kwargs: object) -> object:
            picked = real(*args, **kwargs)  # type: ignore[arg-type]
            self.opened += picked is not None
            return picked

        monkeypatch.setattr(opening, "open_one", spied)


def both(path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """The JSON of `asmcfg PATH ARGS` through the index and through the whole-input read."""
    monkeypatch.setattr(plainfile, "OPEN_BYTES", 0)
    code, indexed, err = run_cli(str(path), *args, "--json", "-", "--quiet")
    assert code == 0, err
    monkeypatch.setattr(plainfile, "OPEN_BYTES", WHOLE)
    code, whole, err = run_cli(str(path), *args, "--json", "-", "--quiet")
    assert code == 0, err
    return indexed, whole


CASES = [
    (DATA / "hsdis" / "jdk17-Switches-print-hsdis-att.txt.gz", 1),  # hsdis text
    (DATA / "nohsdis" / "jdk17-Copies-nohsdis.txt", 1),  # [MachCode] hex
    (DATA / "logc" / "jdk17-Tensor4D.xml.gz", 1),  # LogCompilation XML, hsdis text inside
    (DATA / "logc" / "inlining-jdk17.xml.gz", 1),  # LogCompilation XML, [MachCode] hex and inlining decisions
    (DATA / "record" / "jdk17-Recompile" / "jvmpid5529.xml.xz", 25),  # a C2 thread's log cut by a <fragment>
]
PARAMS = [pytest.param(*case, id=case[0].name, marks=pytest.mark.slow if case[0].suffix == ".xz" else ())
          for case in CASES]
"""The cases, the record folder's log (seconds) among the slow tests."""


@pytest.mark.parametrize(("source", "step"), PARAMS)
def test_every_compilation_opens_through_the_index_as_the_whole_read_gives_it(
    source: Path, step: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = plain(source, tmp_path)
    ids = [r.compile_id for r in index_file(str(path)) if r.printed]
    assert ids
    spy = Spy(monkeypatch)
    runs: list[list[str]] = [[]] + [["--compile-id", str(i)] for i in ids[::step]]
    for args in runs:
        indexed, whole = both(path, args, monkeypatch)
        assert indexed == whole, args
    assert spy.opened == len(runs)  # each indexed run was answered from the compilation's own bytes


@pytest.mark.parametrize(("source", "step"), PARAMS)
def test_the_default_choice_indexes_only_the_tail_of_a_log_that_holds_the_last_c2(
    source: Path, step: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = plain(source, tmp_path)
    size = path.stat().st_size
    last = [r for r in index_file(str(path)) if r.printed and r.compiler is Compiler.C2][-1]
    assert last.offset >= size // 2  # in each of these runs, the last C2 compilation is in the second half
    short, enough = (size - last.offset) // 2, size - (size // 2 + last.offset) // 2  # from between the half and it
    tails: list[int] = []
    real = index.index_view
    monkeypatch.setattr(index, "index_view", lambda view, at, forced: tails.append(at) or real(view, at, forced))
    whole: list[int] = []
    monkeypatch.setattr(opening._Opening, "_indexed", counted(opening._Opening._indexed, whole))
    logged = ".xml" in source.name  # a text file's index finds its headers alone: it is made whole
    for lengths, looked, indexed in [((short, enough), 2, 0), ((short,), 1, 1)]:
        monkeypatch.setattr(opening, "_TAILS", lengths)
        tails.clear()
        whole.clear()
        spy = Spy(monkeypatch)
        through, read = both(path, [], monkeypatch)
        assert through == read and spy.opened == 1
        assert len(tails) == (looked if logged else 0)
        assert not tails or tails[-1] > size - lengths[-1] - 512  # from the line start before
        assert len(whole) == (indexed if logged else 1)  # made when no tail held a printed C2 compilation


def test_a_machcode_dump_is_cut_at_the_ends_of_its_methods() -> None:
    path = DATA / "nohsdis" / "jdk17-Copies-nohsdis.txt"  # no hsdis: each method ends with `[/MachCode]`
    text = path.read_bytes()
    offsets = [r.offset for r in index_file(str(path))]
    at = len(offsets) // 2
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        bounds = seek._bounds(view, offsets, at)
    assert bounds is not None
    start, end = bounds
    assert 0 < start < offsets[at] < end < len(text)  # the methods around it, not the whole file
    assert text[:start].rstrip().endswith(b"[/MachCode]") and text[:end].rstrip().endswith(b"[/MachCode]")
    assert text[start:end].count(b"Compiled method (") == 1


def counted(function: Callable[..., T], calls: list[int]) -> Callable[..., T]:
    """`function`, counting its calls in `calls`."""

    def call(*args: Any) -> T:
        calls.append(1)
        return function(*args)

    return call


@pytest.mark.slow
def test_a_whole_jmh_savelog_opens_by_compile_id_and_its_hottest_is_chosen_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = plain(DATA / "perfasm" / "jdk25-DevBench" / "perfasm-savelog-switchRun.log.xz", tmp_path)
    ids = [r.compile_id for r in index_file(str(path)) if r.printed]
    spy = Spy(monkeypatch)
    for compile_id in (ids[0], 568, ids[-1]):  # 568: the benchmark's hot switchRun, its lines sampled
        indexed, whole = both(path, ["--compile-id", str(compile_id)], monkeypatch)
        assert indexed == whole
        assert f'"compile_id": {compile_id},' in indexed
    assert spy.opened == 3
    indexed, whole = both(path, [], monkeypatch)  # heat decides among every compilation: the whole read does
    assert indexed == whole and spy.opened == 3


def test_a_pattern_opens_the_last_c2_of_its_matches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = plain(DATA / "logc" / "jdk17-Tensor4D.xml.gz", tmp_path)
    spy = Spy(monkeypatch)
    indexed, whole = both(path, ["--method", "Tensor4D::sum4"], monkeypatch)
    assert indexed == whole and spy.opened == 1
    assert '"compile_id": 8,' in indexed  # ids 5 (C1 OSR), 6 (C2 OSR) and 8 (C2) are sum4: 8 is the last C2


def test_a_compilation_the_log_never_printed_is_marked_and_fails_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The log cut before the `<print_nmethod>` of compile id 9 (Tensor4D::sumDiag): its `<nmethod>` record stays,
    # as when the VM exits before it prints the code.
    data = gzip.decompress((DATA / "logc" / "jdk17-Tensor4D.xml.gz").read_bytes())
    cut = data.index(b"<print_nmethod compile_id='9'")
    assert data.rfind(b"<nmethod compile_id='9'", 0, cut) >= 0
    path = tmp_path / "cut.xml"
    path.write_bytes(data[:cut])
    out = StringIO()
    write_index(asmcfg.open(str(path)).indexed(), out)
    rows = out.getvalue().splitlines()
    sumdiag = [row for row in rows if " 9 " in row[:20]]
    assert len(sumdiag) == 1 and sumdiag[0].endswith("Tensor4D::sumDiag  (code not in the log)")
    line = int(sumdiag[0].split()[-7])  # the line of its `<nmethod>` record, the one place the log names it
    assert data.split(b"\n")[line - 1].startswith(b"<nmethod compile_id='9'")
    assert all(not row.endswith("(code not in the log)") for row in rows if row not in sumdiag)
    monkeypatch.setattr(plainfile, "OPEN_BYTES", 0)
    code, out_text, err = run_cli(str(path), "--compile-id", "9", "--json", "-")
    assert code == 1 and out_text == ""
    assert err.strip() == (
        f"asmcfg: {path}: compile id 9 (c2 Tensor4D::sumDiag): code not in the log: the log records the "
        "compilation, but the VM never printed its assembly (it exited first, or printing was not asked for it)"
    )
