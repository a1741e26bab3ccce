"""The LogCompilation dialect: same facts as the run's plain stdout, thread reassembly, records, traps."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from asmcfg.dialects import choose
from asmcfg.dialects.hsdis import reader as hsdis
from asmcfg.dialects.logcompilation import logxml, reader as logcompilation
from asmcfg.dialects.logcompilation.inline import read_log
from asmcfg.dialects.logcompilation.logxml import feature_version, method_name, nmethod_record, tags, unescape
from asmcfg.dialects.machcode import reader as machcode
from asmcfg.facts.counts import counts
from asmcfg.model import Method
from asmcfg.run import parallel
from asmcfg.run.pipeline import analyse_method, open_input
from asmcfg.sources.lines import Line
from tests.conftest import DATA

LOGC = DATA / "logc"
RUNS = ["jdk17-Tensor4D", "jdk17-Switches", "jdk25-Tensor4D", "jdk17-aarch64-Tensor4D"]


def read_all(path: Path | str) -> tuple[list[Method], Any]:
    stream = open_input(str(path))
    return list(stream.methods), stream.reader


def facts(methods: list[Method]) -> dict[int | None, dict[str, Any]]:
    return {m.header.compile_id: counts(analyse_method(m)) for m in methods}


def plain_lines(path: Path) -> list[str]:
    return gzip.decompress(path.read_bytes()).decode().splitlines()


@pytest.mark.parametrize("run", RUNS)
def test_same_facts_as_the_plain_stdout_of_the_run(run: str) -> None:
    xml, reader = read_all(LOGC / f"{run}.xml.gz")
    text, _ = read_all(LOGC / f"{run}-stdout.txt.gz")
    assert reader.__class__ is logcompilation.Reader
    assert len(xml) == len(text) > 0
    assert facts(xml) == facts(text)
    assert [m.header.name for m in xml] == [m.header.name for m in text]
    assert all(m.dialect == "logcompilation" and "interleaved" not in m.features for m in xml)


def test_sniff_prefers_the_xml_dialect() -> None:
    sample = plain_lines(LOGC / "jdk17-Tensor4D.xml.gz")[:400]
    assert logcompilation.sniff(sample) >= 0.95 > hsdis.sniff(sample)
    assert choose(sample).name == "logcompilation"
    assert logcompilation.sniff(plain_lines(LOGC / "hsdis-jdk17-Tensor4D.txt.gz")[:400]) == 0.0


@pytest.mark.parametrize(("run", "version"), [("jdk17-Tensor4D", 17), ("jdk25-Tensor4D", 25)])
def test_release_names_the_jdk(run: str, version: int) -> None:
    methods, reader = read_all(LOGC / f"{run}.xml.gz")
    assert reader.jdk_hint == version
    assert {m.jdk_hint for m in methods} == {version}
    assert {analyse_method(m).jdk_why for m in methods} == {"named in the input"}


def test_parse_traps_are_kept_per_compile_id_with_their_scope() -> None:
    methods, reader = read_all(LOGC / "jdk17-Tensor4D.xml.gz")
    sum4 = next(m for m in methods if m.header.name == "Tensor4D::sum4" and m.header.compiler == "c2")
    traps = reader.log_traps[sum4.header.compile_id]
    assert {t.origin for t in traps} == {"parse"}
    assert {t.method for t in traps} == {"Tensor4D::sum4"}
    reasons = {t.reason for t in traps}
    assert {"range_check", "null_check"} <= reasons
    assert all(t.bci is not None and t.action for t in traps)
    range_checks = [t for t in traps if t.reason == "range_check"]
    assert all(t.action == "make_not_entrant" and t.comment == "range_check" for t in range_checks)


def test_real_whole_run_excerpt_with_threads_runtime_traps_and_fragment() -> None:
    methods, reader = read_all(LOGC / "javac-jdk17-excerpt.xml.gz")
    lines = plain_lines(LOGC / "javac-jdk17-excerpt.xml.gz")
    printed = sum(1 for line in lines if "Compiled method (" in line)
    assert len(methods) == printed
    assert len({m.header.compile_id for m in methods}) == printed
    assert not [m for m in methods if "interleaved" in m.features]
    runtime = [t for t in reader.log_traps[326] if t.origin == "runtime"]
    assert runtime and {t.reason for t in runtime} == {"profile_predicate"}
    assert runtime[0].method == "jdk.internal.jimage.ImageStringsReader::stringFromByteBufferMatches"
    assert runtime[0].bci == 19
    parse = [t for t in reader.log_traps[326] if t.origin == "parse"]
    assert parse and all(t.method for t in parse)


def test_a_native_wrapper_printed_later_by_another_thread_keeps_its_own_text() -> None:
    methods, _ = read_all(LOGC / "javac-jdk17-excerpt.xml.gz")
    wrapper = next(m for m in methods if m.header.compile_id == 280)
    assert wrapper.header.compiler == "native"
    assert wrapper.code_begin is not None and wrapper.code_end is not None
    assert all(wrapper.code_begin <= i.address < wrapper.code_end for i in wrapper.instructions)


def test_a_truncated_log_yields_what_was_printed(tmp_path: Path) -> None:
    lines = plain_lines(LOGC / "jdk17-Tensor4D.xml.gz")
    cut = next(i for i, line in enumerate(lines) if "Compiled method (c2)" in line) + 60
    path = tmp_path / "cut.xml"
    path.write_text("\n".join([*lines[:cut], "<fragment>", "<![CDATA[", "<task compile_id='99'"]) + "\n")
    methods, _ = read_all(path)
    whole, _ = read_all(LOGC / "jdk17-Tensor4D.xml.gz")
    assert [m.header.compile_id for m in methods] == [m.header.compile_id for m in whole[: len(methods)]]
    assert methods[-1].header.compiler == "c2"
    assert len(methods[-1].instructions) < len(whole[len(methods) - 1].instructions)


def _xml(body: list[str]) -> list[Line]:
    head = ["<?xml version='1.0' encoding='UTF-8'?>", "<hotspot_log version='160 1'>", "<release>", "17.0.15",
            "</release>", "<tty>"]
    tail = ["</tty>", "</hotspot_log>"]
    return [Line(i + 1, text) for i, text in enumerate([*head, *body, *tail])]


def _method_texts() -> list[list[str]]:
    """Each method of a real stdout log as its own list of lines (banner to `[/Disassembly]`)."""
    lines = plain_lines(LOGC / "jdk17-Tensor4D-stdout.txt.gz")
    starts = [i for i, line in enumerate(lines) if line.startswith("Compiled method (")]
    ends = [next(j for j in range(s, len(lines)) if lines[j] == "[/Disassembly]") + 1 for s in starts]
    return [lines[s:e] for s, e in zip(starts, ends, strict=True)]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def test_writer_switches_are_undone_before_parsing() -> None:
    texts = _method_texts()
    first, second = texts[5], texts[6]
    body: list[str] = []
    for k in range(0, max(len(first), len(second)), 7):
        body += ["<writer thread='11'/>", *map(_escape, first[k : k + 7])]
        body += ["<writer thread='22'/>", *map(_escape, second[k : k + 7])]
    methods = list(logcompilation.Reader("mixed").methods(_xml(body)))
    alone = [list(hsdis.Reader("alone").methods(Line(i, t) for i, t in enumerate(text))) for text in (first, second)]
    assert [m.header.compile_id for m in methods] == [alone[0][0].header.compile_id, alone[1][0].header.compile_id]
    for got, want in zip(methods, (alone[0][0], alone[1][0]), strict=True):
        assert [(i.address, i.mnemonic, i.operands, i.comment) for i in got.instructions] == [
            (i.address, i.mnemonic, i.operands, i.comment) for i in want.instructions
        ]
        assert got.markers == want.markers
        assert "interleaved" not in got.features


def test_writer_switches_give_the_same_methods_in_parallel(tmp_path: Path) -> None:
    texts = _method_texts()
    body: list[str] = []
    for k in range(0, 400, 5):
        for thread, text in zip(("1", "2", "3"), texts[3:6], strict=True):
            body += [f"<writer thread='{thread}'/>", *map(_escape, text[k : k + 5])]
    lines = _xml(body)
    path = tmp_path / "threads.xml"
    path.write_text("\n".join(line.text for line in lines) + "\n")
    serial = [parallel.summary(analyse_method(m)) for m in logcompilation.Reader(str(path)).methods(lines)]
    assert len(serial) == 3
    assert list(parallel.analyse_file(str(path), workers=1)) == serial


def test_a_header_missing_its_compile_id_is_completed_from_the_records() -> None:
    lines = plain_lines(LOGC / "jdk17-Tensor4D.xml.gz")
    at = next(i for i, line in enumerate(lines) if "Compiled method (c2)" in line)
    record = next(line for line in reversed(lines[:at]) if line.startswith("<nmethod "))
    without_header = lines[:at] + lines[at + 1 :]
    methods = list(logcompilation.Reader("x").methods(Line(i + 1, t) for i, t in enumerate(without_header)))
    want = nmethod_record(tags(record)[0].attrs, 0)
    assert want is not None
    got = next(m for m in methods if m.header.compile_id == want.compile_id)
    assert got.header.compiler == want.compiler == "c2"
    assert got.header.name == want.method
    assert ("%" in got.header.flags) == (want.kind == "osr")


def test_named_entities_are_replaced_as_the_entity_expression_replaces_them() -> None:
    # every line of the copied logs that holds an entity: `&lt;init&gt;`, `&apos;`, `&quot;`, `&amp;`
    lines: set[str] = set()
    for path in sorted(LOGC.glob("*.xml.gz")):
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as log:
            lines.update(line for line in log.read().split("\n") if "&" in line)
    assert len(lines) > 1000 and all(any(e in line for line in lines) for e in ("&lt;", "&apos;", "&quot;"))
    # the logs hold no `&amp;`: the same lines escaped once more (`&amp;lt;` is `&lt;` unescaped) check it
    twice = {line.replace("&", "&amp;") for line in lines}
    for line in lines | twice:
        assert unescape(line) == logxml._ENTITY.sub(logxml._entity, line)
    assert {unescape(line) for line in twice} == lines


def test_markup_helpers() -> None:
    assert unescape("java.lang.Object::&lt;init&gt; &amp; &#65;&#x42;") == "java.lang.Object::<init> & AB"
    (tag,) = tags("<nmethod compile_id='7' method='java.lang.String &lt;init&gt; ()V' insts_offset='400' "
                  "stub_offset='624' size='784' address='0x10'/>")
    assert tag.name == "nmethod" and tag.empty and not tag.closing
    record = nmethod_record(tag.attrs, 3)
    assert record is not None
    assert (record.method, record.code_size, record.code_begin) == ("java.lang.String::<init>", 224, 0x10 + 400)
    assert tags("</print_nmethod>")[0].closing
    assert feature_version("17.0.15+6-Debian-1deb12u1") == 17
    assert feature_version("1.8.0_392-b08") == 8
    assert feature_version("25+36") == 25
    assert method_name("java.lang.String hashCode ()I") == "java.lang.String::hashCode"


def test_machcode_hex_inside_tty_is_decoded() -> None:
    text = plain_lines(LOGC / "nohsdis-jdk17-Tensor4D.txt.gz")
    want = list(machcode.Reader("plain").methods(Line(i + 1, t) for i, t in enumerate(text)))
    got = list(logcompilation.Reader("log").methods(_xml(["<writer thread='5'/>", *map(_escape, text)])))
    assert len(got) == len(want) > 0
    for mine, theirs in zip(got, want, strict=True):
        assert mine.header.compile_id == theirs.header.compile_id
        assert [(i.address, i.mnemonic, i.operands) for i in mine.instructions] == [
            (i.address, i.mnemonic, i.operands) for i in theirs.instructions
        ]


@pytest.mark.parametrize("name", ["jdk17-Tensor4D.xml.gz", "javac-jdk17-excerpt.xml.gz", "inlining-jdk17.xml.gz"])
def test_the_one_pass_record_reader_agrees_with_the_reader(name: str) -> None:
    methods, reader = read_all(LOGC / name)
    ahead = read_log(str(LOGC / name))
    assert ahead.traps == reader.log_traps
    for method in methods:
        completed = reader.complete(method)
        assert completed.log_inlines == tuple(ahead.inlines.get(method.header.compile_id or -1, ()))
        assert completed.log_traps == tuple(ahead.traps.get(method.header.compile_id or -1, ()))
