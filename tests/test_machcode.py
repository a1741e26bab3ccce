"""The `[MachCode]` dialect: facts of every C2 method in the no-hsdis files, byte coverage, repair and sweep."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from asmcfg import isa
from asmcfg.dialects import ReadOptions, choose
from asmcfg.dialects.machcode.hexdump import DATA, RowBuffer, guess_isa, parse_hex, sweep
from asmcfg.dialects.machcode.reader import Reader, sniff
from asmcfg.facts.counts import counts
from asmcfg.model import EdgeKind, Flow, IsaName, Method, Syntax
from asmcfg.run.pipeline import analyse_method, open_input
from asmcfg.sources.lines import Line, read_lines

NOHSDIS = Path(__file__).parent / "data" / "nohsdis"
FACTS: list[dict[str, Any]] = json.loads((NOHSDIS / "facts.json").read_text())
FILES = sorted(p.name for p in NOHSDIS.glob("*print-nohsdis*"))
NOT_TAKEN_RANGE_CHECKS = {("hotspot/jdk25/Shapes/print-nohsdis.txt", 39): 1}
"""The range checks of the no-hsdis files whose trap is on the not-taken side of their branch, which facts.jsonl does
not count: `Shapes::total`'s OSR loop, `cmpl %r10d, %r13d; jb <body>`, then the range_check trap (as id 40 of the
hsdis file of JDK 25, where tests/test_facts.py counts them from the text)."""
_ROW = re.compile(r"^\s*0x[0-9a-f]+: ((?:[0-9a-f]{2,4} ?)+(?:\| (?:[0-9a-f]{2,4} ?)+)*)$")


def local(fact_file: str) -> Path:
    """`hotspot/jdk17/Tensor4D/print-nohsdis.txt` -> the copy in tests/data/nohsdis."""
    return NOHSDIS / fact_file.removeprefix("hotspot/").replace("/", "-")


@cache
def methods(name: str, syntax: str = "att") -> tuple[Method, ...]:
    """Every method of a copied no-hsdis file, read once per test session."""
    stream = open_input(str(NOHSDIS / name), options=ReadOptions(syntax=Syntax(syntax)))
    assert stream.dialect == "machcode"
    return tuple(stream.methods)


def first_after(method: Method, label: str) -> str | None:
    """The address of the first instruction after a section label, as facts.jsonl writes it."""
    return next((hex(method.instructions[i].address) for i, lab in method.markers if lab == label), None)


@pytest.mark.parametrize("fact_file", sorted({row["file"] for row in FACTS}))
def test_facts_of_every_c2_method(fact_file: str) -> None:
    by_id = {m.header.compile_id: m for m in methods(local(fact_file).name) if m.header.compiler == "c2"}
    for fact in (row for row in FACTS if row["file"] == fact_file):
        method = by_id[fact["compile_id"]]
        result = analyse_method(method)
        got = counts(result)
        assert (method.header.name, method.header.osr_bci) == (fact["name"], fact["osr_bci"])
        assert first_after(method, "Entry Point") == fact["entry"]
        assert first_after(method, "Verified Entry Point") == fact["verified_entry"]
        assert got["instructions"] == fact["instructions"]
        assert got["uncommon_trap_calls"] == fact["uncommon_trap_calls"]
        assert got["trap_reasons"] == fact["trap_reasons"]
        # facts.jsonl counts the branches whose taken side traps; asmcfg also those whose not-taken side does
        not_taken = NOT_TAKEN_RANGE_CHECKS.get((fact_file, fact["compile_id"]), 0)
        assert got["range_check_branches"] == fact["range_check_branches"] + not_taken
        assert got["safepoint_polls"] == fact["safepoint_polls"]
        trap_blocks = [b for b, tags in result.tags.items() if "uncommon_trap" in tags]
        assert len(trap_blocks) == fact["uncommon_trap_calls"]
        range_edges = [edge for edge, kind in result.checks.items() if kind == "range_check"]
        assert len([e for e in range_edges if e.kind is EdgeKind.TAKEN]) == fact["range_check_branches"]
        assert len([e for e in range_edges if e.kind is EdgeKind.FALLTHROUGH]) == not_taken


@pytest.mark.parametrize("name", FILES)
def test_instructions_cover_exactly_the_printed_bytes(name: str) -> None:
    printed = _printed_bytes(NOHSDIS / name)
    for method in methods(name):
        ins = method.instructions
        assert method.code_begin is not None and method.code_end is not None
        assert ins[0].address == method.code_begin
        assert all(a.address + (a.size or 0) == b.address for a, b in itertools.pairwise(ins))
        assert ins[-1].address + (ins[-1].size or 0) == method.code_end
        if not method.skipped:
            assert sum(i.size or 0 for i in ins) == printed[method.header.compile_id]
        starts = [i for i, _ in method.markers]
        for begin, end in itertools.pairwise([*starts, len(ins)]):
            section = ins[begin:end]
            assert sum(i.size or 0 for i in section) == _end(section) - section[0].address


def _end(section: tuple[Any, ...]) -> int:
    return int(section[-1].address + section[-1].size)


def _printed_bytes(path: Path) -> dict[int | None, int]:
    """Bytes on the hex rows of each method, counted straight from the text."""
    found: dict[int | None, int] = {}
    compile_id = None
    for line in read_lines(str(path)):
        header = re.search(r"Compiled method \(\w+\)\s+\d+\s+(\d+)", line.text)
        row = _ROW.match(line.text)
        if header:
            compile_id = int(header.group(1))
        elif row:
            found[compile_id] = found.get(compile_id, 0) + len(re.sub(r"[ |]", "", row.group(1))) // 2
    return found


@pytest.mark.parametrize(
    ("name", "compile_id", "line", "address", "mnemonic"),
    [
        ("jdk17-BigMethod-print-nohsdis.txt.gz", 14, 29449, 0x7FBD6CEE9A0C, "movl"),
        ("jdk25-BigMethod-print-nohsdis.txt.gz", 16, 28802, 0x7F116FEDF0EE, "movl"),
    ],
)
def test_hex_row_cut_by_program_output(name: str, compile_id: int, line: int, address: int, mnemonic: str) -> None:
    (method,) = [m for m in methods(name) if m.header.compile_id == compile_id]
    assert method.skipped == ((line, "157333019553086"),)
    on_row = [i for i in method.instructions if i.line == line]
    assert sum(i.size or 0 for i in on_row) >= 28
    assert any(i.address == address and i.mnemonic == mnemonic for i in on_row)


def test_frame_comment_cut_by_program_output() -> None:
    (method,) = [m for m in methods("jdk17-aarch64-BigMethod-print-nohsdis.txt.gz") if m.skipped]
    assert method.skipped == ((23033, "157333019553086"),)
    call = next(i for i in method.instructions if i.address == 0x5513ECA5FC)
    assert call.mnemonic == "blr"
    assert [(f.method, f.bci, f.line) for f in call.frames] == [("BigMethod::big", 1558, 44)]


def test_row_buffer_repairs_a_split_group() -> None:
    row = RowBuffer(0x100, "8984 2400 | 448b 157333019553086", 10, [(11, "f641 | 83e6 ")])
    data, dropped = row.close(10)
    assert data is not None and data.data == bytes.fromhex("89842400448bf64183e6")
    assert dropped == [(10, "157333019553086")]
    whole, junk = RowBuffer(0x100, "8984 2400 ", 10, [(11, "4711")]).close(4)
    assert whole is not None and junk == [(11, "4711")]
    ended, tail = RowBuffer(0x100, "8984 2400 | c0fe 4711", 10).close(6)
    assert ended is not None and ended.data == bytes.fromhex("89842400c0fe") and tail == [(10, "4711")]
    broken, lost = RowBuffer(0x100, "89x4 2400 ", 10).close(4)
    assert broken is None and lost == [(10, "89x4 2400 ")]
    assert parse_hex("8984 2400 | c0fe") == bytes.fromhex("89842400c0fe")
    assert parse_hex("89842400") is None


def test_row_buffer_repair_is_linear_in_the_row_and_its_lines() -> None:
    """A row cut by 1 MB of program output, with 1 MB lines after it: the cut is found among the cuts a real
    row can have (trying every cut of every line took hours on such a row)."""
    import time

    junk = "4711 " * (1 << 18)
    started = time.process_time()
    row = RowBuffer(0x100, "8984 2400 | 448b " + junk, 10, [(11, "x" * (1 << 20)), (12, "f641 | 83e6 ")])
    data, dropped = row.close(10)
    assert data is not None and data.data == bytes.fromhex("89842400448bf64183e6")
    assert dropped == [(10, junk), (11, "x" * (1 << 20))]
    assert time.process_time() - started < 60  # generous: the quadratic search takes hours here


def test_undecodable_bytes_become_data_and_never_branches() -> None:
    x86 = sweep(bytes.fromhex("c3620f"), 0x1000, IsaName.X86_64, Syntax.ATT)
    assert [(d.mnemonic, d.size) for d in x86] == [("retq", 1), (DATA, 1), (DATA, 1)]
    # ldr x8, #8; br x8; then the literal: 8 bytes that would decode as `b .` and `bl .`.
    trampoline = bytes.fromhex("4800005800011fd6000000140000009400000000")
    found = sweep(trampoline, 0x2000, IsaName.AARCH64, Syntax.AARCH64)
    assert [d.mnemonic for d in found] == ["ldr", "br", DATA, DATA, DATA]
    assert sum(d.size for d in found) == len(trampoline)


def test_isa_is_told_from_the_bytes() -> None:
    aarch64 = _row_bytes("jdk17-aarch64-Switches-print-nohsdis.txt", 3)
    x86 = _row_bytes("jdk17-Switches-print-nohsdis.txt", 3)
    assert (guess_isa(aarch64), guess_isa(x86)) == ("aarch64", "x86_64")
    assert (guess_isa(x86[:16], IsaName.AARCH64), guess_isa(aarch64[:16], IsaName.X86_64)) == ("aarch64", "x86_64")
    isas = {name: {m.isa for m in methods(name)} for name in FILES}
    assert all(found == ({"aarch64"} if "aarch64" in name else {"x86_64"}) for name, found in isas.items())


def _row_bytes(name: str, count: int) -> bytes:
    """The bytes of the first `count` hex rows of a file."""
    rows = (m.group(1) for m in map(_ROW.match, (NOHSDIS / name).read_text().splitlines()) if m)
    return bytes.fromhex(re.sub(r"[ |]", "", "".join(itertools.islice(rows, count))))


def test_aarch64_stub_data_is_data() -> None:
    for name in (n for n in FILES if "aarch64" in n):
        for method in methods(name):
            table = isa.for_name(method.isa)
            assert all(i.mnemonic != "udf" for i in method.instructions)
            data = {i.address for i in method.instructions if i.mnemonic == DATA}
            for ins in method.instructions:
                literal = re.match(r"x\d+, #(0x[0-9a-f]+)$", ins.operands) if ins.mnemonic == "ldr" else None
                if literal and method.code_begin <= int(literal.group(1), 16) < (method.code_end or 0):
                    assert int(literal.group(1), 16) in data
            assert all(table.flow(i) is Flow.NONE for i in method.instructions if i.mnemonic == DATA)


def test_comments_land_on_the_instruction_they_describe() -> None:
    (dense,) = [m for m in methods("jdk17-Switches-print-nohsdis.txt") if m.header.compile_id == 12]
    by_reloc = {r: i for i in dense.instructions for r in i.relocs}
    assert by_reloc["section_word"].mnemonic == "movabsq"
    assert by_reloc["poll_return"].operands == "0x340(%r15), %rsp"
    assert by_reloc["runtime_call SafepointBlob"].mnemonic == "jmp"
    assert dense.constants[0] == (0x7F2BECEC7D20, 0x7F2BECEC7DCF)
    table = [e for e in analyse_method(dense).cfg.edges if e.kind is EdgeKind.INDIRECT]
    assert len(table) == 10 and all(isinstance(e.dst, int) for e in table)
    (sum4,) = [m for m in methods("jdk17-Tensor4D-print-nohsdis.txt") if m.header.compile_id == 9]
    traps = [i for i in sum4.instructions if i.runtime_call() == "UncommonTrapBlob"]
    assert all(i.mnemonic == "callq" and i.frames and i.bytecode for i in traps)


def test_unprinted_handler_labels_are_recovered() -> None:
    (dense,) = [m for m in methods("jdk17-Switches-print-nohsdis.txt") if m.header.compile_id == 12]
    labels = {label: dense.instructions[i] for i, label in dense.markers}
    assert list(labels) == ["Verified Entry Point", "Exception Handler", "Deopt Handler Code"]
    deopt = labels["Deopt Handler Code"]
    assert deopt.mnemonic == "callq" and int(deopt.operands, 16) == deopt.address + (deopt.size or 0)


def test_intel_syntax_gives_the_same_facts() -> None:
    name = "jdk17-Tensor4D-print-nohsdis.txt"
    for att, intel in zip(methods(name), methods(name, "intel"), strict=True):
        assert (att.syntax, intel.syntax) == ("att", "intel")
        assert counts(analyse_method(att)) == counts(analyse_method(intel))
    assert any(i.operands == "esi, 0xffffffe4" for m in methods(name, "intel") for i in m.instructions)


def test_sniff_and_registry() -> None:
    text = (NOHSDIS / "jdk17-Switches-print-nohsdis.txt").read_text().splitlines()[:400]
    assert sniff(text) == pytest.approx(0.95)
    assert choose(text).name == "machcode"
    assert sniff(["  0x00007f2becec7d80:   subq $0x18, %rsp"]) == 0.0
    assert sniff(["<hotspot_log version='160 1'>", "<tty>", "[MachCode]"]) < 0.9


def test_methods_stream_one_at_a_time() -> None:
    def lines() -> Iterator[Line]:
        for line in read_lines(str(NOHSDIS / "jdk17-Switches-print-nohsdis.txt")):
            yield line
            if line.text == "[/MachCode]":
                raise AssertionError("read past the first method")

    reader = Reader("test")
    first = next(reader.methods(lines()))
    assert (first.header.compiler, first.header.compile_id, first.dialect) == ("c1", 10, "machcode")
    assert reader.outside == 5


def _tensor_cut(junk: str, name_end: str = "m4") -> str:
    """The JDK 17 Tensor4D dump with the frame line `; - Tensor4D::sum4@61 (line 9)` at its line 1150 cut inside
    the method's name by program output (`junk`) and a line break, as a program printing meanwhile cuts it."""
    lines = (NOHSDIS / "jdk17-Tensor4D-print-nohsdis.txt").read_text().split("\n")
    assert lines[1149].strip() == "; - Tensor4D::sum4@61 (line 9)"
    head, _, tail = lines[1149].rpartition(name_end)
    lines[1149:1150] = [head + junk, name_end + tail]
    return "\n".join(lines)


def _frames_of(text: str) -> tuple[list[str], list[str]]:
    reader = Reader("cut.txt")
    lines = (Line(number, line) for number, line in enumerate(text.split("\n"), 1))
    methods = [reader.complete(m) for m in reader.methods(lines)]
    method = next(m for m in methods if m.header.compile_id == 9)
    frames = [f"{f.method}@{f.bci}" for ins in method.instructions for f in ins.frames]
    return frames, [t for _, t in method.skipped]


def test_a_frame_line_cut_by_program_output_is_glued_and_the_output_dropped() -> None:
    whole, _ = _frames_of((NOHSDIS / "jdk17-Tensor4D-print-nohsdis.txt").read_text())
    frames, skipped = _frames_of(_tensor_cut("4711 done"))
    assert frames == whole and "Tensor4D::sum4@61" in frames
    assert "4711 done" in skipped


def test_gluing_a_cut_frame_line_is_linear_in_the_comment() -> None:
    """1 MB of program output inside a cut frame line: each known name is compared once, not every cut (which
    took hours on such a line)."""
    import time

    started = time.process_time()
    frames, skipped = _frames_of(_tensor_cut("x" * (1 << 20)))
    assert "Tensor4D::sum4@61" in frames and "x" * (1 << 20) in skipped
    assert time.process_time() - started < 60  # a generous bound: the quadratic search takes hours here
