"""Rebuild the bad-input files in tests/bad/ from real dumps and real tool output.

Run `python tests/bad/generate.py` from the repository root. Mutations of HotSpot dumps start from methods of
tests/data/hsdis; the LogCompilation and JMH samples come from the read-only corpus (/work/shared/corpus, or
$ASMCFG_CORPUS); objdump, gdb, perf and java are run on this machine. A source that is missing leaves the
committed file as it is. The expected exit code and message of each case live in cases.json, not here.
"""

from __future__ import annotations

import gzip
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data" / "hsdis"
CORPUS = Path(os.environ.get("ASMCFG_CORPUS", "/work/shared/corpus"))
SWITCHES = DATA / "jdk17-Switches-print-hsdis-att.txt.gz"
TENSOR = DATA / "jdk17-Tensor4D-print-hsdis-att.txt.gz"
SEED = 20240611
_INSTRUCTION = re.compile(r"^\s+0x[0-9a-f]+:\s+[a-z]")


def dump_lines(path: Path) -> list[str]:
    """The lines of a copied corpus dump, without line endings."""
    with gzip.open(path, "rt", encoding="utf-8", errors="surrogateescape") as handle:
        return handle.read().split("\n")


def method(path: Path, header: str) -> list[str]:
    """The first C2 method whose header holds `header`, as printed: its banner, header, up to `[/Disassembly]`."""
    lines = dump_lines(path)
    start = next(n for n, line in enumerate(lines) if "Compiled method (c2)" in line and header in line)
    end = lines.index("[/Disassembly]", start)
    return lines[start - 3 : end + 1]


def text(lines: list[str], ending: str = "\n") -> bytes:
    """Lines joined and encoded as the JVM wrote them."""
    return (ending.join(lines) + ending).encode("utf-8", "surrogateescape")


def instruction_indexes(lines: list[str]) -> list[int]:
    """Indexes of the instruction lines."""
    return [n for n, line in enumerate(lines) if _INSTRUCTION.match(line)]


def dense() -> list[str]:
    """Switches::dense (C2, JDK 17): a tableswitch jump table, 64 instructions."""
    return method(SWITCHES, "Switches::dense")


def sparse() -> list[str]:
    """Switches::sparse (C2, JDK 17)."""
    return method(SWITCHES, "Switches::sparse")


def sum_diag() -> list[str]:
    """Tensor4D::sumDiag (C2, JDK 17): range checks, uncommon traps, a loop poll."""
    return method(TENSOR, "Tensor4D::sumDiag")


def non_utf8() -> bytes:
    """Invalid UTF-8 in the `# {method}` line, in a comment, and as a junk line inside the method."""
    lines = dense()
    data = text(lines)
    data = data.replace(b"'dense' '(II)I'", b"'d\xe9nse' '(II)I'", 1)
    data = data.replace(b";   {no_reloc}", b";   {no_reloc} \xff\xfe\xc3\x28", 1)
    marker = b"  0x00007f2eb0ec7a8c:"
    return data.replace(marker, b"\x80\x81 garbage \xc0\xaf\n" + marker, 1)


def truncated_instruction() -> bytes:
    """sumDiag cut in the middle of an instruction line, half-way through the method."""
    lines = sum_diag()
    cut = instruction_indexes(lines)[40]
    return text(lines[:cut]) + lines[cut][:30].encode()


def truncated_method() -> bytes:
    """sumDiag cut at the end of a line half-way through: no stubs, no `[/Disassembly]`."""
    lines = sum_diag()
    return text(lines[: instruction_indexes(lines)[60]])


def header_only() -> bytes:
    """A header and its section table, then `[Disassembly]` with no instruction under it."""
    lines = dense()
    return text([line for line in lines if not _INSTRUCTION.match(line) and not line.startswith("  # ")])


def duplicate_addresses() -> bytes:
    """Some instruction lines printed twice: at once, and one again further down."""
    lines = dense()
    rows = instruction_indexes(lines)
    out = list(lines)
    for n in sorted((rows[3], rows[10], rows[25]), reverse=True):
        out.insert(n + 1, lines[n])
    out.insert(rows[40], lines[rows[5]])
    return text(out)


def branch_outside() -> bytes:
    """A conditional branch and a jump whose targets lie outside every method."""
    data = text(dense())
    data = data.replace(b"jae\t\t0x7f2eb0ec7aad", b"jae\t\t0x7f2e00000010", 1)
    return data.replace(b"jmp\t\t0x7f2eb0ec7aaf\n", b"jmp\t\t0x7f2e00000020\n", 1)


def jump_table_unprinted() -> bytes:
    """The tableswitch `jmpq *(%r9, %r11)` with its constant-pool table not printed."""
    lines = dense()
    start = next(n for n, line in enumerate(lines) if line.startswith("[Constant Pool]"))
    end = next(n for n in range(start + 1, len(lines)) if lines[n].startswith("-----"))
    return text(lines[:start] + lines[end + 1 :])


def interleaved() -> bytes:
    """Two methods printed at once by two threads: their lines alternate in chunks of three."""
    first, second = dense(), sparse()
    out: list[str] = []
    for n in range(0, max(len(first), len(second)), 3):
        out += first[n : n + 3] + second[n : n + 3]
    return text(out)


def junk_inside() -> bytes:
    """One line inside the method that is not HotSpot's (for --strict)."""
    lines = dense()
    rows = instruction_indexes(lines)
    return text([*lines[: rows[8]], "this line was written by the program, not the JVM", *lines[rows[8] :]])


def crlf() -> bytes:
    """Switches::dense with Windows line endings."""
    return text(dense(), "\r\n")


def utf16() -> bytes:
    """Switches::dense saved as UTF-16 with a byte-order mark (what PowerShell's > writes)."""
    return "\n".join(dense()).encode("utf-16")


def gz_truncated() -> bytes:
    """A .gz copy of sumDiag cut short, as a file copied while still being written."""
    whole = gzip.compress(text(sum_diag()), mtime=0)
    return whole[: len(whole) * 2 // 3]


def gz_corrupt() -> bytes:
    """A .gz copy of sumDiag with bytes flipped in the middle of the compressed data."""
    data = bytearray(gzip.compress(text(sum_diag()), mtime=0))
    for n in range(len(data) // 2, len(data) // 2 + 8):
        data[n] ^= 0x5A
    return bytes(data)


def binary() -> bytes:
    """Random bytes."""
    return random.Random(SEED).randbytes(4096)


def _corpus_lines(relative: str) -> list[str] | None:
    path = CORPUS / relative
    if not path.exists():
        return None
    return path.read_text(encoding="utf-8", errors="surrogateescape").split("\n")


def xml_escaped() -> bytes | None:
    """One method's text copied out of a real LogCompilation log, down to just past its `</print_nmethod>`."""
    lines = _corpus_lines("hotspot/jdk17/Tensor4D/logcompilation-printassembly.xml")
    if lines is None:
        return None
    start = next(n for n, line in enumerate(lines) if line.startswith("Compiled method (c1)"))
    end = lines.index("</print_nmethod>", start)
    return text(lines[start : end + 6])


def xml_escaped_plain() -> bytes | None:
    """One method's XML-escaped text from the same log, without any tag (`Object::&lt;init&gt;`)."""
    lines = _corpus_lines("hotspot/jdk17/Tensor4D/logcompilation-printassembly.xml")
    if lines is None:
        return None
    start = next(n for n, line in enumerate(lines) if line.startswith("Compiled method (c1)"))
    end = lines.index("[/Disassembly]", start)
    return text(lines[start - 3 : end + 1])


def log_without_assembly() -> bytes | None:
    """The same LogCompilation log with the PrintAssembly text removed: its tags only, cut short."""
    lines = _corpus_lines("hotspot/jdk17/Tensor4D/logcompilation-printassembly.xml")
    if lines is None:
        return None
    tags = [line for line in lines if line.startswith("<")]
    return text([*tags[:160], "</tty>", "</hotspot_log>"])


def jmh_console() -> bytes | None:
    """The head of a real JMH console log from a run without -prof perfasm."""
    lines = _corpus_lines(
        "public/mmpataki__tensor.benchmark/observations__p1-baseline-and-jit-compilers__benchmark_output.txt"
    )
    return None if lines is None else text(lines[:40])


def _run(command: list[str]) -> str | None:
    if shutil.which(command[0]) is None:
        return None
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)
    return done.stdout + done.stderr


def objdump() -> bytes | None:
    """`objdump -d /bin/true`, the first 40 lines."""
    out = _run(["objdump", "-d", "/bin/true"])
    return None if out is None else text(out.split("\n")[:40])


def gdb() -> bytes | None:
    """`gdb -batch -ex 'disassemble main' /usr/bin/perl` (perl exports `main`; /bin/true has no symbols)."""
    out = _run(["gdb", "-batch", "-ex", "disassemble main", "/usr/bin/perl"])
    return None if out is None else text([*out.split("\n")[:30], "End of assembler dump."])


def perf(*report: str) -> Callable[[], bytes | None]:
    """`perf REPORT...` over a short `perf record -g` of python3, the first 45 lines."""

    def make() -> bytes | None:
        if shutil.which("perf") is None:
            return None
        with tempfile.TemporaryDirectory() as folder:
            data = str(Path(folder) / "perf.data")
            _run(["perf", "record", "-F", "999", "-g", "-o", data, "--", sys.executable, "-c", "sum(range(3**14))"])
            out = _run(["perf", *report, "-i", data])
        return None if not out else text(out.split("\n")[:45])

    return make


def elf() -> bytes | None:
    """The first 2 KiB of /bin/true."""
    path = Path("/bin/true")
    return path.read_bytes()[:2048] if path.exists() else None


def java_error(*flags: str) -> Callable[[], bytes | None]:
    """What `java FLAGS` prints when it refuses to run."""

    def make() -> bytes | None:
        out = _run(["java", *flags])
        return None if out is None else out.encode()

    return make


CASES: dict[str, Callable[[], bytes | None]] = {
    "empty.txt": lambda: b"",
    "whitespace.txt": lambda: b"  \n\t\n\r\n        \n\n\t \t\n",
    "binary.bin": binary,
    "non_utf8.txt": non_utf8,
    "truncated_instruction.txt": truncated_instruction,
    "truncated_method.txt": truncated_method,
    "crlf.txt": crlf,
    "lf.txt": lambda: text(dense()),
    "header_only.txt": header_only,
    "duplicate_addresses.txt": duplicate_addresses,
    "branch_outside.txt": branch_outside,
    "jump_table_unprinted.txt": jump_table_unprinted,
    "interleaved.txt": interleaved,
    "junk_inside.txt": junk_inside,
    "utf16.txt": utf16,
    "truncated.txt.gz": gz_truncated,
    "corrupt.txt.gz": gz_corrupt,
    "xml_escaped.txt": xml_escaped,
    "xml_escaped_plain.txt": xml_escaped_plain,
    "log_without_assembly.xml": log_without_assembly,
    "jmh_console.txt": jmh_console,
    "objdump.txt": objdump,
    "gdb.txt": gdb,
    "perf_script.txt": perf("script"),
    "perf_report.txt": perf("report", "--stdio"),
    "perf_annotate.txt": perf("annotate", "--stdio"),
    "elf.bin": elf,
    "java_locked_option.txt": java_error("-XX:+PrintAssembly", "-version"),
    "java_misspelt_option.txt": java_error("-XX:+UnlockDiagnosticVMOptions", "-XX:+PrintAssemby", "-version"),
    "java_no_main_class.txt": java_error("-cp", "/nonexistent", "NoSuchMain"),
}
"""Case file name -> how to build it (None: its source is not on this machine)."""


def main() -> None:
    """Write every case whose source is available; say which were kept as committed."""
    for name, make in CASES.items():
        data = make()
        if data is None:
            print(f"kept {name}: its source is not available here")
            continue
        (HERE / name).write_bytes(data)
        print(f"wrote {name} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
