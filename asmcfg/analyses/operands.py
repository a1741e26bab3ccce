"""x86 instructions as the array walk reads them (`strides`): the operation, AT&T's suffixed names made Intel's,
operands destination first, registers as one name per family (`%r13d` -> `r13`), immediates as `#N` and memory
operands as an `Access`."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from asmcfg.analyses.arrays import literal
from asmcfg.analyses.registers import split_operands
from asmcfg.model import Instruction


@dataclass(frozen=True, slots=True)
class Access:
    """One memory operand of an instruction."""

    displacement: int
    """The constant part of the address."""
    base: str
    """Base register family (`rsi`), or empty."""
    index: str
    """Index register family (`rcx`), or empty."""
    scale: int
    """Index scale (1 without an index)."""
    size: int | None
    """Bytes the operand names (Intel `dword ptr`), or None when the syntax does not say."""



Parsed = tuple[str, str, tuple[str | Access, ...]]
"""An instruction as `parse` reads it."""



_ATT_MEMORY = re.compile(r"^(?:%\w+:)?(-?(?:0x[0-9a-f]+|\d+))?\((%\w+)?(?:,\s*(%\w+)(?:,\s*(\d+))?)?\)$")
_INTEL_MEMORY = re.compile(r"^(?:(\w+) ptr )?(?:\w+:)?\[([^\]]*)\]$")
_ATT_OPS = {"movslq": "movsxd", "movl": "mov", "movq": "mov", "leal": "lea", "leaq": "lea", "addl": "add",
            "addq": "add", "subl": "sub", "subq": "sub", "incl": "inc", "incq": "inc", "decl": "dec", "decq": "dec",
            "cmpl": "cmp", "cmpq": "cmp", "testl": "test", "testq": "test"}
_PTR_BYTES = {"byte": 1, "word": 2, "dword": 4, "qword": 8, "xmmword": 16, "ymmword": 32, "zmmword": 64}
_FAMILY = re.compile(r"^r(\d+)[dwb]?$")
UNREAD = "?"
"""An operand whose numbers are none a disassembler prints (a crafted log): no register, no access."""
_LEGACY = {"a": "rax", "b": "rbx", "c": "rcx", "d": "rdx"}

def parse(ins: Instruction, att: bool) -> Parsed:
    """(operation, operand text, operands destination first): registers as families, immediates as `#N`."""
    return parsed(ins.mnemonic, ins.operands, att)


@functools.lru_cache(maxsize=4096)
def parsed(mnemonic: str, text: str, att: bool) -> Parsed:
    """`parse` of an instruction's text (a loop's instructions repeat theirs; the result is shared, read only)."""
    parts = split_operands(text)
    if att:
        parts.reverse()
    op = _ATT_OPS.get(mnemonic, mnemonic) if att else mnemonic
    return op, text, tuple(_operand(p, att) for p in parts)


def _operand(text: str, att: bool) -> str | Access:
    if att:
        if text.startswith("$"):
            return "#" + text[1:]
        found = _ATT_MEMORY.match(text)
        if found:
            disp, base, index, scale = found.groups()
            shift, times = literal(disp) if disp else 0, literal(scale) if scale else 1
            if shift is None or times is None:
                return UNREAD
            return Access(shift, family(base or ""), family(index or ""), times, None)
        return family(text)
    found = _INTEL_MEMORY.match(text)
    if found:
        return _intel_memory(found.group(1) or "", found.group(2))
    return "#" + text if re.fullmatch(r"-?(?:0x[0-9a-f]+|\d+)", text) else family(text)


def _intel_memory(size: str, inside: str) -> Access | str:
    base = index = ""
    scale, disp = 1, 0
    for sign, term in re.findall(r"([+-]?)\s*([^+\-\s]+)", inside):
        if "*" in term:
            register, _, factor = term.partition("*")
            times = literal(factor)
            if times is None:
                return UNREAD
            index, scale = family(register), times
        elif re.fullmatch(r"0x[0-9a-f]+|\d+", term):
            value = literal(term)
            if value is None:
                return UNREAD
            disp += value * (-1 if sign == "-" else 1)
        elif not base:
            base = family(term)
        else:
            index = family(term)
    return Access(disp, base, index, scale, _PTR_BYTES.get(size))


def family(register: str) -> str:
    """One name for a register's views: `%r13d` -> `r13`, `%eax` -> `rax`, `%si` -> `rsi`."""
    name = register.lstrip("%")
    numbered = _FAMILY.match(name)
    if numbered:
        return "r" + numbered.group(1)
    if len(name) == 3 and name[0] in "er" and name[1:] in ("ax", "bx", "cx", "dx", "si", "di", "bp", "sp"):
        return "r" + name[1:]
    if len(name) == 2 and name[1] in "xl" and name[0] in _LEGACY:
        return _LEGACY[name[0]]
    if name in ("si", "di", "bp", "sp", "sil", "dil", "bpl", "spl"):
        return "r" + name[:2]
    return name
