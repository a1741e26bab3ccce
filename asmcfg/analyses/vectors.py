"""Vectorized loops: packed SIMD instructions that move or compute the elements of the loop's own arrays, with the
register width, the element type and the instruction-set extension they need.

A loop is vectorized when, in its own blocks (those of no inner loop, not cold), a packed instruction accesses a
Java array element indexed by the loop's induction variable (`analyses.arrays`: array register plus a header
displacement, `vmovdqu 0x10(%rbx, %r13, 4), %ymm0`), or computes on what such an instruction loaded
(`vpaddd %ymm1, %ymm0, %ymm0`, `vpmovsxdq %xmm5, %ymm5`). What does not count: the zeroing of a new object
(`vpxor` then `vmovdqu %ymm0, (%rdi)` or a masked `vmovdqu64 %ymm0, (%rbx){%k7}`: no index), the inlined String
intrinsics (`String.equals`, `compareTo`, `hashCode`: indexed from a pointer to the first element, or debug info
naming an `invoke`/`new` bytecode or a `java.lang.String`/`StringLatin1`/`StringUTF16`/`ArraysSupport` method),
and a reduction's epilogue in a strip-mined outer loop (it touches no array).

x86 packed mnemonics: `…ps`/`…pd`, `p…`/`vp…` integer ops, `movdq…`, `vextract…`, `vbroadcast…`, `vperm…`,
`vshuf…` on `xmm`/`ymm`/`zmm` registers. The width is the widest register the loop's qualifying instructions name
(`xmm` 128, `ymm` 256, `zmm` 512 bits); the extension is `avx512` when one of them needs AVX-512 (a `zmm`
register, `xmm16`-`ymm31`, a mask register `%k1`-`%k7`, or an EVEX-only mnemonic: `vmovdqu8/16/32/64`,
`vpternlog…`, `vpermt2…`, …), `avx` for other VEX instructions (`v…`), `sse` otherwise. AArch64: NEON arrangements
(`v0.4s`: 4 x 32 bits) and `q` registers (128 bits), SVE `z` registers (a width the code does not state: the
machine's vector length). The element type comes from the packed arithmetic (`vaddps` float, `vpaddq` long,
`fadd v0.2d` double, `add z0.s` int); a copy alone (`vmovdqu`) names none.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from asmcfg.analyses.arrays import element_accesses, split
from asmcfg.analyses.context import Context, add_tags
from asmcfg.analyses.hotness import is_cold
from asmcfg.model import Analysis, Instruction, IsaName, Loop, LoopFacts, LoopRole, Syntax, Tag, VectorIsa

_X86_REG = re.compile(r"\b([xyz])mm(\d{1,2})\b")
_X86_BITS = {"x": 128, "y": 256, "z": 512}
_X86_PACKED = re.compile(
    r"^v?(?:p[a-z0-9]+|[a-z0-9]+p[sd]|movdq[au]\d*|extract[a-z0-9]+|insert[a-z0-9]+|broadcast[a-z0-9]+|"
    r"perm[a-z0-9]+|shuf[a-z0-9]+)$"
)
_X86_MASK = re.compile(r"(?:%|\b)k[1-7]\b")
_X86_EVEX_ONLY = re.compile(
    r"^v(?:movdq[au](?:8|16|32|64)|pternlog[dq]|perm[it]2[a-z]+|p?compress[a-z]+|p?expand[a-z]+|align[dq]|"
    r"(?:extract|insert)[if](?:32x4|64x2|32x8|64x4)|broadcast[if](?:32x[248]|64x[24])|"
    r"pmov(?:[su]s)?(?:qb|qw|qd|db|dw|wb)|pmovm2[bwdq]|pmov[bwdq]2m|pabsq|pmullq|psraq|psravq|pro[lr]v?[dq]|"
    r"p(?:max|min)[su]q|pconflict[dq]|plzcnt[dq]|popcnt[bwdq]|fixupimm[a-z]+|getexp[a-z]+|getmant[a-z]+|"
    r"rndscale[a-z]+|scalef[a-z]+|range[a-z]+|reduce[a-z]+|rcp14[a-z]+|rsqrt14[a-z]+|cvt[a-z]*2u?qq|"
    r"cvtu?qq2[a-z]+|cvt[a-z]*2udq|cvtudq2[a-z]+|pcmpu?[bwdq]|ptestn?m[bwdq]|p?blendm[a-z]+|pbroadcastm[a-z0-9]+|"
    r"dbpsadbw|pshufbitqmb)$"
)
_X86_FLOAT = re.compile(r"^v?(?:add|sub|mul|div|min|max|sqrt|f[n]?m(?:add|sub)\d*|hadd|hsub|round)p([sd])$")
_X86_INT = re.compile(r"^v?p(?:add|sub|mull|mul|madd|minu|mins|maxu|maxs|sll|srl|sra|abs|avg|cmpeq|cmpgt)([bwdq])$")
_X86_INT_TYPES = {"b": "byte", "w": "short", "d": "int", "q": "long"}
_NEON = re.compile(r"\bv(\d+)\.(\d{1,2})([bhsd])\b")
_NEON_Q = re.compile(r"\bq(\d+)\b")
_SVE = re.compile(r"\bz(\d+)\.([bhsd])\b")
_A64_BITS = {"b": 8, "h": 16, "s": 32, "d": 64}
_A64_INT = {"b": "byte", "h": "short", "s": "int", "d": "long"}
_A64_FLOAT = {"h": "half", "s": "float", "d": "double"}
_A64_ARITH = re.compile(r"^f?(?:add|sub|mul|div|mla|mls|fmla|fmls|fmad|min|max|abs|neg|sqrt)[a-z]*$")
_INTRINSIC_HOLDERS = ("java.lang.String::", "java.lang.StringLatin1::", "java.lang.StringUTF16::",
                      "java.lang.StringCoding::", "jdk.internal.util.ArraysSupport::")
"""Classes whose methods C2 replaces by intrinsics with packed loops of their own."""
_NOT_ELEMENT_WORK = ("invoke", "new", "anewarray", "multianewarray")
"""Bytecodes of an instruction that is an intrinsic's or an allocation's, not a Java array element's."""

Op = tuple[VectorIsa, int | None, str]
"""(extension, bits, element type) of one packed instruction."""


def run(ctx: Context, result: Analysis) -> Analysis:
    """Vector width and element type per loop (in `loop_facts`), and a `vector` tag on the blocks holding a
    vectorized loop's packed array work."""
    facts = dict(result.loop_facts)
    tags: dict[int, set[Tag]] = {}
    for loop in result.loops:
        found = array_vector_ops(ctx, result, loop)
        for block, _ in found:
            tags.setdefault(block, set()).add(Tag.VECTOR)
        bits, element, kind = _summary([v for _, v in found])
        old = facts.get(loop.header, LoopFacts(loop.header, LoopRole.NONE, 1, None, ""))
        facts[loop.header] = replace(old, vector_bits=bits, element=element, vector_isa=kind)
    return add_tags(replace(result, loop_facts=facts), tags)


def own_blocks(result: Analysis, loop: Loop) -> tuple[int, ...]:
    """The loop's blocks that belong to no loop nested inside it."""
    mine = set(loop.blocks)
    inner = {b for other in result.loops if other.depth > loop.depth and set(other.blocks) < mine
             for b in other.blocks}
    return tuple(b for b in loop.blocks if b not in inner)


def array_vector_ops(ctx: Context, result: Analysis, loop: Loop) -> list[tuple[int, Op]]:
    """(block, op) of each packed instruction in the loop's own warm blocks that accesses one of the loop's array
    elements or computes on what such an access loaded (twice round the body, for values carried across trips)."""
    body: list[tuple[int, Instruction]] = []
    for block in sorted(own_blocks(result, loop), key=lambda b: ctx.block(b).start):
        if not is_cold(result, block):
            b = ctx.block(block)
            body.extend((block, ins) for ins in ctx.cfg.method.instructions[b.start : b.end])
    method = ctx.cfg.method
    if not _packs(body, method.isa, ctx.table.base_mnemonic):
        return []  # no packed instruction: none to find, whatever the loop's accesses
    accesses = element_accesses([ins for _, ins in body], method.isa, method.syntax, ctx.table.base_mnemonic)
    loaded: set[str] = set()
    found: dict[int, tuple[int, Op]] = {}
    for _ in range(2):
        for at, (block, ins) in enumerate(body):
            if _not_element_work(ins):
                continue
            target, sources = _vector_ends(ins, method.syntax)
            work = at in accesses or sources & loaded
            op = packed(ins, ctx.table.base_mnemonic(ins.mnemonic), method.isa) if work else None
            if op is not None:
                found[at] = (block, op)
                loaded |= {target} - {""}
            else:
                loaded.discard(target)
    return [found[at] for at in sorted(found)]


def _packs(body: list[tuple[int, Instruction]], isa: IsaName, base: Callable[[str], str]) -> bool:
    """True when an instruction of `body` is a packed SIMD instruction (`packed`): on x86 only one naming an
    `xmm`, `ymm` or `zmm` register can be (most loops have none)."""
    x86 = isa is not IsaName.AARCH64
    return any(packed(ins, base(ins.mnemonic), isa) is not None for _, ins in body if not x86 or "mm" in ins.operands)


def _not_element_work(ins: Instruction) -> bool:
    """True when the debug info says the instruction is an intrinsic's or an allocation's."""
    if not ins.frames:
        return False
    return ins.bytecode.startswith(_NOT_ELEMENT_WORK) or ins.frames[0].method.startswith(_INTRINSIC_HOLDERS)


def _vector_ends(ins: Instruction, syntax: Syntax) -> tuple[str, set[str]]:
    """(vector register written, vector registers read) by number (`ymm5` -> `5`); empty when none. A legacy
    SSE instruction's destination is read too; a store writes no register."""
    parts = split(ins.operands)
    if not parts:
        return "", set()
    if syntax is Syntax.AARCH64:
        names = [_a64_vector(p) for p in parts]
        return names[0], set(names[1:]) - {""}
    target, sources = (parts[0], parts[1:]) if syntax is Syntax.INTEL else (parts[-1], parts[:-1])
    registers = [f.group(0) for p in sources if "(" not in p and "[" not in p for f in _X86_REG.finditer(p)]
    read = {name[3:] for name in registers}
    written = _X86_REG.fullmatch(target.strip().lstrip("%").split("{")[0].strip())
    if written is None:
        return "", read
    if len(parts) > 1 and set(registers) == {written.group(0)} and len(registers) == len(sources):
        return written.group(2), set()  # a zeroing idiom or a self-move: the old value is not read
    if not ins.mnemonic.startswith("v") and "mov" not in ins.mnemonic:
        read.add(written.group(2))
    return written.group(2), read


def _a64_vector(operand: str) -> str:
    found = _SVE.search(operand) or _NEON.search(operand) or _NEON_Q.search(operand)
    return found.group(1) if found else ""


def packed(ins: Instruction, base: str, isa: IsaName) -> Op | None:
    """(extension, bits, element type) of a packed SIMD instruction (`base`: its base mnemonic), None for any
    other instruction."""
    return _aarch64(ins, base) if isa is IsaName.AARCH64 else _x86(ins, base)


def _x86(ins: Instruction, base: str) -> Op | None:
    registers = _X86_REG.findall(ins.operands)
    if not registers or not _X86_PACKED.match(base):
        return None
    memory = "(" in ins.operands or "[" in ins.operands
    if not memory and len(set(registers)) == 1 and len(registers) > 1:
        return None  # zeroing idiom or a self-move
    if not memory and "mov" in base and len(registers) == 2 and "movsx" not in base and "movzx" not in base:
        return None  # a copy between two registers
    bits = max(_X86_BITS[size] for size, _ in registers)
    evex = bits == 512 or any(int(number) >= 16 for _, number in registers) or bool(_X86_MASK.search(ins.operands))
    if evex or _X86_EVEX_ONLY.match(base):
        kind = VectorIsa.AVX512
    else:
        kind = VectorIsa.AVX if base.startswith("v") else VectorIsa.SSE
    return kind, bits, _x86_element(base)


def _x86_element(base: str) -> str:
    found = _X86_FLOAT.match(base)
    if found:
        return "float" if found.group(1) == "s" else "double"
    found = _X86_INT.match(base)
    return _X86_INT_TYPES[found.group(1)] if found else ""


def _aarch64(ins: Instruction, base: str) -> Op | None:
    arith = bool(_A64_ARITH.match(base))
    sve = _SVE.search(ins.operands)
    if sve:
        size = sve.group(2)
        return VectorIsa.SVE, None, _a64_element(base, size) if arith else ""
    neon = _NEON.search(ins.operands)
    if neon:
        size = neon.group(3)
        bits = int(neon.group(2)) * _A64_BITS[size]
        return (VectorIsa.NEON, bits, _a64_element(base, size) if arith else "") if bits >= 64 else None
    if base in ("ldr", "str", "ldp", "stp", "ldur", "stur") and _NEON_Q.search(ins.operands):
        return VectorIsa.NEON, 128, ""
    return None


def _a64_element(base: str, size: str) -> str:
    return _A64_FLOAT.get(size, "") if base.startswith("f") else _A64_INT[size]


_ORDER = (VectorIsa.SSE, VectorIsa.NEON, VectorIsa.AVX, VectorIsa.AVX512)


def _summary(ops: Sequence[Op]) -> tuple[int | None, str, VectorIsa]:
    """(widest bits, most common element, extension) of a loop's packed array work; (None, "", NONE) for none."""
    if not ops:
        return None, "", VectorIsa.NONE
    kinds = {kind for kind, _, _ in ops}
    kind = VectorIsa.SVE if VectorIsa.SVE in kinds else max(kinds, key=_ORDER.index)
    widths = [bits for _, bits, _ in ops if bits is not None]
    elements = Counter(element for _, _, element in ops if element)
    element = max(elements, key=lambda e: (elements[e], e)) if elements else ""
    return (None if kind is VectorIsa.SVE else max(widths, default=None)), element, kind
