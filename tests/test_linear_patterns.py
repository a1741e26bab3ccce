"""Every pattern applied to input text is linear: a crafted 1 MB line costs each reader seconds, not hours.

Each check runs in a child process with a generous time limit (the backtracking forms these replace took 17 s on a
50 KB line and would take hours on 1 MB), so a regression fails the test instead of hanging it. The rewritten
patterns find on ordinary text exactly what the forms they replace found (compared on generated lines).
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from asmcfg.analyses import arrays
from asmcfg.dialects import header
from asmcfg.dialects.logcompilation import logxml, split
from asmcfg.dialects.perfasm import reader as perfasm, text as perfasm_text
from asmcfg.dialects.perfasm.saved import sampled
from asmcfg.sources import diagnose

DATA = Path(__file__).parent / "data"
MB = 1 << 20
LIMIT = 120
"""Seconds a child gets: linear work on these inputs takes well under 10 s even on a loaded machine."""


def _within_limit(code: str) -> str:
    """What `code` prints, run in a child process that must end within `LIMIT` seconds."""
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         timeout=LIMIT)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


# One crafted 1 MB string per rewritten pattern, the input that made the old form backtrack over it again and
# again, and what the pattern must find in it.
ADVERSARIAL = {
    "tag: a name with no `>`": ("from asmcfg.dialects.logcompilation.logxml import _tags as f", "'<' + 'a' * MB", "[]"),
    "attributes: a name with no `=`": (
        "from asmcfg.dialects.logcompilation.logxml import _tags as f", "'<t ' + 'a' * MB + '>'",
        "[Tag(name='t', closing=False, empty=False, attrs={})]",
    ),
    "one-line record attributes: a word with no `=`": (
        "from asmcfg.dialects.logcompilation.logxml import LINE_ATTR; f = LINE_ATTR.findall",
        "'a' * MB + \" x='1'\"", "[('x', '1')]",
    ),
    "section header: a name then blanks": ("from asmcfg.dialects.header import parse_section as f",
                                           "'main' + ' ' * MB + 'x'", "None"),
    "section header: a name of words": ("from asmcfg.dialects.header import parse_section as f",
                                        "'a ' * (MB // 2) + '[0x1'", "None"),
    "banner: a run of `=`": ("from asmcfg.dialects.header import banner_compiler as f", "'a' + '=' * MB", "None"),
    "header: `Compiled method (` again and again": (
        "from asmcfg.dialects.header import parse_header; f = lambda t: parse_header(t, 1)",
        "'Compiled method (' * (MB // 17) + 'c2)'", "None",
    ),
    "header: blanks between the numbers": (
        "from asmcfg.dialects.header import parse_header; f = lambda t: parse_header(t, 1)",
        "'Compiled method (c2) 1' + ' ' * MB + 'x'", "None",
    ),
    "log header id: blanks between the numbers": (
        "from asmcfg.dialects.logcompilation.split import _HEADER_ID; f = _HEADER_ID.findall",
        "b'Compiled method (c2) 1' + b' ' * MB + b'x'", "[]",
    ),
    "perfasm title: blanks after the name": (
        "from asmcfg.dialects.perfasm.text import _OLD_TITLE; f = lambda t: _OLD_TITLE.match(t).group('name')",
        "'[0x1:0x2] in a' + ' ' * MB + 'b'", "'a' + ' ' * MB + 'b'",
    ),
    "perfasm share row: a line of blanks": ("from asmcfg.dialects.perfasm.text import share_row as f",
                                            "'a' + ' ' * MB", "('a', None)"),
    "perfasm share row: blanks inside the name": ("from asmcfg.dialects.perfasm.text import share_row as f",
                                                  "'a  b' + ' ' * MB + 'c'", "('b' + ' ' * MB + 'c', None)"),
    "perfasm column: a long event name": ("from asmcfg.dialects.perfasm.reader import _column as f",
                                          "'Column 1: ' + 'a' * MB", "None"),
    "perfasm result: a run of `:`": ("from asmcfg.dialects.perfasm.reader import _result as f",
                                     "'Secondary result \"' + ':' * MB", "None"),
    "memory operand: a run of `(`": ("from asmcfg.analyses.registers import split_operands as f", "'(' * MB + '[' * MB",
                                     "['(' * MB + '[' * MB]"),
    "memory operand: a long AT&T address": (
        "from asmcfg.analyses.operands import _operand; f = lambda t: _operand(t, True)", "'0x10(%' + 'r' * MB + ','",
        "'0x10(%' + 'r' * MB + ','"),
    "memory operand: a long Intel address": (
        "from asmcfg.analyses.operands import _operand; f = lambda t: _operand(t, False).base",
        "'[' + 'a +' * MB + ']'",
        "'a'"),
    "array operand: a run of digits": (
        "from asmcfg.analyses.arrays import _x86_memory; f = lambda t: _x86_memory(t, False)", "'1' * MB + '(%rax)'",
        "('a', '', 1, 0)"),
    "array operand: digits and no parenthesis": (
        "from asmcfg.analyses.arrays import _x86_memory; f = lambda t: _x86_memory(t, False)", "'1' * MB", "None"),
    "array operand: a run of `[`": (
        "from asmcfg.analyses.arrays import _x86_memory; f = lambda t: _x86_memory(t, True)", "'[' * MB", "None"),
    "array operand: blanks between two signs": (
        "from asmcfg.analyses.arrays import _x86_memory; f = lambda t: _x86_memory(t, True)",
        "'[+' + ' ' * MB + '+]'", "('', '', 1, 0)"),
    "lldb line: a run of backticks": (
        "from asmcfg.sources.diagnose import _LLDB_CODE; f = lambda t: bool(_LLDB_CODE.search(t))",
        "'a' + '`' * MB", "False",
    ),
    "perf frame: ` (` again and again": (
        "from asmcfg.sources.diagnose import _PERF_FRAME; f = lambda t: bool(_PERF_FRAME.search(t))",
        "' 0 ' + ' (' * MB", "False",
    ),
    "perf sample: a run of blanks": (
        "from asmcfg.sources.diagnose import _PERF_SAMPLE; f = lambda t: bool(_PERF_SAMPLE.search(t))",
        "'a' + ' ' * MB + 'x'", "False",
    ),
}


@pytest.mark.parametrize("case", list(ADVERSARIAL))
def test_each_rewritten_pattern_reads_its_worst_1mb_line_quickly(case: str) -> None:
    imported, made, expected = ADVERSARIAL[case]
    out = _within_limit(f"""
        {imported}
        from asmcfg.dialects.logcompilation.logxml import Tag
        MB = {MB}
        print(f({made}) == {expected})
    """)
    assert out.strip() == "True"


# The forms the rewritten patterns replace, to compare on ordinary (short) text.
OLD_TAG = re.compile(r"<(/?)([A-Za-z_][\w.:-]*)([^<>]*)>")
OLD_ATTR = re.compile(r"([\w.:-]+)\s*=\s*(?:'([^']*)'|\"([^\"]*)\")")
OLD_SIMPLE_ATTR = re.compile(r"(\w+)='([^']*)'")
OLD_SECTION = re.compile(r"^\s*(?P<name>[a-zA-Z][a-zA-Z ]*?)\s*\[(0x[0-9a-fA-F]+),(0x[0-9a-fA-F]+)\]\s*=\s*\d+")
OLD_BANNER = re.compile(r"=+ (C1|C2|JVMCI)-compiled nmethod =+")
OLD_HEADER = re.compile(
    r"Compiled method \((?P<compiler>[^)]+)\)\s+(?P<ts>\d+)\s+(?:\S+:)?\s*(?P<id>\d+) (?P<flags>[%sbn! ]{5}) "
    r"(?:(?P<level>\d|-) )?\s*(?P<name>\S+)(?: @ (?P<osr>\d+))?(?: \((?:(?P<size>\d+) bytes|native)\))?"
)
OLD_HEADER_ID = re.compile(rb"Compiled method \([^)]*\)\s+\d+\s+(?:\S+:)?\s*(\d+) ")
OLD_TITLE = re.compile(r"^\[0x[0-9a-fA-F]+:0x[0-9a-fA-F]+\] in (?P<name>.+?)\s*$")
OLD_SHARE_ROW = re.compile(r"^(?P<source>\S.*?)\s{2,}(?P<name>\S.*?)\s*$")
OLD_COLUMN = re.compile(r"^\s*Column (\d+): (\S+).*\((\d+) events\)")
OLD_RESULT = re.compile(r'^Secondary result "(.*?):\S*asm"')
OLD_LLDB = re.compile(r"^(?:->)?\s*0x[0-9a-fA-F]+ <\+\d+>:\s|^\S+`\S+:$")
OLD_PERF_SAMPLE = re.compile(r"^\s*\S.*?\s+\d+(?:/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:\s+(?:\d+\s+)?[\w.:-]+:")
OLD_PERF_FRAME = re.compile(r"^\s+[0-9a-f]+ .+ \(.*\)$")


OLD_ATT_MEM = re.compile(r"(-?(?:0x[0-9a-fA-F]+|\d+))?\((%\w+)?(?:,\s*(%\w+)(?:,\s*(\d))?)?\)")
OLD_INTEL_MEM = re.compile(r"\[([^\]]*)\]")
OLD_INTEL_TERM = re.compile(r"([+-]?)\s*([^+\-\s]+)")


def _lines(pieces: list[str]) -> st.SearchStrategy[str]:
    """Short lines made of `pieces`: the tokens these patterns look for, blanks and odd characters."""
    return st.lists(st.sampled_from(pieces), max_size=24).map("".join)


_COMMON = [" ", "  ", "\t", "a", "B", "x", "é", "1", "0x1f", ":", "=", "'", '"', "(", ")", "[", "]", "<", ">", "/",
           ".", "-", "_", "`", ";", ",", "&amp;", "asm\""]


@settings(max_examples=600, deadline=None)
@given(_lines([*_COMMON, "<task", "</parse", "<a b='c'", " k = 'v'", ' k="v"', "/>", "a.b:c-d="]))
def test_tags_and_attributes_read_as_the_old_patterns_did(line: str) -> None:
    old = [(c, n, i, [(k, s or d) for k, s, d in OLD_ATTR.findall(i)]) for c, n, i in OLD_TAG.findall(line)]
    new = [(c, n, i, [(k, s or d) for k, s, d in logxml._ATTR.findall(i)]) for c, n, i in logxml._TAG.findall(line)]
    assert new == old
    assert logxml.LINE_ATTR.findall(line) == OLD_SIMPLE_ATTR.findall(line)


def _groups(match: re.Match[str] | re.Match[bytes] | None) -> object:
    return None if match is None else (match.span(), match.groups())


@settings(max_examples=600, deadline=None)
@given(_lines([*_COMMON, "main code", "stubs", " [0x1f,0x2f]", " = 12", "====", "= C2-compiled nmethod =",
               "Compiled method (c2)", " 123", " 45 ", "     ", "c2:", "%s!b ", "4 ", "java.lang.Foo::bar", " @ 7",
               " (12 bytes)", " (native)"]))
def test_headers_sections_and_banners_read_as_the_old_patterns_did(line: str) -> None:
    assert _groups(header._SECTION.match(line)) == _groups(OLD_SECTION.match(line))
    assert _groups(header._BANNER.search(line)) == _groups(OLD_BANNER.search(line))
    assert _groups(header._HEADER.search(line)) == _groups(OLD_HEADER.search(line))
    data = line.encode()
    assert split._HEADER_ID.findall(data) == OLD_HEADER_ID.findall(data)


@settings(max_examples=600, deadline=None)
@given(_lines([*_COMMON, "[0x1:0x2] in ", "Column 1: ", "cycles", " (12 events)", "(3 events)",
               'Secondary result "', "b.M.m", ":asm\"", ":·asm\"", "1.5%", "foo (bar.java)", "  ", "0x1f <+4>:"]))
def test_perfasm_and_diagnosis_lines_read_as_the_old_patterns_did(line: str) -> None:
    assert _groups(perfasm_text._OLD_TITLE.match(line)) == _groups(OLD_TITLE.match(line))
    assert _groups(perfasm_text._SHARE_ROW.match(line)) == _groups(OLD_SHARE_ROW.match(line))
    old_column = OLD_COLUMN.match(line)
    assert perfasm._column(line) == (
        None if old_column is None else (int(old_column[1]), old_column[2], int(old_column[3]))
    )
    old_result = OLD_RESULT.match(line)
    assert perfasm._result(line) == (None if old_result is None else old_result[1])
    for new, old in ((diagnose._LLDB_CODE, OLD_LLDB), (diagnose._PERF_SAMPLE, OLD_PERF_SAMPLE),
                     (diagnose._PERF_FRAME, OLD_PERF_FRAME)):
        assert bool(new.search(line)) == bool(old.search(line))


# Readers: a real dump with crafted 1 MB lines put where each reader applies its patterns. The run must end within
# the limit and list the same methods as the dump without them.

HSDIS_LINES = ["main" + " " * MB + "x", "a " * (MB // 2) + "[0x1", "a" + "=" * MB, "# {method} '" + "a" * MB,
               " " * MB, "[" * MB, ";" * MB, "0x" * (MB // 2), "<" * MB, "1" * MB]
HEADER_LINES = ["Compiled method (" * (MB // 17), "Compiled method (c2) 1" + " " * MB + "x"]
"""Lines that start a method: put last, where the method they start has no code."""
MACHCODE_LINES = ["main" + " " * MB + "x", "a" + "=" * MB, "0x1: " + " " * MB + "0x2 x", "a " * (MB // 2) + "[0x1"]
LOG_LINES = ["<ttyx " + "a" * MB + ">", "<ttyx é" + "a" * MB + ">", "<ttyx" + "a" * MB, "<nmethod " + "a" * MB + "/>",
             "<writer " + "a" * MB + " ='1" + ">"]
PERFASM_LINES = ["Column 1: " + "a" * MB, 'Secondary result "' + ":" * MB, "[0x1:0x2] in a" + " " * MB + "b",
                 "a" + " " * MB]


def _text(path: Path) -> list[str]:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode().split("\n")


def _methods(listing: str) -> list[list[str]]:
    """The rows of a `--list` table without their line column (crafted lines move the lines after them)."""
    rows = [row.split() for row in listing.splitlines()]
    line = rows[0].index("line") - len(rows[0])
    return [row[:line] + row[line + 1 :] if line < -1 else row[:line] for row in rows]


def _listing(path: Path) -> str:
    run = subprocess.run([sys.executable, "-m", "asmcfg", str(path), "--list"], capture_output=True, text=True,
                         timeout=LIMIT)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def _crafted(tmp_path: Path, source: Path, after: str, crafted: list[str], last: list[str]) -> Path:
    """`source` with `crafted` after its first line holding `after`, and `last` at its end."""
    lines = _text(source)
    at = next(n for n, line in enumerate(lines) if after in line) + 1
    out = tmp_path / source.name.removesuffix(".gz")
    out.write_text("\n".join([*lines[:at], *crafted, *lines[at:], *last]))
    return out


@pytest.mark.parametrize(("source", "after", "crafted", "last"), [
    ("hsdis/jdk17-Switches-print-hsdis-att.txt.gz", "[Verified Entry Point]", HSDIS_LINES, HEADER_LINES),
    ("hsdis/jdk25-Switches-print-hsdis-intel.txt.gz", "[Verified Entry Point]", HSDIS_LINES, HEADER_LINES),
    ("nohsdis/jdk17-Switches-print-nohsdis.txt", "Compiled method", MACHCODE_LINES, HEADER_LINES),
    ("logc/jdk17-Switches.xml.gz", "<nmethod compile_id='1'", LOG_LINES, []),
    ("perfasm/jdk17-DevBench/perfasm-console.txt", "# Benchmark:", PERFASM_LINES, []),
    ("perfasm/jdk17-DevBench/perfasm-console.txt", "Hottest Methods", ["  1.00%  a" + " " * MB + "b"], []),
])
def test_each_reader_reads_a_dump_with_crafted_1mb_lines_in_linear_time(
    tmp_path: Path, source: str, after: str, crafted: list[str], last: list[str]
) -> None:
    path = _crafted(tmp_path, DATA / source, after, crafted, last)
    (tmp_path / "plain").mkdir()
    plain = _crafted(tmp_path / "plain", DATA / source, after, [], [])
    assert _methods(_listing(path)) == _methods(_listing(plain))


def test_the_savelog_reader_reads_crafted_1mb_lines_in_linear_time(tmp_path: Path) -> None:
    """A JMH saveLog (PrintAssembly with perfasm's columns, read through `strip_columns`)."""
    source = DATA / "perfasm/jdk25-DevBench/perfasm-savelog-switchRun-compile568.log"
    crafted = ["  1.11%" + " " * MB + "x", "  1.11%  " + "1.11%" * (MB // 5), *HSDIS_LINES]
    path = _crafted(tmp_path, source, "[Verified Entry Point]", crafted, [])
    (tmp_path / "plain").mkdir()
    plain = _crafted(tmp_path / "plain", source, "[Verified Entry Point]", [], [])
    read = _within_limit(f"""
        from asmcfg.dialects.hsdis import reader as hsdis
        from asmcfg.dialects.perfasm.profile import strip_columns
        from asmcfg.sources.lines import read_lines
        for path in ({str(path)!r}, {str(plain)!r}):
            methods = hsdis.Reader(path).methods(strip_columns(read_lines(path)))
            print([(m.header.compile_id, m.header.name, len(m.instructions)) for m in methods])
    """).splitlines()
    assert read[0] == read[1] and "568" in read[0]


@pytest.mark.parametrize(("source", "after", "needle"), [
    ("hsdis/jdk17-Switches-print-hsdis-att.txt.gz", "[Verified Entry Point]", "Compiled method ("),
    ("logc/jdk17-Switches.xml.gz", "<nmethod compile_id='1'", "<nmethod compile_id="),
    ("logc/jdk17-Switches.xml.gz", "<nmethod compile_id='1'", "Compiled method ("),
])
def test_the_header_index_reads_a_line_of_8mb_of_its_needle_in_linear_time(
    tmp_path: Path, source: str, after: str, needle: str
) -> None:
    """The index `--list` and the opening of one compilation use: a line holding its needle half a million times
    (each looked at alone, the search for the line's start went back over the whole line: hours) yields no
    compilation, mapped or read from a gzip stream, and the index is that of the input without it."""
    crafted = [needle * ((8 * MB) // len(needle))]
    path = _crafted(tmp_path, DATA / source, after, crafted, [])
    packed = tmp_path / f"{path.name}.gz"
    packed.write_bytes(gzip.compress(path.read_bytes(), 1))
    (tmp_path / "plain").mkdir()
    plain = _crafted(tmp_path / "plain", DATA / source, after, [], [])
    read = _within_limit(f"""
        from asmcfg.dialects.index import index_file
        for path in ({str(path)!r}, {str(packed)!r}, {str(plain)!r}):
            print([(r.compile_id, r.compiler.value, r.method, r.printed) for r in index_file(path)])
    """).splitlines()
    assert read[0] == read[1] == read[2] and "(12, 'c2', 'Switches::dense', True)" in read[2]


def test_the_heat_look_reads_a_line_of_8mb_of_percentage_columns_once(tmp_path: Path) -> None:
    """The look for a sampled line (the default choice of a large file asks it) on a saveLog with a line of
    1.4 million percentage columns running over 256 chunks: each chunk read that line to its end and matched it
    (minutes); it is read once, by the chunk it starts in."""
    saved = (DATA / "perfasm/jdk25-DevBench/perfasm-savelog-switchRun-compile568.log").read_bytes()
    path = tmp_path / "saved.log"
    text = saved + b"0.50% " * ((8 * MB) // 6) + b"x\n" + saved
    path.write_bytes(text)
    starts = [0, *(newline.end() for newline in re.finditer(b"\n", text))]
    expected = sorted({start // (32 << 10) for start, line in zip(starts, text.decode().split("\n"), strict=True)
                       if sampled(line)})  # the chunks the sampled lines start in, line by line
    read = _within_limit(f"""
        import mmap
        from asmcfg.dialects import passes
        from asmcfg.dialects.perfasm.saved import sampled_in
        passes.COUNT_BYTES = 32 << 10
        with open({str(path)!r}, "rb") as file:
            view = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
            found = passes.survey(view, [sampled_in])
        print(len(found), [n for n, chunk in enumerate(found) if chunk[0]])
    """).split(maxsplit=1)
    assert int(read[0]) > 256 and read[1].strip() == str(expected) and len(expected) == 4


@pytest.mark.slow
def test_the_log_index_completes_600000_records_awaiting_their_headers_in_linear_time() -> None:
    """`<nmethod>` records wait for their printed headers in insertion order; a dict took each oldest one by
    skipping every one deleted before it (a crafted log of a million records without code: minutes)."""
    source = DATA / "logc/jdk17-Switches.xml.gz"
    read = _within_limit(f"""
        import gzip
        from asmcfg.dialects.logcompilation.index import NMETHOD, _nmethod, _xml
        text = gzip.decompress(open({str(source)!r}, "rb").read())
        line = text[text.index(NMETHOD) : text.index(b"\\n", text.index(NMETHOD))]
        fields = _nmethod(line)
        found = ((n * 200, 0, (1000 + n, *fields[1:])) for n in range(600_000))  # none printed
        records = list(_xml(found))
        print(len(records), records[0].compile_id, records[-1].compile_id, fields[5], any(r.printed for r in records))
    """).split()
    assert read == ["600000", "1000", "600999", "java.lang.Object::<init>", "False"]


def test_a_loop_naming_thousands_of_registers_is_walked_for_its_general_registers_only() -> None:
    # a crafted loop body names 5,000 `%rN` registers: each would be an induction-variable candidate, each walk
    # of the body a pass over it (quadratic); only x86-64's 16 general registers are walked
    from asmcfg.analyses.operands import _operand
    from asmcfg.analyses.strides import candidates

    body = [("add", f"$0x1,%r{n}", [_operand(f"%r{n}", True), "#1"]) for n in range(5000)]
    body.append(("inc", "%ecx", [_operand("%ecx", True)]))
    assert candidates(body) == sorted(["rcx", *(f"r{n}" for n in range(8, 16))])


def test_a_hex_row_after_a_megabyte_of_blanks_is_repaired_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # a row whose text follows 1 MB of tabs and blanks (a fuzzed case took over 20 s): each cut of the row is
    # tried once, not once per blank before it
    from asmcfg.dialects.machcode import hexdump

    calls: list[int] = []
    real = hexdump.parse_hex

    def counted(body: str) -> bytes | None:
        calls.append(len(body))
        return real(body)

    monkeypatch.setattr(hexdump, "parse_hex", counted)
    row = hexdump.RowBuffer(0x7F0000000000, "\t " * (MB // 2) + "8984 2400 | c0fe ff55 garbage", 7)
    found, dropped = row.close(8)
    assert found is not None and found.data == bytes.fromhex("89842400c0feff55")
    assert dropped == [(7, "garbage")]
    assert len(calls) <= hexdump.REPAIRABLE + 2 and sum(calls) <= 2 * MB + hexdump.REPAIRABLE ** 2


@settings(max_examples=600, deadline=None)
@given(_lines([*_COMMON, "%rax", "%r13", "%r8d", ", ", "4", "-", "+", " + ", "0x10", "0x", "12", "ab", "\u0663", "rax",
               "r8*4", "*", "ymmword ptr ", "%fs:"]))
def test_array_operands_read_as_the_old_patterns_did(line: str) -> None:
    old, new = OLD_ATT_MEM.search(line), arrays._ATT_MEM.search(line)
    assert (None if new is None else (arrays._displacement(line, new.start()), *new.groups())) == (
        None if old is None else (old.group(1) or "", *old.groups()[1:]))
    old = OLD_INTEL_MEM.search(line)
    opened = line.find("[")
    closed = line.find("]", opened + 1) if opened >= 0 else -1
    assert (old is None) == (closed < 0)
    if old is not None:
        assert arrays._INTEL_TERM.findall(line, opened + 1, closed) == OLD_INTEL_TERM.findall(old.group(1))
