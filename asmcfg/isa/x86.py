"""x86 and x86-64 tables, AT&T and Intel syntax, capstone and binutils spellings."""

from __future__ import annotations

import re
from collections.abc import Sequence

from asmcfg.isa.base import Isa, masm_number, parse_int, signed32
from asmcfg.model import Instruction

_CONDITIONS = [
    "o",
    "no",
    "b",
    "nae",
    "c",
    "ae",
    "nb",
    "nc",
    "e",
    "z",
    "ne",
    "nz",
    "be",
    "na",
    "a",
    "nbe",
    "s",
    "ns",
    "p",
    "pe",
    "np",
    "po",
    "l",
    "nge",
    "ge",
    "nl",
    "le",
    "ng",
    "g",
    "nle",
]
_ATT_MOV_ESI = re.compile(r"^\$(-?(?:0x)?[0-9a-fA-F]+)\s*,\s*%[er]?si$")
_INTEL_MOV_ESI = re.compile(r"^[er]?si\s*,\s*(-?(?:0x)?[0-9a-fA-F]+[hH]?)$")
_ATT_TO_ESI = re.compile(r",\s*%[er]?si$")
_INTEL_TO_ESI = re.compile(r"^[er]?si\s*,")
_CMP_ATT = re.compile(r"^\$(0x[0-9a-fA-F]+|\d+)\s*,")
_CMP_INTEL = re.compile(r",\s*(0x[0-9a-fA-F]+|\d+)$")
_BOUND_BRANCHES = ("jae", "jnb", "ja", "jnbe")
"""Unsigned branches past a jump table's end: `cmp $N` then one of these guards N entries (`ja`: N + 1)."""
_C1_STACK_TRAP = re.compile(r"^\$(-?(?:0x)?[0-9a-fA-F]+)\s*,\s*\(%[er]sp\)$")
_INTEL_C1_STACK_TRAP = re.compile(r"^qword ptr \[[er]sp\]\s*,\s*(-?(?:0x)?[0-9a-fA-F]+[hH]?)$")
_ATT_THREAD_STORE = re.compile(r"^(\$-?(?:0x)?[0-9a-fA-F]+|%\w+)\s*,\s*(-?(?:0x)?[0-9a-fA-F]*)\(%r15\)$")
_INTEL_THREAD_STORE = re.compile(
    r"^(?:[dq]?word ptr )?\[r15(?:\s*([+-])\s*((?:0x)?[0-9a-fA-F]+[hH]?))?\]\s*,\s*(-?(?:0x)?[0-9a-fA-F]+[hH]?|\w+)$"
)
_ATT_REG_IMM = re.compile(r"^\$(-?(?:0x)?[0-9a-fA-F]+)\s*,\s*%(\w+)$")
_INTEL_REG_IMM = re.compile(r"^([a-z]\w*)\s*,\s*(-?(?:0x)?[0-9a-fA-F]+[hH]?)$")
_ATT_DEST = re.compile(r",\s*%(\w+)$")
_INTEL_DEST = re.compile(r"^([a-z]\w*)\s*(?:,|$)")
_LEGACY = {"a", "b", "c", "d"}
_ATT_KLASS_LOAD = re.compile(r"^(?:0x)?8\(%(\w+)\)\s*,\s*%(\w+)$")
_INTEL_KLASS_LOAD = re.compile(r"^(\w+)\s*,\s*[dq]word ptr \[(\w+) \+ (?:0x)?8\]$")
_ATT_RIP_COMPARE = re.compile(r"^(-?(?:0x)?[0-9a-fA-F]+)\(%rip\)\s*,\s*%(\w+)$")
_INTEL_RIP_COMPARE = re.compile(r"^(\w+)\s*,\s*qword ptr \[rip(?:\s*([+-])\s*((?:0x)?[0-9a-fA-F]+h?))?\]$")


def full_register(name: str) -> str:
    """The 64-bit register `name` is part of (`r10d` → `r10`, `eax` → `rax`, `si` → `rsi`)."""
    name = name.lower()
    if name.startswith("r") and name[1:2].isdigit():
        return name.rstrip("dwb")
    core = name[1:] if name[:1] in ("e", "r") and len(name) == 3 else name
    if len(core) == 2 and core[0] in _LEGACY and core[1] in "xlh":
        return f"r{core[0]}x"
    if core.rstrip("l") in ("si", "di", "bp", "sp"):
        return f"r{core.rstrip('l')}"
    return name


class X86(Isa):
    """x86-64 (and 32-bit x86) as HotSpot's hsdis prints it."""

    name = "x86_64"
    prefixes = frozenset(
        [
            "lock",
            "rep",
            "repe",
            "repz",
            "repne",
            "repnz",
            "data16",
            "data32",
            "addr32",
            "addr16",
            "notrack",
            "bnd",
            "cs",
            "ds",
            "es",
            "ss",
            "fs",
            "gs",
        ]
    )
    conditional = frozenset(
        [f"j{c}" for c in _CONDITIONS] + ["jcxz", "jecxz", "jrcxz", "loop", "loope", "loopne", "loopz", "loopnz"]
    )
    jumps = frozenset({"jmp", "jmpq", "jmpl", "jmpw"})
    calls = frozenset({"call", "callq", "calll", "callw"})
    returns = frozenset({"ret", "retq", "retl", "retn", "retw"})
    halts = frozenset({"hlt", "ud2", "ud1", "int3"})
    unsigned_conditional = frozenset({"jae", "jnb", "jb", "jnae", "ja", "jnbe", "jbe", "jna"})

    def target(self, ins: Instruction) -> int | None:
        """The direct branch or call target: `0x…`, or MASM-style `25b4d0ah` (Windows hsdis, Intel syntax)."""
        operand = ins.operands.strip()
        if operand.startswith("0x") and operand.isascii() and "_" not in operand:
            try:
                return int(operand, 16)  # the usual `0x…` operand: what `_HEX` reads, without the pattern
            except ValueError:
                pass
        if masm_number(operand):
            return int(operand[:-1], 16)
        return super().target(ins)

    def trap_immediate(self, ins: Instruction) -> int | None:
        """`mov $imm, %esi` (AT&T) or `mov esi, imm` (Intel), and C1's `movq $imm, (%rsp)`."""
        if not self.base_mnemonic(ins.mnemonic).startswith("mov"):
            return None
        operands = ins.operands.strip()
        for pattern in (_ATT_MOV_ESI, _INTEL_MOV_ESI, _C1_STACK_TRAP, _INTEL_C1_STACK_TRAP):
            match = pattern.match(operands)
            if match:
                value = parse_int(match.group(1))
                return None if value is None else signed32(value)
        return None

    def table_bound(self, before: Sequence[Instruction]) -> int | None:
        """The `cmp $N` + `jae`/`ja` bounds check closest before the jump: N entries (N + 1 after `ja`)."""
        for n in range(len(before) - 2, -1, -1):
            ins, branch = before[n], before[n + 1].mnemonic.split(",")[0]
            if not ins.mnemonic.startswith("cmp") or branch not in _BOUND_BRANCHES:
                continue
            match = _CMP_ATT.match(ins.operands.strip()) or _CMP_INTEL.search(ins.operands.strip())
            bound = parse_int(match.group(1)) if match else None
            if bound is not None:
                return bound + (1 if branch in ("ja", "jnbe") else 0)
        return None

    def thread_store(self, ins: Instruction) -> tuple[int, int | str] | None:
        """`movl $imm, OFF(%r15)` or `movl %r10d, OFF(%r15)` (Intel: `mov dword ptr [r15 + OFF], imm`): a store
        into the JavaThread, which x86-64 HotSpot code keeps in r15."""
        if not self.base_mnemonic(ins.mnemonic).startswith("mov"):
            return None
        operands = ins.operands.strip()
        att = _ATT_THREAD_STORE.match(operands)
        if att:
            offset = parse_int(att.group(2) or "0")
            source = att.group(1)
        else:
            intel = _INTEL_THREAD_STORE.match(operands)
            if intel is None:
                return None
            offset = parse_int(intel.group(2) or "0")
            offset = None if offset is None else (-offset if intel.group(1) == "-" else offset)
            source = intel.group(3)
            source = source if not source[:1].isdigit() and not source.startswith("-") else f"${source}"
        if offset is None:
            return None
        if source.startswith("$"):
            value = parse_int(source)
            return None if value is None else (offset, value)
        return offset, full_register(source.lstrip("%"))

    def register_immediate(self, ins: Instruction) -> tuple[str, int] | None:
        """`movl $imm, %r10d` / `mov r10d, imm`: the register (its 64-bit name) and the immediate."""
        if not self.base_mnemonic(ins.mnemonic).startswith("mov"):
            return None
        operands = ins.operands.strip()
        att = _ATT_REG_IMM.match(operands)
        if att:
            register, text = att.group(2), att.group(1)
        else:
            intel = _INTEL_REG_IMM.match(operands)
            if intel is None or "ptr" in operands:
                return None
            register, text = intel.group(1), intel.group(2)
        value = parse_int(text)
        return None if value is None else (full_register(register), value)

    def klass_load(self, ins: Instruction) -> str | None:
        """`movl 8(%rdx), %eax` / `mov eax, dword ptr [rdx + 8]`: the class word of the object in rdx into rax."""
        if not self.base_mnemonic(ins.mnemonic).startswith("mov"):
            return None
        operands = ins.operands.strip()
        att = _ATT_KLASS_LOAD.match(operands)
        if att:
            return full_register(att.group(2))
        intel = _INTEL_KLASS_LOAD.match(operands)
        return full_register(intel.group(1)) if intel else None

    def constant_compare(self, ins: Instruction, next_address: int) -> tuple[str, int] | None:
        """`cmpq -0x47(%rip), %rax` / `cmp rax, qword ptr [rip - 0x47]`: rax against the 8 bytes at the address."""
        if not self.base_mnemonic(ins.mnemonic).startswith("cmp"):
            return None
        operands = ins.operands.strip()
        att = _ATT_RIP_COMPARE.match(operands)
        if att:
            register, displacement = att.group(2), parse_int(att.group(1))
        else:
            intel = _INTEL_RIP_COMPARE.match(operands)
            if intel is None:
                return None
            register, displacement = intel.group(1), parse_int(intel.group(3) or "0")
            displacement = None if displacement is None else (-displacement if intel.group(2) == "-" else displacement)
        return None if displacement is None else (full_register(register), next_address + displacement)

    def written_register(self, ins: Instruction) -> str | None:
        """The destination register of a two- or one-operand instruction (AT&T: the last; Intel: the first); none for
        a compare or test, which writes only the flags."""
        if self.base_mnemonic(ins.mnemonic).startswith(("cmp", "test", "j")):
            return None
        operands = ins.operands.strip()
        match = _ATT_DEST.search(operands) if "%" in operands else _INTEL_DEST.match(operands)
        return full_register(match.group(1)) if match else None

    def writes_trap_register(self, ins: Instruction) -> bool:
        """True for any instruction whose destination is esi/rsi."""
        operands = ins.operands.strip()
        if "%" in operands:
            return bool(_ATT_TO_ESI.search(operands))
        return bool(_INTEL_TO_ESI.match(operands))
