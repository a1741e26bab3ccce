"""Which instructions of a loop's body address Java array elements by the loop's induction variable.

An element of a Java array lives at the array's address plus the array header (12 to 24 bytes: mark word, class
pointer, length) plus index times element size. The induction variable is an `int` register the loop adds a
constant to (`addl $0x10, %r13d`, `add r8d, 8`, `add w17, w17, #0x10`), with its copies and scaled copies
(`movslq %r13d, %rbp`, `sbfiz x11, x17, #2, #0x20`). x86 addresses an element in one operand
(`0x10(%rbx, %r13, 4)`, `[r11 + r8*4 + 0x10]`); AArch64 through `add`s (`add x12, x1, x11; add x14, x12, #0x10;
ld1w {z16.s}, p7/z, [x14]`) or in the operand (`ldr q16, [x12, #0x10]`).

An access counts only when the smallest displacement of the accesses through the same array register and scale
is at least a header: the intrinsics (`String.equals`, `compareTo`, `hashCode`, `StringUTF16.compress`) index
from a pointer to the first element (`(%rdi, %rcx)`, `-0x20(%rsi, %rax)`, `(%rsi, %rdx, 2)` then
`0x10(%rsi, %rdx, 2)`) with a 64-bit index, and the zeroing of a new object bumps a pointer (`(%rdi)`, `0x20(%rdi)`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from asmcfg.analyses.registers import split_operands
from asmcfg.model import Instruction, IsaName, Syntax
from asmcfg.sources.numbers import MAX_DIGITS

HEADER = 12
"""The smallest array header (compact object headers): the first element's displacement is at least this."""

_X86_REG = re.compile(r"^%?(?:r(\d+)[dwb]?|[re]?([abcd])x|([abcd])[lh]|[re]?(si|di|bp|sp)l?)$")
_X86_32 = re.compile(r"^%?(?:r\d+d|e[a-z]{2})$")
_ATT_MEM = re.compile(r"\((%\w+)?(?:,\s*(%\w+)(?:,\s*(\d))?)?\)")
"""The parentheses of an AT&T memory operand; its displacement is read back from them (`_displacement`): a
pattern that begins with it retries a long run of digits from each of them, quadratic on a crafted operand."""
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_INTEL_TERM = re.compile(r"(?:([+-])|(?<!\s))\s*([^+\-\s]+)")
"""A term of an Intel address and its sign. A term without a sign starts nowhere inside a run of blanks (a
match from inside one would be the match from its start, and retrying each blank is quadratic)."""
_A64_REG = re.compile(r"^[xw](\d+)$")
_A64_IMM = re.compile(r"^#(-?(?:0x[0-9a-fA-F]+|\d+))$")
_X86_COPY = ("movslq", "movsxd", "movsl", "movl", "movq", "mov", "leal", "leaq", "lea")
_A64_INDEX = ("sbfiz", "sxtw", "lsl", "ubfiz", "sbfx", "mov", "uxtw")

Access = tuple[int, str, int, int]
"""(position of the instruction, array register, scale, displacement) of one element access."""


def split(operands: str) -> list[str]:
    """The operands, split at the commas outside brackets, parentheses and braces."""
    return split_operands(operands, braces=True)


def element_accesses(instructions: Sequence[Instruction], isa: IsaName, syntax: Syntax,
                     base: Callable[[str], str]) -> frozenset[int]:
    """Positions in `instructions` (a loop's body, in address order) of the accesses to array elements indexed
    by the loop's induction variable; `base` names an instruction's base mnemonic."""
    if isa is IsaName.AARCH64:
        accesses = _a64_accesses(instructions, base)
    else:
        accesses = _x86_accesses(instructions, syntax is Syntax.INTEL, base)
    lowest: dict[tuple[str, int], int] = {}
    for _, array, scale, displacement in accesses:
        key = (array, scale)
        lowest[key] = min(lowest.get(key, displacement), displacement)
    return frozenset(at for at, array, scale, _ in accesses if lowest[(array, scale)] >= HEADER)


def literal(text: str) -> int | None:
    """An integer as a disassembler prints it (`0x40`, `-8`, `#16`, MASM's `40h`); None for anything else, or a
    number longer than any HotSpot prints (a crafted log)."""
    text = text.strip().lower().removeprefix("#")
    if len(text) > MAX_DIGITS + 3 or not text.isascii():
        return None
    try:
        return int(text[:-1], 16) if text.endswith("h") else int(text, 0)
    except ValueError:
        return None


def x86_family(name: str) -> str:
    """The 64-bit register a general register name is part of (`%r13d` -> `r13`, `esi` -> `si`), or empty."""
    found = _X86_REG.match(name.strip())
    if not found:
        return ""
    number, letter, half, other = found.groups()
    return f"r{number}" if number else letter or half or other or ""


def _x86_memory(operand: str, intel: bool) -> tuple[str, str, int, int] | None:
    """(base, index, scale, displacement) of a memory operand, registers as families (empty when absent)."""
    if intel:
        return _intel_memory(operand)
    found = _ATT_MEM.search(operand)
    if not found:
        return None
    displacement = literal(_displacement(operand, found.start()) or "0") or 0
    return x86_family(found.group(1) or ""), x86_family(found.group(2) or ""), int(found.group(3) or 1), displacement


def _displacement(text: str, end: int) -> str:
    """The displacement written just before offset `end` of `text`: the longest tail of `text[:end]` that reads
    `-?(0x[0-9a-fA-F]+|\\d+)`, empty when none does. Each character is looked at once."""
    start = end
    while start > 0 and text[start - 1] in _HEX_DIGITS:
        start -= 1
    if start == end or start < 2 or text[start - 2 : start] != "0x":
        start = end
        while start > 0 and text[start - 1].isdecimal():
            start -= 1
        if start == end:
            return ""
    else:
        start -= 2
    return text[start - 1 : end] if start > 0 and text[start - 1] == "-" else text[start:end]


def _intel_memory(operand: str) -> tuple[str, str, int, int] | None:
    """`_x86_memory` of `ymmword ptr [r11 + r8*4 + 0x10]`: the scaled register (else the second) is the index."""
    opened = operand.find("[")
    closed = operand.find("]", opened + 1) if opened >= 0 else -1
    if closed < 0:
        return None
    registers: list[tuple[str, int]] = []
    displacement = 0
    for sign, term in _INTEL_TERM.findall(operand, opened + 1, closed):
        name, _, times = term.partition("*")
        value = literal(term)
        if x86_family(name):
            registers.append((x86_family(name), (literal(times) or 0) if times else 1))
        elif value is not None:
            displacement += -value if sign == "-" else value
    scaled = [r for r in registers if r[1] != 1]
    plain = [r for r in registers if r[1] == 1]
    index = (scaled or plain[1:] or [("", 1)])[0]
    base = plain[0][0] if plain and plain[0] != index else ""
    return base, index[0], index[1], displacement


def _x86_first_memory(operands: str, intel: bool) -> tuple[str, str, int, int] | None:
    """`_x86_memory` of the first memory operand."""
    for operand in split(operands):
        memory = _x86_memory(operand, intel)
        if memory is not None:
            return memory
    return None


def _x86_ends(operands: str, intel: bool) -> tuple[str, list[str]]:
    """(destination, sources) of an instruction's operands."""
    parts = split(operands)
    if not parts:
        return "", []
    return (parts[0], parts[1:]) if intel else (parts[-1], parts[:-1])


def _x86_induction(instructions: Sequence[Instruction], intel: bool, base: Callable[[str], str]) -> set[str]:
    """The 32-bit registers the loop adds a constant to (`addl $0x10, %r13d`; `leal 0x40(%rbx), %ebp` then
    `movl %ebp, %ebx`), with their copies (`movslq %r13d, %rbp`, `lea 1(%r13), %r10`)."""
    found: set[str] = set()
    for ins in instructions:
        mnemonic = base(ins.mnemonic)
        destination, sources = _x86_ends(ins.operands, intel)
        if not _X86_32.match(destination):
            continue
        constant = len(sources) == 1 and (sources[0].startswith("$") if not intel else literal(sources[0]) is not None)
        if (mnemonic.startswith(("add", "sub")) and constant) or (mnemonic.startswith(("inc", "dec")) and not sources):
            found.add(x86_family(destination))
        elif mnemonic.startswith("lea") and len(sources) == 1 and (register := _x86_source(sources[0], intel)):
            found |= register | {x86_family(destination)}
    while True:
        more = {x86_family(d) for ins in instructions if base(ins.mnemonic) in _X86_COPY
                for d, s in [_x86_ends(ins.operands, intel)] if len(s) == 1 and _x86_source(s[0], intel) & found}
        if more <= found:
            return found
        found |= more


def _x86_source(operand: str, intel: bool) -> set[str]:
    """The register a copy reads: a register, or the lone register of `lea disp(%r)`."""
    memory = _x86_memory(operand, intel)
    if memory is None:
        return {x86_family(operand)} - {""}
    register, index, _, _ = memory
    return {register} if register and not index else set()


def _x86_accesses(instructions: Sequence[Instruction], intel: bool, base: Callable[[str], str]) -> list[Access]:
    induction = _x86_induction(instructions, intel, base)
    found = []
    for at, ins in enumerate(instructions):
        if base(ins.mnemonic).startswith("lea"):
            continue
        memory = _x86_first_memory(ins.operands, intel)
        if memory is None:
            continue
        register, index, scale, displacement = memory
        if index in induction and register and register not in induction:
            found.append((at, register, scale, displacement))
        elif scale == 1 and register in induction and index and index not in induction:
            found.append((at, index, scale, displacement))
    return found


def _a64_family(name: str) -> str:
    found = _A64_REG.match(name.strip())
    return found.group(1) if found else ""


def _a64_induction(instructions: Sequence[Instruction], base: Callable[[str], str]) -> set[str]:
    """The `w` registers the loop adds a constant to, with their copies and scaled copies (`sbfiz`, `sxtw`)."""
    found: set[str] = set()
    for ins in instructions:
        parts = split(ins.operands)
        counts = len(parts) == 3 and parts[0].startswith("w") and parts[0] == parts[1] and _A64_IMM.match(parts[2])
        if counts and base(ins.mnemonic) in ("add", "sub"):
            found.add(_a64_family(parts[0]))
    while True:
        more = {_a64_family(p[0]) for ins in instructions if base(ins.mnemonic) in _A64_INDEX
                for p in [split(ins.operands)] if len(p) >= 2 and _a64_family(p[1]) in found}
        if more <= found:
            return found - {""}
        found |= more


def _a64_accesses(instructions: Sequence[Instruction], base: Callable[[str], str]) -> list[Access]:
    """Accesses through registers holding an array's address plus a scaled induction variable (`add x12, x1,
    x11`), plus the constants added since (`add x14, x12, #0x10`), in program order."""
    induction = _a64_induction(instructions, base)
    element: dict[str, tuple[str, int]] = {}
    found = []
    for at, ins in enumerate(instructions):
        parts = split(ins.operands)
        memory = next((p for p in parts if p.startswith("[")), None)
        if memory is not None:
            inside = split(memory.strip("[]!"))
            held = element.get(_a64_family(inside[0])) if inside else None
            offset = 0 if len(inside) == 1 else literal(inside[1]) if len(inside) == 2 else None
            if held is not None and offset is not None:
                found.append((at, held[0], 0, held[1] + offset))
            continue
        if not parts or not _a64_family(parts[0]):
            continue
        target = _a64_family(parts[0])
        made = _a64_element(base(ins.mnemonic), parts, induction, element)
        if made is None:
            element.pop(target, None)
        else:
            element[target] = made
    return found


def _a64_element(mnemonic: str, parts: list[str], induction: set[str],
                 element: dict[str, tuple[str, int]]) -> tuple[str, int] | None:
    """(array register, bytes past its address) an `add` leaves in its destination, None for anything else."""
    if mnemonic != "add" or len(parts) < 3:
        return None
    first, second = _a64_family(parts[1]), _a64_family(parts[2])
    if _A64_IMM.match(parts[2]) and first in element:
        return element[first][0], element[first][1] + (literal(parts[2]) or 0)
    if second in induction and first and first not in induction:
        return first, 0
    if len(parts) == 3 and first in induction and second and second not in induction:
        return second, 0
    return None
