"""Vectorized loops, on real dumps: a loop is vectorized only when packed instructions move or compute its own
array elements, never for the zeroing of a new object or an inlined String intrinsic; AVX-512 instructions are
`avx512`. The VecShapes dumps (`java/VecShapes.java`, JDK 17 and 25, `[MachCode]` hex, AVX2 machine) and the
corpus's hsdis dumps (AVX-512 machine)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from asmcfg import isa
from asmcfg.analyses.vectors import own_blocks, packed
from asmcfg.model import Analysis, Compiler, Instruction, IsaName, VectorIsa
from asmcfg.run.pipeline import Selector, analyse_method, open_input, pick_one
from tests.corpus import DATA

SHAPES = {17: DATA / "nohsdis/jdk17-VecShapes-nohsdis.txt.gz", 25: DATA / "nohsdis/jdk25-VecShapes-nohsdis.txt.gz"}
PACKED = re.compile(r"^v?(?:p|movdq)[a-z0-9]*$")


def analysed(path: Path, compile_id: int) -> Analysis:
    stream = open_input(str(path))
    picked = pick_one(stream.methods, Selector(None, compile_id, None))
    assert picked is not None and picked.method.header.compiler is Compiler.C2
    return analyse_method(stream.complete(picked.method))


def labels(result: Analysis) -> dict[int, tuple[int | None, str, str]]:
    """(bits, element, extension) of each vectorized loop, by the address of its header block."""
    found = {}
    for loop in result.loops:
        facts = result.loop_facts[loop.header]
        if facts.vectorized:
            address = result.cfg.method.instructions[result.cfg.blocks[loop.header].start].address
            found[address] = (facts.vector_bits, facts.element, str(facts.vector_isa))
    return found


def packed_in_loops(result: Analysis) -> set[str]:
    """Mnemonics of the packed instructions in the loops' own warm blocks."""
    code = result.cfg.method.instructions
    return {ins.mnemonic for loop in result.loops for b in own_blocks(result, loop)
            for ins in code[result.cfg.blocks[b].start : result.cfg.blocks[b].end]
            if "mm" in ins.operands and PACKED.match(ins.mnemonic)}


@pytest.mark.parametrize(("jdk", "compile_ids"), [(17, (111, 112)), (25, (79, 80))])
def test_loop_zeroing_what_it_allocates_is_not_vectorized(jdk: int, compile_ids: tuple[int, ...]) -> None:
    # `throwing`: each trip may allocate and throw an IllegalStateException and allocates an int[]; C2 zeroes
    # them with `vpxor %ymm0` and `vmovdqu %ymm0, (%rdi)` / `0x20(%rdi)` (pointer bumped by `addq $0x40, %rdi`),
    # while the loop's own loads of `a[i]` are scalar (`movl 0x10(%r.., %r.., 4)`)
    for compile_id in compile_ids:
        result = analysed(SHAPES[jdk], compile_id)
        assert {"vpxor", "vmovdqu"} <= packed_in_loops(result)
        assert labels(result) == {}
        assert not any("vector" in result.block_tags(b.id) for b in result.cfg.blocks)


@pytest.mark.parametrize(("jdk", "compile_ids", "intrinsics"), [
    (17, (120, 121), {"vpcmpestri", "vptest"}),
    (25, (88, 89), {"vpcmpestri", "vptest", "vpmulld", "vpmovzxbd"}),
])
def test_loop_calling_string_intrinsics_is_not_vectorized(jdk: int, compile_ids: tuple[int, ...],
                                                          intrinsics: set[str]) -> None:
    # `strings`: String.equals (`vmovdqu (%rdi, %rcx), %ymm1; vpxor; vptest`), compareTo (`vpcmpestri`) and, on
    # JDK 25, hashCode (ArraysSupport.vectorizedHashCode: `vmovq (%rdi, %r10)`, `vpmovzxbd`, `vpmulld`) index
    # from a pointer to the first byte; the loop over `a[i]` itself is scalar
    for compile_id in compile_ids:
        result = analysed(SHAPES[jdk], compile_id)
        assert intrinsics <= packed_in_loops(result)
        assert labels(result) == {}


@pytest.mark.parametrize(("jdk", "compile_id", "main", "drain"), [
    (17, 113, 0x7F3AA0ED5320, 0x7F3AA0ED5398),
    (17, 114, 0x7F3AA0ED5900, 0x7F3AA0ED5970),
    (25, 81, 0x7FE443ED0B00, 0x7FE443ED0B78),
    (25, 82, 0x7FE443ED0F52, 0x7FE443ED1047),
])
def test_add_int_arrays_main_and_drain_loops_are_256_bit_int(jdk: int, compile_id: int, main: int,
                                                             drain: int) -> None:
    # `c[i] = a[i] + b[i]`: `vmovdqu 0x10(%rdx, %rax, 4), %ymm0; vpaddd 0x10(%rsi, %rax, 4), %ymm0, %ymm0;
    # vmovdqu %ymm0, 0x10(%rcx, %rax, 4)` indexed by the loop's `addl $0x20, %eax` (JDK 25: `leal 0x40(%rbx),
    # %ebp` then `movl %ebp, %ebx`); the pre- and post-loops are scalar
    result = analysed(SHAPES[jdk], compile_id)
    assert labels(result) == {main: (256, "int", "avx"), drain: (256, "int", "avx")}


@pytest.mark.parametrize(("jdk", "compile_id", "main", "drain"), [
    (17, 116, 0x7F3AA0ED61D0, 0x7F3AA0ED623C),
    (25, 84, 0x7FE443ED16A2, 0x7FE443ED1712),
])
def test_zeroing_an_array_in_a_java_loop_is_vectorized(jdk: int, compile_id: int, main: int, drain: int) -> None:
    # `a[i] = 0`: stores of a zero register, but into the loop's own array (`vmovdqu %ymm0, 0x10(%rsi, %r10, 4)`)
    result = analysed(SHAPES[jdk], compile_id)
    assert labels(result) == {main: (256, "", "avx"), drain: (256, "", "avx")}


def test_intrinsic_and_zeroing_loops_of_the_corpus_are_not_vectorized() -> None:
    # ExcSyncAlloc::copyAndCompare (AVX-512 machine): String.equals/compareTo/compress, Arrays.hashCode and
    # ClearArray loops, masked `vmovdqu64 %ymm1, (%rdi) {%k6}` among them; seven loops were labelled before
    for name, compile_id in (("hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz", 130),
                             ("hsdis/jdk25-ExcSyncAlloc-print-hsdis-att.txt.gz", 139),
                             ("hsdis/jdk25-ExcSyncAlloc-print-hsdis-intel.txt.gz", 142)):
        result = analysed(DATA / name, compile_id)
        assert len(result.loops) > 10 and labels(result) == {}


def test_reduction_epilogue_leaves_the_strip_mined_outer_loop_scalar() -> None:
    # Tensor4D::sum4, JDK 25: the main loop is 256-bit long (`vpmovsxdq` widens `vmovdqu 0x10(%r11, %r8, 4),
    # %xmm5` to ymm, `vpaddq`); its strip-mined outer loop only folds the accumulator (`vextracti128`, `vpaddq`)
    result = analysed(DATA / "hsdis/jdk25-Tensor4D-print-hsdis-att.txt.gz", 11)
    assert labels(result) == {0x7FA5DFEC7E70: (256, "long", "avx")}


def instruction(path: Path, address: int) -> Instruction:
    stream = open_input(str(path))
    for method in stream.methods:
        for ins in method.instructions:
            if ins.address == address:
                return ins
    raise AssertionError(f"no instruction at {address:#x}")


@pytest.mark.parametrize(("name", "address", "text", "expected"), [
    ("hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz", 0x7F8E80ED3E0C, "%ymm0, (%r10) {%k7}",
     (VectorIsa.AVX512, 256, "")),
    ("hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz", 0x7F8E80ED5A40, "(%r9), %ymm0 {%k7} {z}",
     (VectorIsa.AVX512, 256, "")),
    ("hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz", 0x7F8E80ED5BB0, "%xmm0, (%rbp)", (VectorIsa.AVX512, 128, "")),
    ("hsdis/jdk25-ExcSyncAlloc-print-hsdis-intel.txt.gz", 0x7F296FED128D, "ymmword ptr [r10] {k7}, ymm0",
     (VectorIsa.AVX512, 256, "")),
    ("hsdis/jdk17-VecLong-print-hsdis-att.txt.gz", 0x7F1298EC7AC0, "0x50(%r9, %rbp, 4), %zmm0, %zmm0",
     (VectorIsa.AVX512, 512, "float")),
    ("hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz", 0x7F8E80ED5A68, "%ymm1, (%rdi)", (VectorIsa.AVX, 256, "")),
])
def test_instructions_needing_avx512_are_avx512(name: str, address: int, text: str,
                                                expected: tuple[VectorIsa, int, str]) -> None:
    # mask registers and `vmovdqu64`/`vmovdqu16` (EVEX only) on xmm/ymm need AVX-512(VL), not AVX
    ins = instruction(DATA / name, address)
    assert ins.operands == text
    assert packed(ins, isa.for_name(IsaName.X86_64).base_mnemonic(ins.mnemonic), IsaName.X86_64) == expected
