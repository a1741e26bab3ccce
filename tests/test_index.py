"""The header index of a plain file, searched where the file is mapped into memory, finds what the stream finds."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from asmcfg.dialects import index
from asmcfg.dialects.index import index_file, index_stream
from asmcfg.model import Compiler
from asmcfg.sources.split import mapped
from tests.conftest import DATA

LOGC = DATA / "logc"
SAMPLES = ["hsdis-jdk17-Tensor4D.txt.gz", "hsdis-aarch64-RecOsr.txt.gz", "nohsdis-jdk17-Tensor4D.txt.gz",
           "javac-jdk17-excerpt.xml.gz", "jdk25-Tensor4D.xml.gz"]


def plain_copy(name: str, tmp_path: Path) -> tuple[Path, bytes]:
    data = gzip.decompress((LOGC / name).read_bytes())
    path = tmp_path / name.removesuffix(".gz")
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("buffer", [index.BUFFER, 50_000, 7_000])
def test_the_mapped_file_gives_the_records_of_the_stream(
    name: str, buffer: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, data = plain_copy(name, tmp_path)
    with mapped(str(path)) as view:
        assert view is not None and len(view) == len(data)
    monkeypatch.setattr(index, "BUFFER", buffer)
    streamed = list(index_stream(io.BytesIO(data)))
    assert list(index_file(str(path))) == streamed == list(index_file(str(LOGC / name)))
    assert streamed and all(r.code_size for r in streamed if r.printed)


def test_mapped_offsets_are_the_header_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, data = plain_copy("hsdis-jdk25-Switches.txt.gz", tmp_path)
    monkeypatch.setattr(index, "BUFFER", 4096)  # windows shorter than a method: headers near their edges
    records = list(index_file(str(path)))
    assert len(records) == data.count(b"\nCompiled method (") + data.startswith(b"Compiled method (")
    for record in records:
        line = data[record.offset : data.index(b"\n", record.offset)].decode()
        assert line.startswith("Compiled method (") and f" {record.compile_id} " in line
        assert record.method in line and record.compiler in (Compiler.C1, Compiler.C2)


def test_the_meter_counts_every_byte_of_a_mapped_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, data = plain_copy("hsdis-jdk17-Tensor4D.txt.gz", tmp_path)
    monkeypatch.setattr(index, "BUFFER", 10_000)
    counted: list[int] = []
    assert list(index_file(str(path), counted.append))
    assert sum(counted) == len(data) and len(counted) == -(-len(data) // 10_000)


def test_compressed_empty_and_stdin_are_not_mapped(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    for path in (str(LOGC / "hsdis-jdk17-Tensor4D.txt.gz"), str(empty), "-", str(tmp_path)):
        with mapped(path) as view:
            assert view is None
