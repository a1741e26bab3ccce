"""Per-architecture tables, chosen by name."""

from __future__ import annotations

import re

from asmcfg.isa.aarch64 import AArch64
from asmcfg.isa.base import Isa
from asmcfg.isa.x86 import X86
from asmcfg.model.words import IsaName, Syntax

_TABLES: dict[IsaName, Isa] = {IsaName.X86_64: X86(), IsaName.X86_32: X86(), IsaName.AARCH64: AArch64()}


def for_name(name: IsaName) -> Isa:
    """The table for an architecture (`x86_64`, `x86_32`, `aarch64`)."""
    return _TABLES[name]


_AARCH64_ONLY = frozenset(
    [
        "ldr",
        "str",
        "stp",
        "ldp",
        "movn",
        "movk",
        "adrp",
        "cbz",
        "cbnz",
        "tbz",
        "tbnz",
        "bl",
        "blr",
        "ldrb",
        "strb",
        "ldur",
        "stur",
        "csel",
    ]
)


_INTEL_64 = re.compile(r"\b(?:r[abcd]x|r[sb]p|r[sd]i|r(?:[89]|1[0-5])[dwb]?)\b")
_INTEL_32 = re.compile(r"\be(?:[abcd]x|[sb]p|[sd]i)\b")


def guess(mnemonics: list[str], operands: list[str]) -> tuple[IsaName, Syntax]:
    """Guess (isa, syntax) from a sample of instructions."""
    text = " ".join(operands)
    if "%" in text:
        return (IsaName.X86_64 if "%r" in text else IsaName.X86_32), Syntax.ATT
    if any(m in _AARCH64_ONLY or m.startswith("b.") for m in mnemonics):
        return IsaName.AARCH64, Syntax.AARCH64
    if _INTEL_32.search(text) and not _INTEL_64.search(text):
        return IsaName.X86_32, Syntax.INTEL
    return IsaName.X86_64, Syntax.INTEL
