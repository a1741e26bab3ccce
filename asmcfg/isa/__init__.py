"""Per-architecture tables, chosen by name."""

from __future__ import annotations

import re

from asmcfg.isa.aarch64 import AArch64
from asmcfg.isa.base import Isa
from asmcfg.isa.x86 import X86

_TABLES: dict[str, Isa] = {"x86_64": X86(), "x86_32": X86(), "aarch64": AArch64()}


def for_name(name: str) -> Isa:
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


def guess(mnemonics: list[str], operands: list[str]) -> tuple[str, str]:
    """Guess (isa, syntax) from a sample of instructions."""
    text = " ".join(operands)
    if "%" in text:
        return ("x86_64", "att") if "%r" in text else ("x86_32", "att")
    if any(m in _AARCH64_ONLY or m.startswith("b.") for m in mnemonics):
        return "aarch64", "aarch64"
    if _INTEL_32.search(text) and not _INTEL_64.search(text):
        return "x86_32", "intel"
    return "x86_64", "intel"
