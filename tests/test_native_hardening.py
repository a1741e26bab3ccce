"""The C modules every build makes where it can (`_scan.c`, `_build.c`, `logcompilation/_tags.c`, `_lines.c`)
refuse what they cannot read with a Python exception and never crash the interpreter, give what the Python code
gives on generated inputs, and read the copied inputs without one memory error under AddressSanitizer.

The calls with wrong types, odd objects and objects that change the containers being read are tests/native_calls.py's,
run in a child process (a crash, which kills it by a signal, names its case). The modules are built here from their
sources, with the system's C compiler, whether or not the compiled build is installed."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import native_calls
import pytest
from corpus import DATA
from hypothesis import HealthCheck, given, settings, strategies as st
from native import MODULES, ROOT, compile_module, compiler
from native_calls import CASES, Case

from asmcfg.dialects import annotations, builder
from asmcfg.dialects.annotations import FRAME_FIELDS
from asmcfg.dialects.hsdis import reader
from asmcfg.dialects.logcompilation import inline, logxml
from asmcfg.dialects.logcompilation.logxml import Tag, unescape
from asmcfg.model import Frame

SCRIPT = Path(native_calls.__file__)
SANITIZED = ("-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address")
UNDEFINED = ("-fsanitize=undefined", "-fno-sanitize-recover=undefined")
"""Also stop at undefined behaviour (a signed overflow) where the compiler can."""
JDK17 = DATA / "hsdis" / "jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz"
LOG = DATA / "logc" / "jdk17-Eq-inlined-trap.xml.gz"
EXAMPLES = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def build_all(out: Path, flags: tuple[str, ...]) -> Path:
    """The five modules built into `out` with `flags`."""
    out.mkdir(parents=True, exist_ok=True)
    for name, source in MODULES.items():
        compile_module(name, source, out, flags)
    return out


def run_calls(folder: Path, *args: str, env: dict[str, str] | None = None) -> tuple[dict[str, str], Any]:
    """What each case of native_calls gave with the modules of `folder`, and the finished child process."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(folder), *args], capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
    got = {}
    for line in done.stdout.splitlines():
        record = json.loads(line)
        if "done" in record:
            got[record["done"]] = record["got"]
    return got, done


def crashed(got: dict[str, str], done: Any) -> str:
    """How the child ended, and in which case, when it did not end normally."""
    last = next((c.name for c in CASES if c.name not in got), None)
    return f"exit {done.returncode} in case {last}: {done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_all(tmp_path_factory.mktemp("native"), ("-O2",))


@pytest.fixture(scope="module")
def outcomes(folder: Path) -> tuple[dict[str, str], Any]:
    return run_calls(folder)


@pytest.fixture(scope="module")
def c(folder: Path) -> SimpleNamespace:
    return native_calls.modules(folder)


def test_a_frame_of_ints_is_refused(outcomes: tuple[dict[str, str], Any]) -> None:
    got, done = outcomes
    assert got["notes_with_int_and_ints_for_frame"] == "TypeError", crashed(got, done)  # _build.notes('- a@1', int, …)


@pytest.mark.parametrize("one", CASES, ids=lambda one: one.name)
def test_an_odd_call_raises_or_reads_and_never_crashes(one: Case, outcomes: tuple[dict[str, str], Any]) -> None:
    got, done = outcomes
    assert done.returncode == 0, crashed(got, done)
    assert got[one.name] in one.expected


# The C modules against the Python code, on generated inputs

COMMENT_PIECES = [
    "{poll}", "{ optimized virtual_call }", "{external_word}", "{", "}", "*invokevirtual", "*getfield value",
    "*goto {reexecute=1 rethrow=0 return_oop=0}", "{reexecute", "- A::b@12 (line 34)", "- (reexecute) A::b@-1",
    "- java.lang.String::equals@3", "-\tX::y@0\t(line 1)", "(line ", ")", "@", "@-", "-", "- ", "(reexecute)",
    "implicit exception: dispatches to 0x", "0x00007f3a1c", "fFfF", "99999999999999999999", "123456789012345678901",
    "ffffffffffffffff0", " ; ", ";", " ;", "; ", "\n", "\t", " ", "ImmutableOopMap {rsi=Oop }", "\u00e9", "\u00a0",
    "\x0b", "\r",
]
comment_texts = st.lists(
    st.one_of(st.sampled_from(COMMENT_PIECES), st.text(alphabet=" \t\n;{}*-@()0123456789abcdefx:_.", max_size=8)),
    max_size=14,
).map("".join)


def plain(text: str) -> bool:
    return all(" " <= ch <= "~" or ch in "\t\n" for ch in text)


@given(comment_texts)
@EXAMPLES
def test_comments_read_in_c_are_read_as_python_reads_them(c: SimpleNamespace, comment: str) -> None:
    found = c.build.notes(comment, Frame, FRAME_FIELDS)
    assert (found is not None) == plain(comment)
    if found is not None:
        assert annotations.Notes(*found) == annotations._read_notes(comment)


rows = st.lists(
    st.tuples(st.integers(0, 2**64 - 1), st.sampled_from(["movl", "call", "je", "nop"]),
              st.sampled_from(["", "%eax, %ebx", "0x1f"]), st.integers(1, 10**6)),
    max_size=6,
)
comment_lines = st.lists(
    st.tuples(st.sampled_from(["", " ", "\t", "  "]), comment_texts, st.sampled_from(["", " ", "\t"])).map("".join),
    min_size=1, max_size=4,
)


@pytest.mark.slow
@given(rows, st.data())
@EXAMPLES
def test_instructions_made_in_c_equal_pythons(c: SimpleNamespace, printed: list[Any], data: st.DataObject) -> None:
    indexes = data.draw(st.sets(st.integers(0, max(len(printed) - 1, 0)))) if printed else set()
    comments = {i: data.draw(comment_lines) for i in sorted(indexes)}
    made = native_calls.build(c, printed, comments)
    assert made == native_calls.python_build(printed, comments)


def method_start() -> list[str]:
    """The real lines of a method before its first instruction: its header and section table."""
    lines = gzip.decompress(JDK17.read_bytes()).decode().splitlines()
    start = next(i for i, text in enumerate(lines) if text.startswith("Compiled method ("))
    first = next(i for i in range(start, len(lines)) if lines[i].lstrip().startswith("0x"))
    return lines[start:first]


START = method_start()
hex_digits = st.text(alphabet="0123456789abcdefABCDEF", min_size=1, max_size=17)
instruction_lines = st.tuples(
    st.sampled_from(["  ", "\t", "", " \u00a0"]), hex_digits, st.sampled_from([":", ": ", ":\t", ":   ", ";  "]),
    st.sampled_from(["movl", "lock cmpxchg", "Movl", ".byte", "rep stos", "vmovdqu64", "callq", "ret", "j\u00e9"]),
    st.sampled_from(["", "\t", "\t%eax, %ebx", "\t0x8(%rsp),%r10 ", " %eax", "\t(%rdi)\t"]),
    st.sampled_from(["", " ;*getfield", ";{poll}", " ; - A::b@3 (line 4)", " ;;", "  ;"]),
).map(lambda parts: f"{parts[0]}0x{''.join(parts[1:])}")
other_lines = st.sampled_from([
    "  ;   {other}", "  ; - A::c@9", "  ;;  block B1 [0, 0]", ";", "", "   ", "[Verified Entry Point]",
    "[Stub Code]", "  # {method} {0x1} 'b' in 'A'", "Compiled method (c2) 1 2 4 A::b (5 bytes)", "[MachCode]",
    "[/MachCode]", "ImmutableOopMap {rsi=Oop }", "  ;\u00a0x", "-compiled nmethod", "--------------",
])


@pytest.mark.slow
@given(st.lists(st.one_of(instruction_lines, other_lines), max_size=24))
@EXAMPLES
def test_lines_scanned_in_c_give_the_methods_python_reads(c: SimpleNamespace, body: list[str]) -> None:
    lines = [*START, *body]

    def read(scan: Any) -> list[Any]:
        saved, reader.SCAN = reader.SCAN, scan
        try:
            return list(reader.Reader("x").numbered(enumerate(lines, 1)))
        finally:
            reader.SCAN = saved

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(builder, "BUILD", None)
        assert read(c.scan.scan) == read(None)


TAG_PIECES = [
    "<", ">", "</", "/>", "<task", "<a:b.c-d", "<_1", "<1a", " id='1'", ' k = "v"', " k=v", "k='&amp;'",
    " x='&lt;init&gt;'", " y='&#65;&#x42;'", " z='&#0;'", " w='&bogus;'", "='", "'", '"', " ", "\t", "\x0b", "\x1c",
    "method='A b ()V'", "\u00e9", "=", "&",
]


@given(st.lists(st.one_of(st.sampled_from(TAG_PIECES), st.text(alphabet="<>/='\" \tab_.:-&;#0", max_size=6)),
                max_size=16).map("".join))
@EXAMPLES
def test_markup_read_in_c_is_read_as_python_reads_it(c: SimpleNamespace, line: str) -> None:
    found = c.tags.tags(line, Tag, unescape)
    assert (found is None) == (not line.isascii())
    if found is not None:
        assert found == logxml._tags(line)


LOG_LINES = gzip.decompress(LOG.read_bytes()).split(b"\n")
TASK_LINES = [line for line in LOG_LINES if line.lstrip().startswith(b"<")]
junk_lines = st.sampled_from([b"", b"junk <", b"<task", b"< task id='1'>", b"<bc code='182' bci='5'/> <call", b"\xff"])


def collected(data: bytes, number: int, start: int, stop: int) -> Any:
    """The records `inline.collect` gathers from `data[start:stop]` and the number it gives, or its error."""
    traps, inlines = logxml.TrapCollector(), inline.InlineCollector()
    try:
        last = inline.collect((traps, inlines), data, number, start, stop)
    except Exception as exc:
        return type(exc).__name__
    return traps.traps, inlines.inlines, inlines.tasks, last


@given(st.lists(st.one_of(st.sampled_from(TASK_LINES), junk_lines), max_size=30), st.data())
@EXAMPLES
def test_records_collected_in_c_equal_pythons(c: SimpleNamespace, lines: list[bytes], data: st.DataObject) -> None:
    text = b"".join(line + b"\n" for line in lines)
    bounds = [0, *itertools.accumulate(len(line) + 1 for line in lines)]
    start = data.draw(st.sampled_from(bounds))
    stop = data.draw(st.sampled_from([b for b in bounds if b >= start] + [len(text) + 5]))
    number = data.draw(st.integers(0, 10**6))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(inline, "COLLECT", None)
        want = collected(text, number, start, stop)
        patch.setattr(inline, "COLLECT", c.tags.collect)
        assert collected(text, number, start, stop) == want


# AddressSanitizer


def sanitizer_runtime() -> tuple[str, tuple[str, ...]]:
    """The AddressSanitizer runtime to preload and the flags that build with it (with UndefinedBehaviorSanitizer
    where the compiler has it too), or a skip when the compiler has no AddressSanitizer."""
    cc = compiler()
    runtime = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(runtime) or not os.path.exists(runtime):
        pytest.skip(f"{cc} has no AddressSanitizer runtime (libasan.so) to preload into the interpreter")
    for flags in ((*SANITIZED, *UNDEFINED), SANITIZED):
        probe = subprocess.run([cc, *flags, "-shared", "-fPIC", "-x", "c", "-", "-o", os.devnull],
                               input="int probe(void) { return 0; }\n", capture_output=True, text=True)
        if probe.returncode == 0:
            return runtime, flags
    pytest.skip(f"{cc} does not build with -fsanitize=address")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
def test_real_inputs_and_odd_calls_run_clean_under_address_sanitizer(tmp_path: Path) -> None:
    runtime, flags = sanitizer_runtime()
    folder = build_all(tmp_path / "asan", flags)
    env = {
        "LD_PRELOAD": runtime, "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0",
        "UBSAN_OPTIONS": "print_stacktrace=1", "PYTHONMALLOC": "malloc",  # each object its own allocation
    }
    got, done = run_calls(folder, "--workload", env=env)
    assert "ERROR: AddressSanitizer" not in done.stderr, done.stderr[-5000:]
    assert "runtime error:" not in done.stderr, done.stderr[-5000:]
    assert done.returncode == 0, crashed(got, done)
    workload = json.loads(done.stdout.splitlines()[0])["workload"]
    assert workload > 20  # records of the inputs and trap lists of the logs
    assert {one.name: got[one.name] in one.expected for one in CASES} == {one.name: True for one in CASES}
