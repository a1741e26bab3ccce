"""Vectorized loops: packed SIMD work in a loop's own blocks, with the register width and the element type.

x86: an instruction on `xmm`/`ymm`/`zmm` registers whose mnemonic is packed (`…ps`/`…pd`, `p…`/`vp…` integer
ops, `movdq…`, `vextract…`, `vbroadcast…`, `vperm…`, `vshuf…`), not a zeroing idiom (`vpxor %xmm0, %xmm0,
%xmm0`) and not a plain move between two registers (C2 copies scalar doubles that way). The width is
the widest register such an instruction names (`xmm` 128, `ymm` 256, `zmm` 512 bits). AArch64: NEON
arrangements (`v0.4s`: 4 × 32 bits) and `q` registers (128 bits), SVE `z` registers (a width the code does
not state: the machine's vector length). The element type comes from the packed arithmetic (`vaddps` float,
`vpaddq` long, `fadd v0.2d` double, `add z0.s` int); a copy alone (`vmovdqu`) names none.
"""

from __future__ import annotations

import re
from collections import Counter

from asmcfg.analyses.context import Context, add_tags
from asmcfg.analyses.hotness import is_cold
from asmcfg.model import Analysis, Instruction, IsaName, Loop, LoopFacts, LoopRole, Tag
from asmcfg.model.factory import replace

_X86_REG = re.compile(r"\b([xyz])mm\d+\b")
_X86_BITS = {"x": 128, "y": 256, "z": 512}
_X86_PACKED = re.compile(
    r"^v?(?:p[a-z0-9]+|[a-z0-9]+p[sd]|movdq[au]\d*|extract[a-z0-9]+|insert[a-z0-9]+|broadcast[a-z0-9]+|"
    r"perm[a-z0-9]+|shuf[a-z0-9]+)$"
)
_X86_FLOAT = re.compile(r"^v?(?:add|sub|mul|div|min|max|sqrt|f[n]?m(?:add|sub)\d*|hadd|hsub|round)p([sd])$")
_X86_INT = re.compile(r"^v?p(?:add|sub|mull|mul|madd|minu|mins|maxu|maxs|sll|srl|sra|abs|avg|cmpeq|cmpgt)([bwdq])$")
_X86_INT_TYPES = {"b": "byte", "w": "short", "d": "int", "q": "long"}
_NEON = re.compile(r"\bv\d+\.(\d{1,2})([bhsd])\b")
_NEON_Q = re.compile(r"\bq\d+\b")
_SVE = re.compile(r"\bz\d+\.([bhsd])\b")
_A64_BITS = {"b": 8, "h": 16, "s": 32, "d": 64}
_A64_INT = {"b": "byte", "h": "short", "s": "int", "d": "long"}
_A64_FLOAT = {"h": "half", "s": "float", "d": "double"}
_A64_ARITH = re.compile(r"^f?(?:add|sub|mul|div|mla|mls|fmla|fmls|fmad|min|max|abs|neg|sqrt)[a-z]*$")


def run(ctx: Context, result: Analysis) -> Analysis:
    """Vector width and element type per loop (in `loop_facts`), and a `vector` tag on blocks doing packed work."""
    facts = dict(result.loop_facts)
    tags: dict[int, set[Tag]] = {}
    for loop in result.loops:
        blocks = [b for b in own_blocks(result, loop) if not is_cold(result, b)]
        found = [(b, v) for b in blocks for v in _vector_ops(ctx, b)]
        for block, _ in found:
            tags.setdefault(block, set()).add(Tag.VECTOR)
        bits, element, kind = _summary([v for _, v in found])
        old = facts.get(loop.header, LoopFacts(loop.header, LoopRole.NONE, 1, None, ""))
        facts[loop.header] = replace(old, vector_bits=bits, element=element, vector_isa=kind)
    return add_tags(replace(result, loop_facts=facts), tags)


def own_blocks(result: Analysis, loop: Loop) -> tuple[int, ...]:
    """The loop's blocks that belong to no loop nested inside it."""
    inner = {b for other in result.loops if other.depth > loop.depth and set(other.blocks) < set(loop.blocks)
             for b in other.blocks}
    return tuple(b for b in loop.blocks if b not in inner)


def _vector_ops(ctx: Context, block: int) -> list[tuple[str, int | None, str]]:
    """(isa kind, bits, element) of each packed instruction in the block."""
    b = ctx.block(block)
    classify = _aarch64 if ctx.cfg.method.isa is IsaName.AARCH64 else _x86
    found = []
    for ins in ctx.cfg.method.instructions[b.start : b.end]:
        op = classify(ins, ctx.table.base_mnemonic(ins.mnemonic))
        if op is not None:
            found.append(op)
    return found


def _x86(ins: Instruction, base: str) -> tuple[str, int | None, str] | None:
    registers = _X86_REG.findall(ins.operands)
    if not registers or not _X86_PACKED.match(base):
        return None
    names = re.findall(r"\b[xyz]mm\d+\b", ins.operands)
    memory = "(" in ins.operands or "[" in ins.operands
    if not memory and len(set(names)) == 1 and len(names) > 1:
        return None  # zeroing idiom or a self-move
    bits = max(_X86_BITS[r] for r in registers)
    if not memory and "mov" in base and len(names) == 2 and "movsx" not in base and "movzx" not in base:
        return None  # a copy between two registers
    kind = "avx512" if bits == 512 else "avx" if base.startswith("v") else "sse"
    return kind, bits, _x86_element(base)


def _x86_element(base: str) -> str:
    found = _X86_FLOAT.match(base)
    if found:
        return "float" if found.group(1) == "s" else "double"
    found = _X86_INT.match(base)
    return _X86_INT_TYPES[found.group(1)] if found else ""


def _aarch64(ins: Instruction, base: str) -> tuple[str, int | None, str] | None:
    arith = bool(_A64_ARITH.match(base))
    sve = _SVE.search(ins.operands)
    if sve:
        size = sve.group(1)
        return "sve", None, _a64_element(base, size) if arith else ""
    neon = _NEON.search(ins.operands)
    if neon:
        size = neon.group(2)
        bits = int(neon.group(1)) * _A64_BITS[size]
        return ("neon", bits, _a64_element(base, size) if arith else "") if bits >= 64 else None
    if base in ("ldr", "str", "ldp", "stp", "ldur", "stur") and _NEON_Q.search(ins.operands):
        return "neon", 128, ""
    return None


def _a64_element(base: str, size: str) -> str:
    return _A64_FLOAT.get(size, "") if base.startswith("f") else _A64_INT[size]


def _summary(ops: list[tuple[str, int | None, str]]) -> tuple[int | None, str, str]:
    """(widest bits, most common element, isa kind) of a loop's packed instructions; (None, "", "") for none."""
    if not ops:
        return None, "", ""
    kinds = {kind for kind, _, _ in ops}
    kind = "sve" if "sve" in kinds else max(kinds, key=lambda k: ("sse", "neon", "avx", "avx512").index(k))
    widths = [bits for _, bits, _ in ops if bits is not None]
    elements = Counter(element for _, _, element in ops if element)
    element = max(elements, key=lambda e: (elements[e], e)) if elements else ""
    return (None if kind == "sve" else max(widths, default=None)), element, kind
