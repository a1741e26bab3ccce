"""The OSR entry of OSR compilations: the block that builds the frame, loads the locals from the OSR buffer and calls
`SharedRuntime::OSR_migration_end`, never the verified entry. C1 runs of `java/Osr.java` (JDK 17 and 25,
`-XX:TieredStopAtLevel=1`, a long loop in `main` and one in `once`, called once), the C1 and C2 OSR compilations
of the corpus's RecOsr dumps (x86-64 and AArch64), and C2 ones of `java/Chain.java`; the addresses were read
from the decoded code."""

from __future__ import annotations

from pathlib import Path

import pytest

from asmcfg.model import Analysis, Block, Tag
from asmcfg.run.pipeline import Selector, analyse_method, open_input, pick_one
from tests.corpus import DATA, facts_by_file

NOHSDIS = DATA / "nohsdis"


def analysed(path: Path, compile_id: int) -> Analysis:
    stream = open_input(str(path))
    picked = pick_one(stream.methods, Selector(None, compile_id, None))
    assert picked is not None
    return analyse_method(stream.complete(picked.method))


def tagged(result: Analysis, tag: Tag) -> list[int]:
    """Start addresses of the blocks with `tag`."""
    instructions = result.cfg.method.instructions
    return [instructions[b.start].address for b in result.cfg.blocks if tag in result.block_tags(b.id)]


def block_at(result: Analysis, address: int) -> Block:
    (block,) = [b for b in result.cfg.blocks if result.cfg.method.instructions[b.start].address == address]
    return block


def block_text(result: Analysis, address: int) -> list[str]:
    """`mnemonic operands` of the block starting at `address`."""
    block = block_at(result, address)
    return [f"{i.mnemonic} {i.operands}".strip() for i in result.cfg.method.instructions[block.start : block.end]]


C1_OSR = [
    # file, compile id, verified entry, OSR entry, the OSR entry block's loads from the buffer
    ("jdk17-Osr-c1-nohsdis.txt", 5, 0x7F02D94FB5C0, 0x7F02D94FB697, ["movq 8(%rsi), %rbx", "movl (%rsi), %eax"]),
    ("jdk17-Osr-c1-nohsdis.txt", 7, 0x7F02D94FBFA0, 0x7F02D94FC008,
     ["movl 0x18(%rsi), %ebx", "movq 8(%rsi), %rax", "movl (%rsi), %edx"]),
    ("jdk25-Osr-c1-nohsdis.txt", 8, 0x7FCE7050CE80, 0x7FCE7050CF6C, []),
    ("jdk25-Osr-c1-nohsdis.txt", 10, 0x7FCE7050D500, 0x7FCE7050D570, []),
]


@pytest.mark.parametrize("name, compile_id, verified, osr, loads", C1_OSR)
def test_c1_osr_entry_is_the_frame_building_block_not_the_verified_entry(
    name: str, compile_id: int, verified: int, osr: int, loads: list[str]
) -> None:
    result = analysed(NOHSDIS / name, compile_id)
    assert tagged(result, Tag.VERIFIED_ENTRY) == [verified]
    assert tagged(result, Tag.OSR_ENTRY) == [osr]
    text = block_text(result, osr)
    assert text[:3] == ["movl %eax, -0x14000(%rsp)", "pushq %rbp", text[2]] and text[2].startswith("subq $")
    block = block_at(result, osr)
    if loads:  # JDK 17: one block from the stack bang past the call of OSR_migration_end
        calls = [i.runtime_call() for i in result.cfg.method.instructions[block.start : block.end]]
        assert all(load in text for load in loads) and "SharedRuntime::OSR_migration_end(long*)" in calls
    else:  # JDK 25: the nmethod entry barrier splits the entry block: bang, frame, barrier test
        assert text[3] == "cmpl $0, 0x20(%r15)"
    # the OSR entry is a root: entered from outside, reached by no edge; the static hot path starts there
    assert block.id in result.cfg.roots and all(e.dst != block.id for e in result.cfg.edges)
    assert result.hot_path[0] == block.id


def test_jdk25_c1_osr_entry_reaches_the_migration_call_past_the_entry_barrier() -> None:
    result = analysed(NOHSDIS / "jdk25-Osr-c1-nohsdis.txt", 8)
    instructions = result.cfg.method.instructions
    site = next(i for i, ins in enumerate(instructions) if "OSR_migration_end" in ins.runtime_call())
    assert instructions[site].address == 0x7FCE7050CFAA
    entry = block_at(result, 0x7FCE7050CF6C)
    # bang, frame, barrier test; the barrier call; then the loads from %rsi and the call, no branch between
    assert entry.start < site and site - entry.start == 15
    loads = [f"{i.mnemonic} {i.operands}" for i in instructions[entry.end + 1 : site]]
    assert "movq (%rsi, %rdi), %rbx" in loads and "movl (%rsi, %rdi), %eax" in loads


OTHER_OSR = [
    # C1 on x86-64 and AArch64 (corpus RecOsr, compile 7 RecOsr::main @ 37): after the `ret`, a stack bang
    ("hsdis/jdk17-RecOsr-print-hsdis-att.txt.gz", 7, 0x7F7911401B6A, "movl %eax, -0x14000(%rsp)"),
    ("hsdis/jdk17-aarch64-RecOsr-print-hsdis.txt.gz", 7, 0x5513EAC6A4, "sub x9, sp, #0x14, lsl #12"),
    # C2: after the breakpoint at the verified entry and its padding to 16 bytes; on AArch64 the prolog's nop
    ("hsdis/jdk17-RecOsr-print-hsdis-att.txt.gz", 8, 0x7F7918EC7A30, "movl %eax, -0x14000(%rsp)"),
    ("hsdis/jdk17-aarch64-RecOsr-print-hsdis.txt.gz", 8, 0x551B972AD0, "nop"),
    ("hsdis/jdk17-Shapes-print-hsdis-att.txt.gz", 15, 0x7FC10CEC8070, "movl %eax, -0x14000(%rsp)"),  # {no_reloc}
    ("logc/chain-jdk17-stdout.txt.gz", 14, 0x7F7D78EC87F0, "movl %eax, -0x14000(%rsp)"),
    ("logc/chain-jdk25-stdout.txt.gz", 17, 0x7F5737EC8B10, "movl %eax, -0x14000(%rsp)"),
]


@pytest.mark.parametrize("name, compile_id, osr, first", OTHER_OSR)
def test_osr_entry_block_on_corpus_and_c2_dumps(name: str, compile_id: int, osr: int, first: str) -> None:
    result = analysed(DATA / name, compile_id)
    assert tagged(result, Tag.OSR_ENTRY) == [osr]
    assert block_text(result, osr)[0] == first
    assert osr not in tagged(result, Tag.VERIFIED_ENTRY)


def test_every_c2_osr_compilation_of_the_facts_keeps_its_verified_entry_and_gets_one_osr_entry() -> None:
    checked = 0
    for file, rows in facts_by_file("RecOsr").items():
        name = file.removeprefix("hotspot/").replace("/", "-")
        path = DATA / "hsdis" / (name if name.endswith(".gz") else name + ".gz")
        if not path.exists():
            continue
        for row in rows:
            if row["osr_bci"] is None:
                continue
            result = analysed(path, row["compile_id"])
            assert [hex(a) for a in tagged(result, Tag.VERIFIED_ENTRY)] == [row["verified_entry"]]
            (osr,) = tagged(result, Tag.OSR_ENTRY)
            assert osr > int(row["verified_entry"], 16)
            checked += 1
    assert checked >= 4


TENSOR_SUM4 = [
    # Tensor4D::sum4 has four nested loops (i, j, k, l); its OSR entry jumps into the innermost at bci 40
    ("jdk17-Tensor4D-print-hsdis-att.txt.gz", 5), ("jdk17-Tensor4D-print-hsdis-att.txt.gz", 8),
    ("jdk17-aarch64-Tensor4D-print-hsdis.txt.gz", 5), ("jdk25-Tensor4D-print-hsdis-att.txt.gz", 7),
]


@pytest.mark.parametrize("name, compile_id", TENSOR_SUM4)
def test_the_loops_around_the_one_an_osr_entry_enters_are_still_loops(name: str, compile_id: int) -> None:
    result = analysed(DATA / "hsdis" / name, compile_id)
    assert result.cfg.method.header.osr_bci == 40
    depths = sorted({loop.depth for loop in result.loops})
    assert depths[:4] == [1, 2, 3, 4], "the i, j, k and l loops nest four deep"
    (osr,) = [b.id for b in result.cfg.blocks if Tag.OSR_ENTRY in result.block_tags(b.id)]
    assert not any(osr == loop.header for loop in result.loops)


def test_a_c2_osr_compilation_reached_from_its_osr_entry_alone_has_its_loops_on_aarch64() -> None:
    x86 = analysed(DATA / "hsdis" / "jdk17-Tensor4D-print-hsdis-att.txt.gz", 8)
    arm = analysed(DATA / "hsdis" / "jdk17-aarch64-Tensor4D-print-hsdis.txt.gz", 7)
    assert arm.cfg.method.header.osr_bci == x86.cfg.method.header.osr_bci == 40
    assert len(arm.loops) == len(x86.loops) == 10
