"""Which registers an instruction names as operands of its own and which it writes, read from its operand text.

Used to follow a class constant loaded into a register (`movabs $0x…, %rdx ; {metadata('C')}`) to the compare
that reads it. Every view of a register is one name (`%edx`, `%dl`, `%rdx` -> `rdx`; `w14`, `x14` -> `14`). A
register inside a memory operand (`-8(%r15,%rdx)`, `[x1, #8]`) is an address, not a value the instruction
compares. What an instruction writes errs on the side of too many: a register wrongly taken as written only
forgets a class, never invents one.
"""

from __future__ import annotations

import functools
import re

from asmcfg.model import Syntax

_REGISTER = re.compile(r"%?\b(r\d+[dwb]?|[re]?[a-d]x|[a-d][lh]|[re]?[sd]il?|[re]?[sb]pl?|[xw]\d+)\b")
_X86_VIEW = re.compile(r"^r?e?([a-d])[xlh]$|^r(\d+)[dwb]?$|^[re]?([sd]i|[sb]p)l?$")
_NOT_WRITING = re.compile(r"^(?:cmp(?!xchg)|test|v?u?comis|v?ptest|bt[wlq]?$|push|jmp|nop)")
"""x86 mnemonics that write no register their operands name."""
_IMPLICIT = (
    (re.compile(r"^(?:cltd|cqto|cdq|cqo)$"), ("rdx",)),
    (re.compile(r"^(?:cltq|cdqe|cwtl)$"), ("rax",)),
    (re.compile(r"^(?:i?mul|i?div)[bwlq]?$"), ("rax", "rdx")),
    (re.compile(r"^(?:rdtscp?|cpuid)$"), ("rax", "rbx", "rcx", "rdx")),
    (re.compile(r"^(?:lock )?cmpxchg"), ("rax",)),
    (re.compile(r"^rep|^(?:stos|movs|scas|cmps|lods)[bwlqd]?$"), ("rax", "rcx", "rdi", "rsi")),
)
"""x86 instructions that write registers their operand text does not name as the destination."""
IMPLIED = frozenset(r for _, regs in _IMPLICIT for r in regs)
"""The registers some x86 instruction writes without naming them."""
_BOTH = re.compile(r"^(?:lock )?(?:xchg|xadd|cmpxchg)")
"""x86 instructions that write their source register too."""
_STEM = 32
"""Longest mnemonic whose kind is kept (`_x86_kind`); a mnemonic HotSpot prints is under 20 characters."""


def name(register: str) -> str:
    """One name for a register's views: `%r10d` -> `r10`, `edx`/`dl` -> `rdx`, `w14`/`x14` -> `14`."""
    text = register.lstrip("%")
    if text[:1] in "wx" and text[1:].isdigit():
        return text[1:]
    view = _X86_VIEW.match(text)
    if view is None:
        return text
    letter, number, pair = view.groups()
    return f"r{letter}x" if letter else f"r{number}" if number else f"r{pair}"


def views(register: str) -> tuple[str, ...]:
    """Texts one of which every view of a register (a `name`) holds: an operand text that holds none of them
    names the register nowhere (`rdx` -> `dx`, `dl`, `dh`; `r10` -> `r10`; `rsi` -> `si`; `14` -> `14`)."""
    if len(register) == 3 and register[0] == "r" and register[1] in "abcd" and register[2] == "x":
        return register[1] + "x", register[1] + "l", register[1] + "h"
    if register in ("rsi", "rdi", "rsp", "rbp"):
        return (register[1:],)
    return (register,)


def split_operands(text: str, braces: bool = False) -> list[str]:
    """The operands of an operand text, stripped, split at the commas outside parentheses and brackets (and
    braces, with `braces`: an AArch64 register list `{v0.4s, v1.4s}` is then one operand)."""
    pieces = text.split(",")
    if len(pieces) == 1:
        return [text.strip()] if text.strip() else []
    if "(" not in text and "[" not in text and ")" not in text and "]" not in text and (
            not braces or ("{" not in text and "}" not in text)):
        return [part for piece in pieces if (part := piece.strip())]
    # A comma splits where the brackets opened before it, less those closed, come to nothing.
    parts: list[str] = []
    depth = 0
    held: list[str] = []
    for piece in pieces:
        held.append(piece)
        depth += piece.count("(") + piece.count("[") - piece.count(")") - piece.count("]")
        if braces:
            depth += piece.count("{") - piece.count("}")
        if depth == 0:
            parts.append(",".join(held).strip())
            held = []
    if held:
        parts.append(",".join(held).strip())
    return [part for part in parts if part]


@functools.lru_cache(maxsize=8192)
def operands(text: str) -> tuple[tuple[str, bool], ...]:
    """The operands of an operand text, each with True when it is a memory operand."""
    return tuple((part, "(" in part or "[" in part) for part in split_operands(text))


@functools.lru_cache(maxsize=8192)
def direct(text: str) -> tuple[str, ...]:
    """The registers named as operands of their own (not as an address inside a memory operand)."""
    return tuple(name(r) for operand, memory in operands(text) if not memory for r in _REGISTER.findall(operand))


def named(text: str) -> tuple[str, ...]:
    """Every register the operand text names, addresses included."""
    return tuple(name(r) for r in _REGISTER.findall(text))


@functools.lru_cache(maxsize=8192)
def written(mnemonic: str, text: str, syntax: Syntax) -> tuple[str, ...]:
    """Registers the instruction writes, as far as its text tells."""
    stem = mnemonic.lower().strip()
    if syntax is Syntax.AARCH64:
        regs = direct(text)
        return () if stem.startswith("movk") else regs[:2] if stem.startswith("ldp") else regs[:1]
    implicit, both, not_writing = _x86_kind(stem) if len(stem) <= _STEM else _kind(stem)
    found = operands(text)
    if both:
        return (*direct(text), *implicit)
    if not_writing or not found:
        return implicit
    destination, memory = found[-1] if syntax is Syntax.ATT else found[0]
    return (*implicit, *(() if memory else direct(destination)))


def _kind(stem: str) -> tuple[tuple[str, ...], bool, bool]:
    """(the registers an x86 mnemonic writes that its operands do not name, whether it writes its source too,
    whether it writes no register its operands name)."""
    implicit = tuple(r for pattern, regs in _IMPLICIT if pattern.search(stem) for r in regs)
    return implicit, bool(_BOTH.search(stem)), bool(_NOT_WRITING.search(stem))


def implies(mnemonic: str, syntax: Syntax) -> bool:
    """True when the instruction writes registers its operand text does not name (`cltq` writes `rax`): only x86
    instructions do (`IMPLIED`)."""
    if syntax is Syntax.AARCH64:
        return False
    stem = mnemonic.lower().strip()
    return bool((_x86_kind(stem) if len(stem) <= _STEM else _kind(stem))[0])


_x86_kind = functools.lru_cache(maxsize=1024)(_kind)
"""`_kind`, kept for the few hundred mnemonics a method names (`_STEM` long at most: a crafted one is not kept)."""
