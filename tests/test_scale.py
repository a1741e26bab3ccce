"""Whole-run logs: the index, the parallel analysis, compressed input and interleaved compiler threads."""

from __future__ import annotations

import gc
import gzip
import io
import json
import lzma
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asmcfg.dialects import index, interleave
from asmcfg.dialects.hsdis import reader as hsdis
from asmcfg.dialects.index import IndexRecord, index_file, index_stream
from asmcfg.model import Method
from asmcfg.render.json import jsonl_record
from asmcfg.run import parallel
from asmcfg.run.pipeline import analyse_method, open_input
from asmcfg.sources import split
from asmcfg.sources.lines import Line
from tests.conftest import DATA
from tests.corpus import json_methods

LOGC = DATA / "logc"
TEXT_SAMPLES = ["hsdis-jdk17-Tensor4D.txt.gz", "hsdis-jdk25-Switches.txt.gz", "hsdis-aarch64-RecOsr.txt.gz"]
XML_SAMPLES = ["jdk17-Tensor4D.xml.gz", "jdk25-Tensor4D.xml.gz", "javac-jdk17-excerpt.xml.gz"]


def methods_of(path: Path | str) -> list[Method]:
    return list(open_input(str(path)).methods)


def without_line(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "line"}


def method_slices(data: bytes) -> list[bytes]:
    """Each method's bytes, from its index offset to the next one's."""
    offsets = [r.offset for r in index_stream(io.BytesIO(data))]
    return [data[a:b] for a, b in zip(offsets, [*offsets[1:], len(data)], strict=True)]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A multi-method log: the methods of several real logs, shuffled and repeated."""
    pieces = [s for name in TEXT_SAMPLES for s in method_slices(gzip.decompress((LOGC / name).read_bytes()))]
    random.Random(7).shuffle(pieces)
    path = tmp_path_factory.mktemp("scale") / "generated.txt"
    path.write_bytes(b"OpenJDK 64-Bit Server VM warning: PrintAssembly is enabled\n" + b"".join(pieces * 3))
    return path


@pytest.fixture()
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "BATCH_BYTES", 40_000)


def index_facts(record: IndexRecord) -> tuple[Any, ...]:
    return (record.compile_id, record.compiler, record.level, record.osr_bci, record.flags, record.method,
            record.bytecode_size, record.code_begin)


def header_facts(method: Method) -> tuple[Any, ...]:
    h = method.header
    return (h.compile_id, h.compiler, h.level, h.osr_bci, h.flags, h.name, h.bytecode_size, method.code_begin)


@pytest.mark.parametrize("name", TEXT_SAMPLES)
def test_index_finds_the_compilations_of_the_full_parse(name: str) -> None:
    records = list(index_file(str(LOGC / name)))
    assert [index_facts(r) for r in records] == [header_facts(m) for m in methods_of(LOGC / name)]
    assert all(r.printed and r.code_size for r in records)


@pytest.mark.parametrize("name", XML_SAMPLES)
def test_index_of_a_logcompilation_log(name: str) -> None:
    records = list(index_file(str(LOGC / name)))
    printed = {index_facts(r) for r in records if r.printed}
    assert printed == {header_facts(m) for m in methods_of(LOGC / name)}
    assert len(records) == len({r.compile_id for r in records})
    assert all(r.code_size for r in records)


def test_index_offsets_start_each_method(generated: Path) -> None:
    data = generated.read_bytes()
    records = list(index_file(str(generated)))
    assert all(data[r.offset :].startswith(b"Compiled method (") for r in records)
    alone = [methods_of_bytes(chunk) for chunk in method_slices(data)]
    assert [index_facts(r) for r in records] == [header_facts(m[0]) for m in alone]
    assert all(len(m) == 1 for m in alone)


@pytest.mark.parametrize("name", [*TEXT_SAMPLES, "javac-jdk17-excerpt.xml.gz"])
def test_small_buffers_find_the_same_records(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = gzip.decompress((LOGC / name).read_bytes())
    whole = list(index_stream(io.BytesIO(data)))
    monkeypatch.setattr(index, "BUFFER", 50_000)
    assert list(index_stream(io.BytesIO(data))) == whole == list(index_file(str(LOGC / name)))
    assert whole


def methods_of_bytes(data: bytes) -> list[Method]:
    lines = (Line(i + 1, t) for i, t in enumerate(data.decode().splitlines()))
    return list(hsdis.Reader("alone").methods(lines))


def test_parallel_analysis_gives_each_method_its_result_alone(generated: Path, small_batches: None) -> None:
    alone = [parallel.summary(analyse_method(methods_of_bytes(c)[0])) for c in method_slices(generated.read_bytes())]
    stats = parallel.RunStats()
    got = list(parallel.analyse_file(str(generated), workers=2, stats=stats))
    assert [without_line(r) for r in got] == [without_line(r) for r in alone]
    assert stats.methods == stats.analysed == len(alone) and stats.failed == 0


@pytest.mark.parametrize("workers", [1, 2])
def test_parallel_equals_the_serial_pipeline(generated: Path, small_batches: None, workers: int) -> None:
    serial_stream = open_input(str(generated))
    serial = [parallel.summary(analyse_method(m)) for m in serial_stream.methods]
    stats = parallel.RunStats()
    assert list(parallel.analyse_file(str(generated), workers=workers, stats=stats)) == serial
    assert stats.outside == serial_stream.reader.outside and stats.dialect == "hsdis"


@pytest.mark.parametrize("name", [*XML_SAMPLES, "nohsdis-jdk17-Tensor4D.txt.gz"])
def test_parallel_equals_the_serial_reader_on_xml_and_hex(name: str, small_batches: None) -> None:
    serial = [parallel.summary(analyse_method(m)) for m in methods_of(LOGC / name)]
    assert list(parallel.analyse_file(str(LOGC / name), workers=2)) == serial


def compressed(path: Path, tmp_path: Path) -> Iterator[Path]:
    data = path.read_bytes()
    for suffix, pack in ((".gz", gzip.compress), (".xz", lzma.compress)):
        packed = tmp_path / (path.name + suffix)
        packed.write_bytes(pack(data))
        yield packed


def test_gz_and_xz_give_the_same_results_as_plain_text(generated: Path, tmp_path: Path) -> None:
    plain_index = list(index_file(str(generated)))
    plain = list(parallel.analyse_file(str(generated), workers=1))
    plain_serial = [parallel.summary(analyse_method(m)) for m in methods_of(generated)]
    for packed in compressed(generated, tmp_path):
        assert list(index_file(str(packed))) == plain_index
        assert list(parallel.analyse_file(str(packed), workers=2)) == plain
        assert [parallel.summary(analyse_method(m)) for m in methods_of(packed)] == plain_serial


def test_xml_gz_and_xz_give_the_same_results(tmp_path: Path) -> None:
    plain_path = tmp_path / "log.xml"
    plain_path.write_bytes(gzip.decompress((LOGC / "jdk25-Tensor4D.xml.gz").read_bytes()))
    want = list(parallel.analyse_file(str(plain_path), workers=1))
    for packed in compressed(plain_path, tmp_path):
        assert list(parallel.analyse_file(str(packed), workers=1)) == want
        assert list(index_file(str(packed))) == list(index_file(str(plain_path)))


def test_jsonl_lines_hold_the_records(generated: Path) -> None:
    out = io.StringIO()
    stats = parallel.analyse_to_jsonl(str(generated), out, workers=2)
    lines = out.getvalue().splitlines()
    assert len(lines) == stats.analysed == stats.methods
    assert [json.loads(line) for line in lines] == list(parallel.analyse_file(str(generated), workers=1))


def test_selection_and_a_custom_serializer(generated: Path, small_batches: None) -> None:
    got = list(parallel.analyse_file(
        str(generated), lambda r: {"id": r.cfg.method.header.compile_id}, workers=2,
        select=lambda m: m.header.compiler == "c2",
    ))
    want = [{"id": m.header.compile_id} for m in methods_of(generated) if m.header.compiler == "c2"]
    assert got == want and got


def interleaved_lines() -> tuple[list[str], list[str], list[str]]:
    """Two real methods, and a log where the second one's output lands in the middle of the first."""
    text = gzip.decompress((LOGC / "hsdis-jdk17-Tensor4D.txt.gz").read_bytes())
    first, second = (chunk.decode().splitlines() for chunk in method_slices(text)[-2:])
    half = len(first) // 2
    return first, second, [*first[:half], *second[:40], *first[half:], *second[40:]]


def read_lines_of(texts: list[str]) -> list[Method]:
    """Methods as the text reader yields them (interleaved lines already given back)."""
    return list(hsdis.Reader("mixed").methods(Line(i + 1, t) for i, t in enumerate(texts)))


def raw_methods_of(texts: list[str]) -> list[Method]:
    """Methods as printed, before interleaved lines are given back."""
    return list(hsdis.Reader("mixed")._methods([(1, texts)]))


def test_clean_methods_have_no_findings() -> None:
    for name in TEXT_SAMPLES + XML_SAMPLES:
        for method in methods_of(LOGC / name):
            assert interleave.check(method) == (), (name, method.header.compile_id)


def test_interleaved_methods_are_flagged_and_not_merged() -> None:
    first, second, mixed = interleaved_lines()
    raw = raw_methods_of(mixed)
    (alone_first,), (alone_second,) = read_lines_of(first), read_lines_of(second)
    assert [m.header.compile_id for m in raw[:2]] == [alone_first.header.compile_id, alone_second.header.compile_id]
    assert [f.kind for f in interleave.check(raw[0])] == ["ends_early"]
    assert "foreign" in {f.kind for f in interleave.check(raw[1])}
    own_first = {i.address for i in alone_first.instructions}
    own_second = {i.address for i in alone_second.instructions}
    cleaned = [interleave.guard(m) for m in raw]
    assert "incomplete" in cleaned[0].features and "interleaved" in cleaned[1].features
    for method in cleaned:
        addresses = {method.instructions[b.start].address for b in analyse_method(method).cfg.blocks}
        assert addresses <= own_first or addresses <= own_second


def shape(method: Method) -> list[tuple[int, str, str, str]]:
    return [(i.address, i.mnemonic, i.operands, i.comment) for i in method.instructions]


def test_untangle_gives_each_method_its_lines_back() -> None:
    first, second, mixed = interleaved_lines()
    got = list(interleave.untangle(raw_methods_of(mixed)))
    assert [shape(m) for m in read_lines_of(mixed)] == [shape(m) for m in got]
    (alone_first,), (alone_second,) = read_lines_of(first), read_lines_of(second)
    assert [shape(m) for m in got] == [shape(alone_first), shape(alone_second)]
    assert all("interleaved" in m.features for m in got)
    assert got[0].markers == alone_first.markers
    assert set(got[1].markers) <= set(alone_second.markers)
    assert [f.kind for m in got for f in interleave.check(m)] == []
    clean = read_lines_of(first + second)
    assert list(interleave.untangle(clean)) == clean


def test_interleaving_without_a_section_table_is_found_from_addresses() -> None:
    first, _, mixed = interleaved_lines()
    no_table = [t for t in mixed if "[0x" not in t]
    invaded = raw_methods_of(no_table)[1]
    assert invaded.code_begin is None
    flags = interleave.foreign(invaded)
    assert flags is not None
    foreign = {i.address for i, bad in zip(invaded.instructions, flags, strict=True) if bad}
    assert foreign == {i.address for i in read_lines_of(first)[0].instructions} & foreign
    assert foreign


def test_pieces_keep_the_jdk_a_vm_version_line_before_them_named(small_batches: None) -> None:
    # JMH console output with PrintAssembly: `# VM version: JDK 24` heads the file, and the methods follow it
    path = DATA / "public" / (
        "mmpataki__tensor.benchmark__observations__p2-java-assembly-and-task-pinning__compiler-output.txt")
    pieces = list(split.method_pieces(io.BytesIO(path.read_bytes()), str(path), path.name, parallel.BATCH_BYTES))
    assert len(pieces) >= 4 and pieces[0].jdk_hint is None and {p.jdk_hint for p in pieces[1:]} == {24}
    whole = json_methods(str(path), "--all")
    records = list(parallel.analyse_file(str(path), jsonl_record, workers=2))
    assert len(records) == len(whole) == 9
    assert {(r["jdk"], r["jdk_assumption"]) for r in records} == {(24, "named in the input")}
    assert [{"schema": 1, **m} for m in whole] == records


def test_a_run_collects_young_objects_less_often_and_restores_the_collector() -> None:
    before = gc.get_threshold()
    seen = []

    def threshold(result: Any) -> dict[str, Any]:
        seen.append(gc.get_threshold()[0])
        return {"name": result.cfg.method.header.name}

    records = list(parallel.analyse_file(str(LOGC / TEXT_SAMPLES[0]), threshold, workers=1))
    assert records and set(seen) == {max(before[0], parallel.YOUNG_COLLECTION)}
    assert gc.get_threshold() == before
