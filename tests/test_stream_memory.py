"""Every input is read as a stream, in memory bounded whatever the count of its lines outside any method, in both
builds: tens of MB of real non-method lines (the VM's method data dump at exit, repeated) keep the peak of a run
far below what keeping them would take, with the Python readers and with the compiled build's C readers."""

from __future__ import annotations

import ast
import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from native import built

from asmcfg.dialects import annotations, builder
from asmcfg.dialects.hsdis import reader
from asmcfg.sources import split

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "tests" / "data" / "snippets"
METHOD = SNIPPETS / "jdk17-x86-Shapes-total-osr-c2.txt"
OUTSIDE = SNIPPETS / "jdk25-x86-Shapes-after-methods.txt"
"""What the VM printed after its last method: the program's output line and the method data dump at exit."""
JUNK_BYTES = 32 << 20
"""Bytes of lines outside any method in the large input: about 1.1 million lines."""
PEAK_MB = 120
"""Bound on a run's peak resident memory. Keeping each such line (its text, a tuple, a number: about 100 bytes
besides the text) takes over 200 MB more; a streaming run peaks near 30 MB."""
CHILD = """
import resource, sys
from importlib.machinery import ExtensionFileLoader
from importlib.util import module_from_spec, spec_from_file_location

def load(name, path):
    spec = spec_from_file_location(name, path, loader=ExtensionFileLoader(name, path))
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

scan, build, args = sys.argv[1], sys.argv[2], sys.argv[3:]
if scan:
    from asmcfg.dialects import annotations, builder
    from asmcfg.dialects.hsdis import reader
    reader.SCAN = load("asmcfg.dialects.hsdis._scan", scan).scan
    built = load("asmcfg.dialects._build", build)
    builder.BUILD, annotations.NOTES = built.instructions, built.notes
from asmcfg.cli import main
status = 0
try:
    main(args, prog_name="asmcfg")
except SystemExit as exit:
    status = exit.code
def own_peak():
    # VmHWM is this process's own: Linux carries ru_maxrss over an exec from the process that forked it (a test
    # runner grown large by other tests would be measured)
    with open("/proc/self/status") as status:
        for row in status:
            if row.startswith("VmHWM:"):
                return int(row.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

peak = max(own_peak(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.stderr.write(f"\\npeak-kb {peak} status {status}\\n")
"""
"""Runs the CLI, with the C readers loaded from the given paths when they are given, and reports the peak of
itself and its workers (ru_maxrss in KB on Linux)."""


@pytest.fixture(scope="module")
def large_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real method, 32 MB of real lines outside any method, the same method again."""
    path = tmp_path_factory.mktemp("large") / "outside.txt"
    method, outside = METHOD.read_bytes(), OUTSIDE.read_bytes()
    with path.open("wb") as out:
        out.write(method)
        for _ in range(JUNK_BYTES // len(outside)):
            out.write(outside)
        out.write(method)
    return path


@pytest.fixture(scope="module")
def c_readers(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """Paths of the compiled build's hsdis scanner and Instruction maker, built here when not installed."""
    if reader.SCAN is not None and builder.BUILD is not None and annotations.NOTES is not None:
        return "", ""  # the compiled build is installed: the child uses it as it is
    out = tmp_path_factory.mktemp("native")
    scan = built("asmcfg.dialects.hsdis._scan", Path(reader.__file__).with_name("_scan.c"), out)
    build = built("asmcfg.dialects._build", Path(builder.__file__).with_name("_build.c"), out)
    return str(scan.__file__), str(build.__file__)


def run(args: list[str], readers: tuple[str, str] = ("", "")) -> tuple[int, str, int]:
    """(exit status, stdout, peak resident memory in MB) of `asmcfg ARGS` in a fresh process."""
    status, out, _, peak = run_all(args, readers)
    return status, out, peak


def run_all(args: list[str], readers: tuple[str, str] = ("", "")) -> tuple[int, str, str, int]:
    """(exit status, stdout, stderr, peak resident memory in MB) of `asmcfg ARGS` in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *readers, *args], capture_output=True, text=True, cwd=ROOT, timeout=900
    )
    last = done.stderr.strip().splitlines()[-1].split()
    assert last[0] == "peak-kb", done.stderr[-2000:]
    return int(last[3]) if last[3] != "None" else 0, done.stdout, done.stderr, int(last[1]) // 1024


@pytest.mark.slow
def test_the_python_readers_list_a_large_input_in_bounded_memory(large_input: Path) -> None:
    status, out, peak = run([str(large_input), "--list"])
    assert status == 0
    assert out.count("Shapes::total") == 2
    assert peak < PEAK_MB


def test_the_c_readers_read_a_large_input_in_bounded_memory(large_input: Path, c_readers: tuple[str, str]) -> None:
    status, out, peak = run([str(large_input), "--json", "-"], c_readers)
    assert status == 0
    assert '"skipped_lines": []' in out  # the lines outside methods are no method's
    assert peak < PEAK_MB


@pytest.mark.slow
def test_a_compressed_large_input_streams_in_bounded_memory(
    large_input: Path, c_readers: tuple[str, str], tmp_path: Path
) -> None:
    packed = tmp_path / "outside.txt.gz"
    with large_input.open("rb") as source, gzip.open(packed, "wb", compresslevel=1) as out:
        while block := source.read(1 << 20):
            out.write(block)
    assert packed.stat().st_size < large_input.stat().st_size // 50
    status, out, peak = run([str(packed), "--list"], c_readers)
    assert status == 0
    assert out.count("Shapes::total") == 2
    assert peak < PEAK_MB


@pytest.fixture(scope="module")
def unended_input(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A real method with no end marker (a JDK 8 dump prints none), then 32 MB of what the program printed after
    it, all read as the method's lines; and how many of them are not understood."""
    path = tmp_path_factory.mktemp("unended") / "unended.txt"
    method, outside = METHOD.read_bytes().replace(b"[/Disassembly]\n", b""), OUTSIDE.read_bytes()
    copies = JUNK_BYTES // len(outside)
    with path.open("wb") as out:
        out.write(method)
        for _ in range(copies):
            out.write(outside)
    once = tmp_path_factory.mktemp("unended") / "once.txt"
    once.write_bytes(method + outside)
    status, out, _ = run([str(once), "--json", "-"])
    (skipped,) = [m["skipped_lines"] for m in json.loads(out)["methods"]]
    assert status == 0 and skipped  # the program's lines: after the method's own
    assert min(item["line"] for item in skipped) > method.count(b"\n")
    return path, copies * len(skipped)


@pytest.mark.slow
def test_a_method_with_no_end_keeps_its_first_skipped_lines_and_counts_them_all(
    unended_input: tuple[Path, int], c_readers: tuple[str, str]
) -> None:
    path, total = unended_input
    status, out, peak = run([str(path), "--json", "-"], c_readers)
    assert status == 0
    (method,) = json.loads(out)["methods"]
    assert len(method["skipped_lines"]) == builder.KEPT_SKIPPED
    assert method["skipped_lines_total"] == total > 1_000_000
    per_copy = total // (JUNK_BYTES // len(OUTSIDE.read_bytes()))  # skipped lines per copy of the program's lines
    last_copy = -(-builder.KEPT_SKIPPED // per_copy)  # the copy holding the last one kept
    method_lines = METHOD.read_bytes().count(b"\n") - 1
    assert method["skipped_lines"][-1]["line"] <= method_lines + last_copy * OUTSIDE.read_bytes().count(b"\n")
    assert peak < PEAK_MB  # keeping each skipped line took over 400 MB


@pytest.mark.slow
def test_the_summary_of_a_method_with_no_end_states_all_its_skipped_lines(unended_input: tuple[Path, int]) -> None:
    path, total = unended_input
    status, out, err, peak = run_all([str(path)])
    assert status == 0
    assert out.startswith("digraph")
    assert f"\n{total} lines inside the method were not understood and skipped (only the first 1000 are kept):\n" in err
    assert peak < PEAK_MB


COPIES = 2_000
"""Compilations in the input listed: copies of one real compilation (29 MB)."""
LIST_PEAK_MB = 100
"""Bound on the peak of listing them. Holding each whole compilation until the table is printed peaks near 200 MB
in either build; a small row per compilation, near 40 MB."""


@pytest.mark.slow
def test_a_listing_holds_a_small_row_per_compilation(tmp_path: Path, c_readers: tuple[str, str]) -> None:
    path = tmp_path / "many.txt"
    path.write_bytes(METHOD.read_bytes() * COPIES)
    for readers in (("", ""), c_readers):
        status, out, peak = run([str(path), "--list"], readers)
        assert status == 0
        rows = [line.split() for line in out.splitlines()[1:]]
        assert len(rows) == COPIES and all("Shapes::total" in row for row in rows)
        assert peak < LIST_PEAK_MB, readers


class Chunks:
    """A stream of `count` copies of `block`."""

    def __init__(self, block: bytes, count: int) -> None:
        self.block, self.left = block, count

    def read(self, size: int = -1, /) -> bytes:
        if not self.left:
            return b""
        self.left -= 1
        return self.block


@pytest.mark.slow
def test_the_cutter_cuts_text_without_method_starts_into_bounded_pieces() -> None:
    target = 1 << 16
    method, outside = METHOD.read_bytes(), OUTSIDE.read_bytes() * 512
    stream = Chunks(outside, 200)  # 230 MB of lines outside any method, after a method
    pieces = split.text_pieces(split.Peeked(method, stream), target)
    span = max(split.SPAN_TARGETS * target, split.MIN_SPAN)
    first = next(pieces)
    assert first.data.startswith(method) and first.data.endswith(b"[/Disassembly]\n")  # cut after the method's end
    line, offset, total = first.first_line + first.data.count(b"\n"), first.size, first.size
    for piece in pieces:
        assert piece.size <= span + split.CHUNK
        assert (piece.first_line, piece.offset) == (line, offset)
        assert piece.data.endswith(b"\n")
        line, offset, total = line + piece.data.count(b"\n"), offset + piece.size, total + piece.size
    assert total == len(method) + len(outside) * 200


COMPILED_CONSUMERS = frozenset({"all", "any", "Counter", "deque", "dict", "extend", "fromkeys", "frozenset", "join",
                                "list", "max", "min", "next", "set", "sorted", "sum", "tuple", "update"})
"""Calls that consume a generator expression given to them whole, where a list in its place changes nothing."""


def lazy_generator_expressions(path: Path) -> list[str]:
    """The generator expressions of a module not handed to a call that consumes them whole."""
    tree = ast.parse(path.read_text())
    parents: dict[ast.AST, ast.AST] = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.GeneratorExp):
            call: Any = parents[node]
            name = getattr(call.func, "id", getattr(call.func, "attr", None)) if isinstance(call, ast.Call) else None
            if name not in COMPILED_CONSUMERS:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_compiled_module_reads_input_through_a_generator_expression() -> None:
    # mypyc compiles a generator expression as a list: one over input lines would hold them all
    sys.path.insert(0, str(ROOT))
    try:
        import setup
    finally:
        sys.path.remove(str(ROOT))
    lazy = [where for name in setup.compiled_modules() for where in lazy_generator_expressions(ROOT / name)]
    assert {where.partition(":")[0] for where in lazy} <= BOUNDED


BOUNDED = {"asmcfg/cfg/build.py"}
"""Compiled modules whose lazy generator expressions run over one method's data, never over input lines."""


@pytest.fixture(scope="module")
def unended_method(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real LogCompilation log whose printed method never ends: its `</print_nmethod>` comes only after 32 MB of
    real lines outside any method (XML-escaped, as the JVM writes them into `<tty>`), in the same thread."""
    from xml.sax.saxutils import escape

    lines = gzip.decompress((ROOT / "tests" / "data" / "logc" / "jdk17-Eq-inlined-trap.xml.gz").read_bytes())
    text = lines.decode().split("\n")
    end = text.index("</print_nmethod>")
    junk = escape(OUTSIDE.read_text())
    path = tmp_path_factory.mktemp("unended") / "unended.xml"
    path.write_text("\n".join([*text[: end - 1], junk * (JUNK_BYTES // len(junk)), *text[end:]]))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("mode", [["--json", "-"], ["--jsonl", "-"]], ids=["one-method", "jsonl"])
def test_a_method_that_never_ends_is_read_in_bounded_memory(unended_method: Path, mode: list[str]) -> None:
    # the thread's pending text is read as the method once 8 MB follow its last instruction line: holding it all
    # peaked at 334 MB (one method) and 309 MB (--jsonl)
    status, out, peak = run([str(unended_method), "--compile-id", "3", *mode, "-q"])
    assert status == 0
    record = json.loads(out) if mode[0] == "--json" else json.loads(out.splitlines()[0])
    method = record["methods"][0] if mode[0] == "--json" else record
    assert method["compile_id"] == 3 and method["name"] == "Eq::check"
    assert peak < PEAK_MB + 40, peak
