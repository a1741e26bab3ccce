"""Comments of `[MachCode]` hex dumps land on the instruction whose bytes they describe, and the calls and type
checks read from them are right, on dumps made for it (tests/data/java/Reloc.java and Guard.java, see
tests/data/SOURCES.md). HotSpot prints a chunk's first relocation at the 4-byte chunk holding its address; the
instruction that holds it is told by the relocation's kind (the call, not the alignment `nop` or the stub's
`jmp` before it; the `cmpl` with the class's 32-bit immediate, not the `xorl` before it)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from asmcfg.model import Analysis, EdgeKind
from asmcfg.run.pipeline import analyse_method, open_input

NOHSDIS = Path(__file__).parent / "data" / "nohsdis"


@cache
def analysed(name: str, compile_id: int) -> Analysis:
    """The analysis of one compilation of a copied no-hsdis dump."""
    (method,) = [m for m in open_input(str(NOHSDIS / name)).methods if m.header.compile_id == compile_id]
    return analyse_method(method)


def calls(result: Analysis) -> dict[int, tuple[str, str]]:
    """Call address -> (kind, callee)."""
    return {result.cfg.method.instructions[c.site].address: (str(c.kind), c.callee) for c in result.calls}


def checks(result: Analysis) -> dict[int, tuple[tuple[str, ...], str]]:
    """Type-check address -> (classes, what its failing side leads to)."""
    return {result.cfg.method.instructions[t.site].address: (t.classes, t.fails_to) for t in result.type_checks}


def at(result: Analysis, address: int) -> tuple[int, str, tuple[str, ...]]:
    """(index, mnemonic, relocations) of the instruction at `address`."""
    (index,) = [i for i, ins in enumerate(result.cfg.method.instructions) if ins.address == address]
    ins = result.cfg.method.instructions[index]
    return index, ins.mnemonic, ins.relocs


OPT, SOUND = ("optimized_virtual", "sound")


def test_c2_java_calls_after_alignment_nops_keep_their_kind_and_callee() -> None:
    # Reloc::work (C2): helper@1 and @66 static, a.sound@10 megamorphic, d.sound@20, ((Cat) o).sound@41 and the
    # two receivers of ((Bird) o).sound@61 direct (the log's <call> records: no virtual='1' but for bci 10)
    jdk25 = calls(analysed("jdk25-Reloc-nohsdis.txt", 26))
    assert [jdk25[a] for a in (0x7F2DA7EC90AF, 0x7F2DA7EC90D3, 0x7F2DA7EC90FB, 0x7F2DA7EC912F, 0x7F2DA7EC918F,
                                0x7F2DA7EC91A7, 0x7F2DA7EC91BB)] == [
        ("static", "helper"), ("virtual", SOUND), (OPT, SOUND), (OPT, SOUND), (OPT, SOUND), (OPT, SOUND),
        ("static", "helper")]
    jdk17 = calls(analysed("jdk17-Reloc-nohsdis.txt", 22))
    assert [jdk17[a] for a in (0x7F7618EC8C83, 0x7F7618EC8C9F, 0x7F7618EC8CBB, 0x7F7618EC8CE7, 0x7F7618EC8D3B,
                                0x7F7618EC8D4B, 0x7F7618EC8D57)] == [
        ("static", "helper"), ("virtual", SOUND), (OPT, SOUND), (OPT, SOUND), (OPT, SOUND), (OPT, SOUND),
        ("static", "helper")]
    assert "unknown" not in {kind for kind, _ in [*jdk25.values(), *jdk17.values()]}


def test_the_alignment_nop_and_the_post_call_nop_get_what_is_theirs() -> None:
    result = analysed("jdk25-Reloc-nohsdis.txt", 26)
    # chunk 0x…912c holds the 1-byte alignment nop and the call; the chunk 0x…9134 the post-call nop alone
    assert at(result, 0x7F2DA7EC912E)[1:] == ("nop", ())
    assert at(result, 0x7F2DA7EC912F)[1:] == ("callq", ("optimized virtual_call",))
    assert at(result, 0x7F2DA7EC9134)[1:] == ("nopl", ("post_call_nop",))
    # chunk 0x…90b0 holds the end of a call and the post-call nop after it: the nop's, not the call's
    assert at(result, 0x7F2DA7EC90AF)[2] == ("static_call",)
    assert at(result, 0x7F2DA7EC90B4)[1:] == ("nopl", ("post_call_nop",))


def test_c1_throw_call_after_a_stub_jump_is_the_throw() -> None:
    # C1 stubs of Reloc::field: the counter-overflow stub ends `jmp` back into the method, and the implicit null
    # check's stub `call throw_null_pointer_exception` starts in the same chunk
    for name, compile_id, jump, throw, overflow in (
        ("jdk25-Reloc-nohsdis.txt", 16, 0x7F2DA0401DFD, 0x7F2DA0401DFF, 0x7F2DA0401DF8),
        ("jdk17-Reloc-nohsdis.txt", 12, 0x7F7611403015, 0x7F7611403017, 0x7F7611403010),
    ):
        result = analysed(name, compile_id)
        index, mnemonic, relocs = at(result, jump)
        assert (mnemonic, relocs) == ("jmp", ())
        assert all(t.site != index for t in result.traps.values())
        throw_index, _, relocs = at(result, throw)
        assert relocs[0].startswith("runtime_call") and "throw_null_pointer_exception" in relocs[0]
        (trap,) = [t for t in result.traps.values() if t.site == throw_index]
        assert (str(trap.kind), trap.reason) == ("throw", "null_check")
        block = next(b.id for b in result.cfg.blocks if b.start <= throw_index < b.end)
        assert not [e for e in result.cfg.edges if e.src == block and e.kind is EdgeKind.FALLTHROUGH]
        assert calls(result)[overflow][0] == "stub" and "counter_overflow" in calls(result)[overflow][1]
        assert throw not in calls(result)


def test_a_class_constant_goes_to_the_compare_not_the_xor_before_it() -> None:
    # C2 Shapes::total: `xorl %ebx,%ebx` and `cmpl $0x1001000,%ecx ; {metadata('Shapes$Circle')}` share a chunk
    for name, compile_id, xor, compare in (("jdk17-Shapes-print-nohsdis.txt", 16, 0x7F952CEC879C, 0x7F952CEC879E),
                                           ("jdk25-Shapes-print-nohsdis.txt", 15, 0x7F667BEC84E8, 0x7F667BEC84EA)):
        result = analysed(name, compile_id)
        assert at(result, xor)[1:] == ("xorl", ())
        assert at(result, compare)[1:] == ("cmpl", ("metadata('Shapes$Circle')",))
        assert checks(result)[compare] == (("Shapes$Circle",), "class_check")


def test_c1_lock_stack_and_class_init_compares_are_no_type_checks() -> None:
    run = checks(analysed("jdk25-Guard-nohsdis.txt", 9))
    # `movabs $…,%rdx ; {metadata('Guard$Lazy')}` then `cmpb $4,0x130(%rdx)`: Lazy's initialization state
    assert at(analysed("jdk25-Guard-nohsdis.txt", 9), 0x7F6FE0400A8D)[1] == "cmpb"
    assert 0x7F6FE0400A8D not in run
    # the positive controls: `o instanceof String`, `(String) o`, `(Integer) …` compare the class in a register
    assert run == {
        0x7F6FE04004F0: (("java/lang/String",), ""),
        0x7F6FE04005E6: (("java/lang/String",), "class_check"),
        0x7F6FE0400859: (("java/lang/Integer",), ""),
        0x7F6FE0400971: (("java/lang/Integer",), "class_check"),
    }
    # Guard::lockCast: String's class in %rdi, then `movl 0x7d0(%r15),%edi` and `cmpq -8(%r15,%rdi),%rcx`
    lock_cast = analysed("jdk25-Guard-nohsdis.txt", 17)
    assert at(lock_cast, 0x7F6FE0402992)[1] == "movl" and at(lock_cast, 0x7F6FE04029A5)[1] == "cmpq"
    assert checks(lock_cast) == {0x7F6FE0402975: (("java/lang/String",), "class_check")}


def test_a_c1_implicit_null_check_compare_is_no_type_check() -> None:
    # Reloc::work (C1): `cmpq (%rsi),%rax` faults on a null receiver while %rax still holds Cat's class
    result = analysed("jdk25-Reloc-nohsdis.txt", 15)
    index = at(result, 0x7F2DA04017B0)[0]
    assert result.cfg.method.instructions[index].implicit_target is not None
    found = checks(result)
    assert 0x7F2DA04017B0 not in found
    assert found[0x7F2DA040179F] == (("Reloc$Cat",), "class_check")
