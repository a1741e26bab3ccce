"""Differential test, in the spirit of pyelftools against readelf: hex decoded by asmcfg against hsdis's own text.

The hsdis and no-hsdis files of one program and JDK come from two runs. A compilation with the same header
(compiler, compile id, method, OSR bci) and the same `main code` size in both is usually the same machine
code, so capstone over the hex must give hsdis's mnemonics, and the two graphs must have the same shape.
Where the two runs really produced different code, or hsdis could not decode it, the first difference is
pinned below with the evidence, so that any other difference fails.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from asmcfg.model import Method
from asmcfg.run.pipeline import analyse_method, open_input
from asmcfg.sources.lines import read_lines

DATA = Path(__file__).parent / "data"
HEX_FILES = sorted(p.name for p in (DATA / "nohsdis").glob("*print-nohsdis*"))
CHUNK = 4
_ALIASES = {"callq": "call", "retq": "ret", "jmpq": "jmp", "movz": "mov", "movn": "mov"}
_HEADER = re.compile(r"Compiled method \((\w+)\)\s+\d+\s+(\d+)")
_MAIN = re.compile(r"^\s*main code\s+\[0x[0-9a-f]+,0x[0-9a-f]+\]\s*=\s*(\d+)")

EVEX = "capstone 4.0.2 in the hsdis build cannot decode EVEX (AVX-512): hsdis prints `.byte 0x62` and loses sync"
DIFFERENT_CODE = {
    # (no-hsdis file prefix, compile id): (index of the first difference, hsdis mnemonic, hex mnemonic, why)
    ("jdk17-BigMethod", 7): (0, "movl", "jmp", "made not entrant before printing: `jmp` patched over the VEP"),
    ("jdk17-BigMethod", 10): (105, "jne", "je", "other layout: +0x1c2 in hsdis but +0x1ac in hex, then a flipped jcc"),
    ("jdk17-BigMethod", 12): (504, "je", "jne", "other block layout: inverted branch at +0x8c3"),
    ("jdk17-BigMethod", 14): (631, "je", "jne", "other block layout: inverted branch at +0xae1"),
    ("jdk17-Shapes", 18): (54, "movl", "nop", "other code: hsdis has 94 instructions, the hex 96; they part at +0xeb"),
    ("jdk17-Switches", 12): (26, "addl", "orl", "two switch arms swapped (+0x57 and +0x5e); the jump tables differ"),
    ("jdk17-Switches", 16): (36, "orl", "addl", "the same swapped arms, inlined (+0x95)"),
    ("jdk17-Switches", 17): (31, "orl", "addl", "the same swapped arms, inlined (+0x69)"),
    ("jdk17-VecLong", 12): (93, ".byte", "vmovdqu32", EVEX),
    ("jdk17-VecLong", 13): (93, ".byte", "vmovdqu32", EVEX),
    ("jdk25-BigMethod", 10): (1233, "vmovq", "movl", "other register allocation from +0x1581"),
    ("jdk25-VecLong", 14): (93, ".byte", "vmovups", EVEX),
    ("jdk25-VecLong", 15): (93, ".byte", "vmovdqu32", EVEX),
    ("jdk17-aarch64-Shapes", 17): (20, "mov", "eor", "other compressed-class decoding at +0x50 (another heap base)"),
    ("jdk17-aarch64-Shapes", 19): (78, "str", "mov", "other scheduling from +0x138"),
    ("jdk17-aarch64-Shapes", 38): (54, "str", "mov", "other scheduling from +0xd8"),
    ("jdk17-aarch64-Switches", 16): (157, "cmp", "add", "other scheduling from +0x274"),
    ("jdk17-aarch64-Switches", 17): (25, "cmp", "add", "other scheduling from +0x64"),
}
STUB_RESOLVED = {("jdk17-RecOsr", 7), ("jdk17-RecOsr", 8)}
"""Same mnemonics, but the hex run printed its static call stub after resolution: `jmp .` became `jmp` to the
I2C/C2I adapter, so the stub's block loses its self-loop."""


def hsdis_name(hex_name: str) -> str:
    """The hsdis file of the same program and JDK (AT&T on x86)."""
    stem = hex_name.removesuffix(".gz").removesuffix(".txt").replace("nohsdis", "hsdis")
    return stem + (".txt.gz" if "aarch64" in hex_name else "-att.txt.gz")


@cache
def read(path: Path) -> dict[int | None, Method]:
    """Methods by compile id."""
    return {m.header.compile_id: m for m in open_input(str(path)).methods}


@cache
def main_sizes(path: Path) -> dict[int, int]:
    """`main code` size by compile id, straight from the section tables."""
    sizes: dict[int, int] = {}
    compile_id = 0
    for line in read_lines(str(path)):
        header = _HEADER.search(line.text)
        main = _MAIN.match(line.text)
        if header:
            compile_id = int(header.group(2))
        elif main and compile_id not in sizes:
            sizes[compile_id] = int(main.group(1))
    return sizes


def pairs(hex_name: str) -> list[tuple[Method, Method]]:
    """(hsdis, hex) methods with the same header and the same `main code` size."""
    hex_path, hsdis_path = DATA / "nohsdis" / hex_name, DATA / "hsdis" / hsdis_name(hex_name)
    hsdis, hexed = read(hsdis_path), read(hex_path)
    found = []
    for cid, method in hexed.items():
        other = hsdis.get(cid)
        same_size = cid is not None and main_sizes(hsdis_path).get(cid) == main_sizes(hex_path).get(cid)
        if other is not None and same_size and _header(other) == _header(method):
            found.append((other, method))
    return found


def _header(method: Method) -> tuple[Any, ...]:
    h = method.header
    return h.compiler, h.compile_id, h.name, h.osr_bci


def spelling(method: Method) -> list[str]:
    """Mnemonics with the capstone 4/5 spellings made one (`callq`/`call`, AArch64 `movz`/`orr … zr` = `mov`)."""
    names = []
    for ins in method.instructions:
        name = _ALIASES.get(ins.mnemonic, ins.mnemonic)
        names.append("mov" if name == "orr" and re.match(r"[wx]\d+, [wx]zr, #", ins.operands) else name)
    return names


def first_difference(a: list[str], b: list[str]) -> int | None:
    """Index where two sequences part, or None when they are equal."""
    found = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
    return found if found is not None or len(a) == len(b) else min(len(a), len(b))


def key(hex_name: str, method: Method) -> tuple[str, int | None]:
    """`(jdk17-Switches, 12)`: the program and compile id a documented difference is filed under."""
    return hex_name.split("-print-")[0], method.header.compile_id


def shape(method: Method) -> tuple[Any, ...]:
    """Blocks, edge kinds in order (targets as block ids), and the tags of each block."""
    result = analyse_method(method)
    cfg = result.cfg
    edges = [(e.src, e.dst if isinstance(e.dst, int) else None, e.kind) for e in cfg.edges]
    return len(cfg.blocks), edges, [sorted(result.block_tags(b.id)) for b in cfg.blocks]


def printable_in_hex(method: Method) -> Method:
    """hsdis's method less what `[MachCode]` cannot print: implicit exceptions off a 4-byte chunk boundary."""
    begin = method.code_begin or 0
    instructions = tuple(
        replace(i, implicit_target=None) if (i.address - begin) % CHUNK else i for i in method.instructions
    )
    return replace(method, instructions=instructions)


@pytest.mark.parametrize("hex_name", HEX_FILES)
def test_mnemonics_match_hsdis(hex_name: str) -> None:
    for hsdis, hexed in pairs(hex_name):
        a, b = spelling(hsdis), spelling(hexed)
        first = first_difference(a, b)
        documented = DIFFERENT_CODE.get(key(hex_name, hexed))
        where = f"{hex_name} compile id {hexed.header.compile_id}"
        if documented is None:
            assert first is None, f"{where}: parts at {first}: {a[first : first + 3]} vs {b[first : first + 3]}"
        else:
            assert first is not None and (first, a[first], b[first]) == documented[:3], where


@pytest.mark.parametrize("hex_name", HEX_FILES)
def test_graphs_have_the_same_shape(hex_name: str) -> None:
    for hsdis, hexed in pairs(hex_name):
        if key(hex_name, hexed) in DIFFERENT_CODE:
            continue
        if key(hex_name, hexed) in STUB_RESOLVED:
            _assert_stub_resolved(hsdis, hexed)
            continue
        assert shape(printable_in_hex(hsdis)) == shape(hexed), f"{hex_name} compile id {hexed.header.compile_id}"


def _assert_stub_resolved(hsdis: Method, hexed: Method) -> None:
    def self_jumps(method: Method) -> set[int]:
        begin = method.code_begin or 0
        return {i.address - begin for i in method.instructions if i.mnemonic == "jmp" and i.operands == hex(i.address)}

    resolved = self_jumps(hsdis) - self_jumps(hexed)
    assert resolved
    begin = hexed.code_begin or 0
    assert all(i.runtime_call() == "I2C/C2I adapters" for i in hexed.instructions if i.address - begin in resolved)


def test_swapped_switch_arms_show_in_the_jump_tables() -> None:
    """Evidence that does not depend on decoding: the constant-pool jump tables of the two runs differ."""
    for name in (n for n in HEX_FILES if n.startswith("jdk17-Switches")):
        for hsdis, hexed in pairs(name):
            if key(name, hexed) in DIFFERENT_CODE:
                a, b = _table(hsdis), _table(hexed)
                assert len(a) == 10 and a != b and sorted(a) == sorted(b)


def _table(method: Method) -> list[int]:
    """Constant-pool words that point into the code, as offsets from its start."""
    begin, end = method.code_begin or 0, method.code_end or 0
    return [value - begin for _, value in method.constants if begin <= value < end]


def test_pairs_are_found() -> None:
    found = {n.split("-print-")[0]: sum(1 for a, _ in pairs(n) if a.header.compiler == "c2") for n in HEX_FILES}
    assert (found["jdk17-Switches"], found["jdk17-VecLong"], found["jdk17-aarch64-Switches"]) == (4, 6, 3)
    every = [(name, a, b) for name in HEX_FILES for a, b in pairs(name)]
    identical = [b for _, a, b in every if spelling(a) == spelling(b)]
    assert (len(every), len(identical)) == (67, 67 - len(DIFFERENT_CODE))
