"""Per-architecture tables, chosen by name."""

from __future__ import annotations

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


def guess(mnemonics: list[str], operands: list[str]) -> tuple[str, str]:
    """Guess (isa, syntax) from a sample of instructions."""
    text = " ".join(operands)
    if "%" in text:
        return ("x86_64", "att") if "%r" in text else ("x86_32", "att")
    if any(m in _AARCH64_ONLY or m.startswith("b.") for m in mnemonics):
        return "aarch64", "aarch64"
    return "x86_64", "intel"
