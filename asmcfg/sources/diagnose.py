"""Say what an input looks like when no HotSpot method is found in it, and word the not-found errors.

The recognisers are pure functions over a sample of the input's first lines (decoded text, line endings
removed). Each returns a Diagnosis naming the line that gave the input away, or None; `explain` tries them
from the most specific to the least and falls back to the generic message. Every message ends with what to
do, in parentheses. `sample_input` is the one impure function here: on the error path the stream has been used
up, so it takes the first lines sources kept of the input, or reads them again from the file.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from asmcfg.errors import AsmcfgError
from asmcfg.sources.lines import STDIN, display_name, read_lines

SAMPLE_LINES = 400
"""How many lines of the input the recognisers look at."""
_SAMPLE_CHARS = 65536

GENERIC = (
    "no HotSpot compiled method found: is this PrintAssembly output? (see asmcfg --help for the supported formats)"
)
_WANT = "asmcfg reads what the JVM prints with -XX:+UnlockDiagnosticVMOptions -XX:+PrintAssembly; see asmcfg --help"


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """What the input looks like, and the line that shows it."""

    message: str
    """One line: what is wrong, then what to do in parentheses."""
    line: int = 0
    """1-based line of the sample that gave it away; 0 for the input as a whole."""


Recogniser = Callable[[Sequence[str]], Diagnosis | None]


def _first(sample: Sequence[str], pattern: re.Pattern[str]) -> int:
    """1-based number of the first line matching `pattern`, or 0."""
    return next((n for n, line in enumerate(sample, 1) if pattern.search(line)), 0)


def _count(sample: Sequence[str], pattern: re.Pattern[str]) -> int:
    return sum(1 for line in sample if pattern.search(line))


def blank(sample: Sequence[str]) -> Diagnosis | None:
    """Only whitespace."""
    if sample and not any(line.strip() for line in sample):
        return Diagnosis("input holds only blank lines: no HotSpot output to read (see asmcfg --help)")
    return None


_MAGIC = (
    ("\x7fELF", "this is an ELF binary, not a log (run the JVM with -XX:+UnlockDiagnosticVMOptions "
                "-XX:+PrintAssembly and give asmcfg what it prints)"),
    ("FLR\x00", "this is a JFR recording, which holds no machine code (give asmcfg the text -XX:+PrintAssembly "
                "prints)"),
    ("PK\x03\x04", "this is a zip archive (unpack it first: asmcfg itself decompresses .gz, .xz and .bz2 only)"),
    ("(\ufffd/\ufffd", "this looks like a zstd archive (unpack it first: asmcfg itself decompresses .gz, .xz "
                       "and .bz2 only)"),
)


def _head_chars(sample: Sequence[str]) -> str:
    """The start of the sample as one string, at most _SAMPLE_CHARS long whatever its lines' lengths."""
    parts: list[str] = []
    size = 0
    for line in sample:
        if size >= _SAMPLE_CHARS:
            break
        parts.append(line[: _SAMPLE_CHARS - size])
        size += len(parts[-1]) + 1
    return "\n".join(parts)


def binary(sample: Sequence[str]) -> Diagnosis | None:
    """Known binary formats, UTF-16 text, and bytes that are not text at all."""
    if not sample:
        return None
    for magic, message in _MAGIC:
        if sample[0].startswith(magic):
            return Diagnosis(message, 1)
    text = _head_chars(sample)
    if not text:
        return None
    nuls = text.count("\x00")
    if nuls > len(text) * 0.3 and sum(c.isascii() and c.isalnum() for c in text) > len(text) * 0.2:
        return Diagnosis("this looks like UTF-16 text, as Windows PowerShell's > writes it (convert it to UTF-8 "
                         "first, e.g. iconv -f UTF-16 -t UTF-8)", 1)
    odd = sum(1 for c in text if c == "\ufffd" or (c < " " and c not in "\t\f\v\x1b") or c == "\x7f")
    if odd > len(text) * 0.1 or nuls > 2:
        return Diagnosis("this looks like binary data, not text (give asmcfg the text the JVM prints; "
                         ".gz, .xz and .bz2 files are decompressed)", 1)
    return None


_OBJDUMP_FORMAT = re.compile(r":\s+file format \S+\s*$|^Disassembly of section \S+:")
_OBJDUMP_CODE = re.compile(r"^\s*[0-9a-f]+:\t(?:[0-9a-f]{2} )*\s*\t?[a-z]|^[0-9a-f]{8,16} <[^>]+>:$")


def objdump(sample: Sequence[str]) -> Diagnosis | None:
    """`objdump -d` output: the `file format` banner, section titles, `  addr:\\tbytes\\tinsn` lines."""
    line = _first(sample, _OBJDUMP_FORMAT)
    if not line and _count(sample, _OBJDUMP_CODE) >= 3:
        line = _first(sample, _OBJDUMP_CODE)
    if not line:
        return None
    return Diagnosis(f"this looks like objdump output, not HotSpot's ({_WANT})", line)


_GDB_BANNER = re.compile(r"^Dump of assembler code for function |^End of assembler dump\.")
_GDB_CODE = re.compile(r"^(?:=>)?\s*0x[0-9a-fA-F]+ <[^>]*>:\s")
_LLDB_CODE = re.compile(r"^(?:->)?\s*0x[0-9a-fA-F]+ <\+\d+>:\s|^(?=\S+:$)\S+`\S+:$")
"""The lookahead first checks the whole line, so a line of backticks is not split at each of them in turn."""


def debugger(sample: Sequence[str]) -> Diagnosis | None:
    """gdb's `disassemble` or `x/i`, and lldb's `disassemble`."""
    line = _first(sample, _GDB_BANNER) or (_first(sample, _GDB_CODE) if _count(sample, _GDB_CODE) >= 2 else 0)
    if line:
        return Diagnosis(f"this looks like gdb disassembly, not HotSpot's ({_WANT})", line)
    if _count(sample, _LLDB_CODE) >= 2:
        return Diagnosis(f"this looks like lldb disassembly, not HotSpot's ({_WANT})", _first(sample, _LLDB_CODE))
    return None


_PERF_SAMPLE = re.compile(r"^\s*\S(?:.*?\S)??\s+\d+(?:/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:\s+(?:\d+\s+)?[\w.:-]+:")
_PERF_FRAME = re.compile(r"^\s+[0-9a-f]+ (?=.*\)$).+ \(.*\)$")
"""Both linear on any line: a sample's command ends at a non-blank (not inside a run of blanks, each of which would
scan the rest of the run), and a frame's closing `)` is checked once before its ` (` is looked for."""
_PERF_REPORT = re.compile(r"^# Samples: \d|^# Overhead\s+Command|^# Event count \(approx\.\)")
_PERF_ANNOTATE = re.compile(r"Source code & Disassembly of ")
_PERF_HINT = "asmcfg needs the JIT's code: use JMH -prof perfasm, or -XX:+PrintAssembly"


def perf(sample: Sequence[str]) -> Diagnosis | None:
    """`perf script`, `perf report` and `perf annotate` text."""
    line = _first(sample, _PERF_ANNOTATE)
    if line:
        return Diagnosis(f"this looks like perf annotate output, which has no HotSpot method headers ({_PERF_HINT})",
                         line)
    line = _first(sample, _PERF_REPORT)
    if line:
        return Diagnosis(f"this looks like perf report output: samples, not code ({_PERF_HINT})", line)
    if _count(sample, _PERF_SAMPLE) >= 1 and _count(sample, _PERF_SAMPLE) + _count(sample, _PERF_FRAME) >= 3:
        return Diagnosis(f"this looks like perf script output: samples, not code ({_PERF_HINT})",
                         _first(sample, _PERF_SAMPLE))
    return None


_ENTITY = re.compile(r"&(?:lt|gt|amp|apos|quot|#\d+|#x[0-9a-fA-F]+);")
_HOTSPOT = re.compile(
    r"Compiled method \(|Decoding compiled method|\[Disassembly\]|\[(?:Verified )?Entry Point\]|# \{method\}"
    r"|^\s*0x[0-9a-fA-F]+:\s+[a-z]"
)
_XML_LOG = re.compile(r"<hotspot_log\b")


def xml_escaped(sample: Sequence[str]) -> Diagnosis | None:
    """PrintAssembly text as LogCompilation stores it (`&lt;init&gt;`, `&apos;`), without the log around it."""
    if _first(sample, _XML_LOG) or not _first(sample, _HOTSPOT):
        return None
    line = _first(sample, _ENTITY)
    if not line:
        return None
    return Diagnosis(
        "this looks like XML-escaped PrintAssembly text cut out of a -XX:+LogCompilation file (give asmcfg the "
        "whole XML log, or the plain PrintAssembly output the JVM writes to stdout)", line)


def log_without_code(sample: Sequence[str]) -> Diagnosis | None:
    """A LogCompilation XML log recorded without PrintAssembly."""
    line = _first(sample, _XML_LOG)
    if not line or _first(sample, _HOTSPOT):
        return None
    return Diagnosis("this -XX:+LogCompilation log holds no PrintAssembly output (add -XX:+PrintAssembly, or "
                     "-XX:CompileCommand=print,Class::method, to the run that writes it)", line)


_JMH = re.compile(r"^# JMH version: |^# Benchmark: |^Benchmark\s+Mode\s+Cnt\s+Score")
_PERFASM = re.compile(r"\[Hottest Region|PrintAssembly processed")


def jmh(sample: Sequence[str]) -> Diagnosis | None:
    """JMH console output from a run without -prof perfasm."""
    line = _first(sample, _JMH)
    if not line or _first(sample, _PERFASM):
        return None
    return Diagnosis("this looks like JMH console output without assembly (run the benchmark with -prof perfasm, "
                     "or with -jvmArgsAppend '-XX:+UnlockDiagnosticVMOptions -XX:+PrintAssembly')", line)


_JVM_FAILURES = (
    (re.compile(r"Could not load hsdis-[\w.-]*"), "the JVM could not load hsdis, so PrintAssembly printed no code",
     "put the hsdis library for your architecture in the JDK's lib/server folder, or use a JDK that prints "
     "[MachCode] hex without it"),
    (re.compile(r"VM option '\w+' is diagnostic and must be enabled"), "the JVM refused a diagnostic option",
     "put -XX:+UnlockDiagnosticVMOptions before -XX:+PrintAssembly"),
    (re.compile(r"Unrecognized VM option '[^']*'"), "the JVM did not start", "check the spelling of the -XX flags"),
    (re.compile(r"Could not find or load main class \S+"), "the Java program did not run",
     "check the class path and the class name"),
    (re.compile(r"Could not create the Java Virtual Machine"), "the JVM did not start",
     "read its own error message in the input and fix the java command line"),
    (re.compile(r"A fatal error has been detected by the Java Runtime Environment"),
     "this is a JVM crash report (hs_err), not PrintAssembly output", "give asmcfg what -XX:+PrintAssembly prints"),
)


def jvm_failure(sample: Sequence[str]) -> Diagnosis | None:
    """The JVM's own complaints: hsdis missing, options refused, no main class, a crash report."""
    for pattern, what, todo in _JVM_FAILURES:
        for number, text in enumerate(sample, 1):
            match = pattern.search(text)
            if match:
                return Diagnosis(f"{what}: {match.group(0)!r} ({todo})", number)
    return None


_OPTO = re.compile(r"^\s*[0-9a-f]{3,}\s+B\d+: #")


def opto_assembly(sample: Sequence[str]) -> Diagnosis | None:
    """C2's own listing from -XX:+PrintOptoAssembly (`000   B1: #  out( B2 ) ...`)."""
    line = _first(sample, _OPTO)
    if not line:
        return None
    return Diagnosis("this looks like -XX:+PrintOptoAssembly output, C2's own listing, which asmcfg does not read "
                     "(use -XX:+PrintAssembly with hsdis instead)", line)


_HEADER = re.compile(r"Compiled method \([\w/]+\)\s+\d|Decoding compiled method 0x[0-9a-fA-F]")
"""A header as HotSpot prints it (a timestamp after `Compiled method (c2)`, an address after `Decoding compiled
method`), not the words quoted in prose."""


def headers_without_code(sample: Sequence[str]) -> Diagnosis | None:
    """Method headers with no instruction under any of them."""
    line = _first(sample, _HEADER)
    if not line:
        return None
    return Diagnosis("a compiled-method header but no instructions under it (the output is cut short, or the JVM "
                     "printed no code: see asmcfg --help)", line)


_MARKDOWN = re.compile(r"^(?:#{1,6} \S|```|\|.*\|\s*$|\[[^\]]+\]\([^)]+\))")
_MARKDOWN_LINES = 3


def markdown(sample: Sequence[str]) -> Diagnosis | None:
    """Prose: Markdown headings, fences, tables and links (a README given as input)."""
    lines = [n for n, text in enumerate(sample, 1) if _MARKDOWN.search(text)]
    if len(lines) < _MARKDOWN_LINES:
        return None
    return Diagnosis("no HotSpot assembly found: this looks like Markdown text, not JVM output (give "
                     "asmcfg what the JVM prints with -XX:+PrintAssembly; see asmcfg --help)", lines[0])


RECOGNISERS: tuple[Recogniser, ...] = (
    blank, binary, xml_escaped, log_without_code, perf, objdump, debugger, opto_assembly, jvm_failure, jmh,
    headers_without_code, markdown,
)
"""In the order they are tried: the first that recognises the sample wins."""


def explain(sample: Sequence[str]) -> Diagnosis:
    """What the input looks like, for an input with no HotSpot method in it."""
    for recognise in RECOGNISERS:
        found = recognise(sample)
        if found is not None:
            return found
    return Diagnosis(GENERIC)


def sample_input(source: str, limit: int = SAMPLE_LINES) -> list[str]:
    """The first `limit` lines of the input named `source`, read again from the file (never from a pipe or
    device, which would block or give nothing: a caller that read one passes the lines it kept instead)."""
    if source == display_name(STDIN) or not os.path.isfile(source):
        return []
    lines = read_lines(source)
    try:
        return [line.text for line in itertools.islice(lines, limit)]
    except AsmcfgError:
        return []
    finally:
        lines.close()
