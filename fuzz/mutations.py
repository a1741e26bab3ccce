"""Mutations of real dumps, and the seeds they start from: shared by tests/test_fuzz.py and fuzz/fuzz.py.

A mutation takes the lines of a dump (bytes, without their newlines) and a random.Random, and gives new lines:
line deletions, duplications, truncations, byte flips, shuffled comment lines, inserted junk and swapped runs,
and the crafted ones of fuzz/hostile.py (long lines, huge numbers, bad character references, control and bidi
characters in names). Seeds are windows of real dumps that each hold at least one method asmcfg reads.
"""

from __future__ import annotations

import gzip
import itertools
import random
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import hostile

from asmcfg import dialects
from asmcfg.errors import AsmcfgError
from asmcfg.run.pipeline import open_input

SEED_HEAD = 200
"""Lines in which a LogCompilation log's `<tty>` must appear for seeds to be cut from it element by element."""

JUNK: tuple[bytes, ...] = (
    b"",
    b"\x00\x01\x02\xff\xfe\xfd",
    b"\xc3\x28 \xa0\xa1 \xf0\x28\x8c\x28",
    b"<script>alert(1)</script>",
    b'"]; evil [label="',
    b"{}{{}}}{",
    b"\\\\ \\l \\N \\G \\",
    b"&amp; &lt; &gt; &nbsp; &#60; &foo;",
    b"\x1b[31mred\x1b[0m \x07 \x7f",
    b"  0x",
    b"  0x00007f0000000000:   ",
    b"  0x00007f0000000000:   jmp\t\t0x7f0000000000",
    b"  0x00007f0000000000:   jae\t\t0xffffffffffffffff",
    b"  0x00007f0000000000:   jmpq\t\t*(%r9, %r11)",
    b"  0x00007f0000000000:   callq\t\t0x7f00   ;   {runtime_call UncommonTrapBlob}",
    b"  0x00007f0000000000:   testl\t\t%eax, (%r11)        ;   {poll}",
    b"  0x00007f0000000000:   movl\t\t$0xffffffe4, %esi",
    b"  0x00007f0000000000:   m" + b"A" * 300,
    b"  0x00007f0000000000: 4881 ec18 0000 0048 896c 2410",
    b"  ;   {runtime_call \"]; x [label=\"<b>&amp;</b>}",
    b"  ; - Foo::\"bar\"@3 (line 4)",
    b"  ;*invokevirtual <script>{}&lt;",
    b"  ; implicit exception: dispatches to 0x00007f0000000000",
    b"Compiled method (c2)      59   12       4       Evil\"]::<x> (1 bytes)",
    b"Compiled method (c1)      1 2 ",
    b"Compiled method (c2)      59   12       4       Evil::[/x][bold]m[/] (1 bytes)",
    b"  ; - Evil::[/x][link=file:///etc/passwd]m@3 (line 4)",
    b"Decoding compiled method 0x00007f0000000000:",
    b"[Disassembly]",
    b"[/Disassembly]",
    b"[Constant Pool]",
    b"  0x00007f0000000000:   0xb0ec7acf      0x00007f0000000000",
    b"[Verified Entry Point]",
    b"[Entry Point]",
    b"[Exception Handler]",
    b"[Stub Code]",
    b"[MachCode]",
    b"[/MachCode]",
    b"<tty>",
    b"</tty>",
    b"<writer thread='1'/>",
    b"<print_nmethod compile_id='1' compiler='c2' level='4'>",
    b"</print_nmethod>",
    b"<nmethod compile_id='1' compiler='c2' level='4' entry='0x0' size='1'/>",
    b"<hotspot_log version='160 1'>",
    b"....[Hottest Region 1]....................................................",
    b"c2, level 4, Foo::bar, version 1, compile id 1",
    b"  4.35%   0x00007f0000000000:   jmp 0x00007f0000000000",
    b"\r",
    b"\t\t\t\t",
    b" " * 200,
)
"""Lines worth inserting: broken instruction lines, markers out of place, injection attempts, binary."""

_COMMENT = re.compile(rb"^\s*[;#]")


Lines = list[bytes]
Mutation = Callable[[Lines, random.Random], Lines]


def _span(lines: Lines, rng: random.Random, longest: int = 8) -> tuple[int, int]:
    start = rng.randrange(len(lines))
    return start, min(len(lines), start + rng.randint(1, longest))


def delete(lines: Lines, rng: random.Random) -> Lines:
    """Remove a run of lines."""
    start, end = _span(lines, rng)
    return lines[:start] + lines[end:]


def duplicate(lines: Lines, rng: random.Random) -> Lines:
    """Print a run of lines again, in place or elsewhere."""
    start, end = _span(lines, rng)
    at = end if rng.random() < 0.5 else rng.randrange(len(lines) + 1)
    return lines[:at] + lines[start:end] + lines[at:]


def truncate(lines: Lines, rng: random.Random) -> Lines:
    """Cut the input at a byte, often in the middle of a line."""
    data = b"\n".join(lines)
    return data[: rng.randrange(len(data) + 1)].split(b"\n")


def flip(lines: Lines, rng: random.Random) -> Lines:
    """Flip a few bits or replace a few bytes anywhere."""
    data = bytearray(b"\n".join(lines))
    for _ in range(rng.randint(1, 6)):
        if data:
            n = rng.randrange(len(data))
            data[n] = data[n] ^ (1 << rng.randrange(8)) if rng.random() < 0.7 else rng.randrange(256)
    return bytes(data).split(b"\n")


def shuffle_comments(lines: Lines, rng: random.Random) -> Lines:
    """Move the comment lines (`;` continuation lines, `#` lines) among their own places."""
    places = [n for n, line in enumerate(lines) if _COMMENT.match(line)]
    moved = [lines[n] for n in places]
    rng.shuffle(moved)
    out = list(lines)
    for n, line in zip(places, moved, strict=True):
        out[n] = line
    return out


def junk(lines: Lines, rng: random.Random) -> Lines:
    """Insert a nasty line, or random bytes, or glue one into the middle of an existing line."""
    piece = rng.choice(JUNK) if rng.random() < 0.8 else rng.randbytes(rng.randint(1, 40))
    at = rng.randrange(len(lines) + 1)
    if rng.random() < 0.3 and at < len(lines):
        cut = rng.randrange(len(lines[at]) + 1)
        return [*lines[:at], lines[at][:cut] + piece + lines[at][cut:], *lines[at + 1 :]]
    return [*lines[:at], piece, *lines[at:]]


def swap(lines: Lines, rng: random.Random) -> Lines:
    """Exchange two runs of lines, as two threads writing at once would."""
    a, b = sorted((_span(lines, rng, 4), _span(lines, rng, 4)))
    if a[1] > b[0]:
        return lines
    return lines[: a[0]] + lines[b[0] : b[1]] + lines[a[1] : b[0]] + lines[a[0] : a[1]] + lines[b[1] :]


MUTATIONS: tuple[Mutation, ...] = (
    delete, duplicate, truncate, flip, shuffle_comments, junk, swap,
    hostile.long_line, hostile.huge_number, hostile.bad_reference, hostile.control_in_name,
)


def mutate(data: bytes, rng: random.Random, rounds: int, longest: int = hostile.LONG_MAX) -> bytes:
    """`data` after `rounds` randomly chosen mutations; no long line is longer than `longest` bytes."""
    lines = data.split(b"\n")
    for _ in range(rounds):
        if lines:
            mutation = rng.choice(MUTATIONS)
            lines = hostile.long_line(lines, rng, longest) if mutation is hostile.long_line else mutation(lines, rng)
    return b"\n".join(lines)


def read_bytes(path: Path) -> bytes:
    """A file's bytes, decompressed when it is gzip."""
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def dialect_of(data: bytes) -> str:
    """The dialect asmcfg's sniffer picks for these bytes."""
    head = data.split(b"\n", dialects.SAMPLE_LINES)[: dialects.SAMPLE_LINES]
    return dialects.choose([line.decode("utf-8", "replace").rstrip("\r") for line in head]).name


def methods_in(data: bytes, folder: Path) -> int:
    """How many methods the library reads from `data` (0 on an AsmcfgError)."""
    path = folder / "seed.txt"
    path.write_bytes(data)
    try:
        return sum(1 for _ in open_input(str(path)).methods)
    except AsmcfgError:
        return 0


def windows(data: bytes, folder: Path, step: int = 150, limit: int = 6000) -> Iterable[bytes]:
    """Seeds cut from one file, each holding a method: the shortest prefixes with one and with three methods,
    then each C2 method on its own (for a LogCompilation log: the log's head, that method's element, the end)."""
    lines = data.split(b"\n")
    for wanted in (1, 3):
        ends = range(step, min(len(lines), limit) + step, step)
        prefix = next((lines[:end] for end in ends if methods_in(b"\n".join(lines[:end]), folder) >= wanted), None)
        if prefix is not None:
            yield b"\n".join(prefix)
    for window in _c2_windows(lines, limit):
        if methods_in(window, folder):
            yield window


def _c2_windows(lines: Lines, limit: int) -> Iterable[bytes]:
    if any(line.startswith(b"<tty>") for line in lines[:SEED_HEAD]):
        head = lines[: next(n for n, line in enumerate(lines) if line.startswith(b"<tty>")) + 1]
        starts = [n for n, line in enumerate(lines) if line.startswith(b"<print_nmethod") and b"'c2'" in line]
        for start in starts:
            writer = next((lines[n] for n in range(start, -1, -1) if lines[n].startswith(b"<writer")), b"")
            end = next((n for n in range(start, len(lines)) if lines[n].startswith(b"</print_nmethod")), len(lines))
            if end - start <= limit:
                task = _task_of(lines, lines[start])
                yield b"\n".join([*head, writer, *lines[start : end + 1], b"</tty>", *task, b"</hotspot_log>"])
        return
    starts = [n for n, line in enumerate(lines) if b"Compiled method (c2)" in line]
    for start, end in itertools.pairwise([*starts, len(lines)]):
        if end - start <= limit:
            yield b"\n".join(lines[max(0, start - 3) : end])


def _task_of(lines: Lines, print_line: bytes) -> Lines:
    """The compiler's `<task>` element (with its `<uncommon_trap>` records) of the compile id being printed."""
    match = re.search(rb"compile_id='(\d+)'", print_line)
    if match is None:
        return []
    opening = b"<task compile_id='" + match.group(1) + b"'"
    start = next((n for n, line in enumerate(lines) if line.startswith(opening)), None)
    if start is None:
        return []
    end = next((n for n in range(start, len(lines)) if lines[n].startswith(b"</task>")), len(lines) - 1)
    return [b"<compilation_log thread='0'>", *lines[start : end + 1], b"</compilation_log>"]


def corpus_files(*roots: Path) -> list[Path]:
    """Dump files under `roots`: every regular file but notes, tables and compressed archives we cannot read."""
    skip = {".md", ".json", ".jsonl", ".py", ".xz"}
    return sorted(p for root in roots if root.exists() for p in root.rglob("*") if p.is_file() and p.suffix not in skip)
