"""What HotSpot means, on real dumps: inlining at each call, vectorized loops, C2's loop copies, allocation,
locking and GC barriers, type checks; and no such tag where the code shows none."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from asmcfg.dialects.logcompilation import link
from asmcfg.model import Analysis, Compiler
from asmcfg.run.pipeline import Selector, analyse_method, open_input, pick_one
from tests.corpus import DATA, json_methods, run_cli

LOGC = DATA / "logc"
MEANING_TAGS = {"vector", "java_call", "type_check", "allocation", "allocation_slow", "lock", "lock_slow", "unlock",
                "unlock_slow", "gc_barrier", "gc_barrier_slow"}


def analysed(path: Path, compile_id: int | None = None, pattern: str | None = None) -> Analysis:
    stream = open_input(str(path))
    picked = pick_one(stream.methods, Selector(pattern, compile_id, Compiler.C2 if pattern else None))
    assert picked is not None
    return analyse_method(stream.complete(picked.method))


def roles(result: Analysis) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for header, facts in sorted(result.loop_facts.items()):
        found.setdefault(facts.role, []).append(header)
    return found


def main_loop(result: Analysis):  # type: ignore[no-untyped-def]
    (header,) = roles(result)["main"]
    return result.loop_facts[header]


@pytest.mark.parametrize(("name", "compile_id", "unroll"), [
    ("hsdis/jdk17-VecLong-print-hsdis-att.txt.gz", 14, 4),
    ("hsdis/jdk17-VecLong-print-hsdis-intel.txt.gz", 14, 4),
    ("hsdis/jdk25-VecLong-print-hsdis-att.txt.gz", 17, 8),
    ("hsdis/jdk25-VecLong-print-hsdis-intel.txt.gz", 16, 8),
])
def test_veclong_addf_main_loop_is_512_bit_float_between_pre_drain_and_post(name: str, compile_id: int,
                                                                             unroll: int) -> None:
    result = analysed(DATA / name, compile_id)
    main = main_loop(result)
    assert (main.vector_bits, main.element, main.vector_isa, main.unroll) == (512, "float", "avx512", unroll)
    found = roles(result)
    assert len(found["pre"]) == len(found["post"]) == len(found["drain"]) == len(found["strip_mined_outer"]) == 1
    drain = result.loop_facts[found["drain"][0]]
    assert drain.vector_bits == 512 and drain.unroll == 1
    assert not result.loop_facts[found["pre"][0]].vectorized and not result.loop_facts[found["post"][0]].vectorized
    # the pre-loop comes before the strip-mined main loop, the drain and post loops after it
    assert found["pre"][0] < found["strip_mined_outer"][0] < found["drain"][0] < found["post"][0]


def test_aarch64_addf_is_sve_float_from_the_hex_and_unnamed_in_capstone4_text() -> None:
    result = analysed(DATA / "nohsdis/jdk17-aarch64-VecLong-print-nohsdis.txt", 15)
    assert {(f.vector_isa, f.vector_bits, f.element) for f in result.loop_facts.values() if f.vectorized} == {
        ("sve", None, "float")}
    # loop copies are read from x86 array addressing only: on AArch64 no role and no unroll is claimed
    assert {(f.role, f.unroll) for f in result.loop_facts.values()} <= {("", None), ("strip_mined_outer", None)}
    # the hsdis of that run (capstone 4) prints the SVE instructions as .byte: nothing is claimed
    text = analysed(DATA / "hsdis/jdk17-aarch64-VecLong-print-hsdis.txt.gz", 13)
    assert not any(f.vectorized for f in text.loop_facts.values())
    assert not any("vector" in text.block_tags(b.id) for b in text.cfg.blocks)


@pytest.mark.parametrize("name", ["hsdis/jdk17-VecLong-print-hsdis-att.txt.gz",
                                  "hsdis/jdk25-VecLong-print-hsdis-att.txt.gz"])
def test_scalar_mix_is_not_vectorized(name: str) -> None:
    result = analysed(DATA / name, pattern="mix")
    assert result.loops and not any(f.vectorized for f in result.loop_facts.values())
    assert not any(result.block_tags(b.id) & MEANING_TAGS for b in result.cfg.blocks)


@pytest.mark.parametrize(("version", "compile_id"), [("jdk17", 502), ("jdk25", 566)])
def test_devbench_vecaddf_hottest_loop_width(version: str, compile_id: int) -> None:
    result = analysed(DATA / f"perfasm/{version}-DevBench/perfasm-console.txt", compile_id)
    hottest = max(result.loops, key=lambda loop: sum(result.block_heat.get(b, (0.0,))[0] for b in loop.blocks
                                                    if not any(o.header != loop.header and b in o.blocks
                                                               and o.depth > loop.depth for o in result.loops)))
    facts = result.loop_facts[hottest.header]
    assert (facts.vector_bits, facts.element) == (512, "float")
    # a perfasm region is partial: no scalar copy tells the Java loop's step, so the unroll is not claimed
    assert facts.unroll is None
    # and only a packed strip-mined main loop is named, never a pre- or post-loop guess
    assert not {f.role for f in result.loop_facts.values()} & {"pre", "post", "drain"}


def test_tensor4d_sum4_inner_loop_copies_jdk25() -> None:
    result = analysed(DATA / "hsdis/jdk25-Tensor4D-print-hsdis-att.txt.gz", 12)
    found = roles(result)
    assert (found["pre"], found["main"], found["post"], found["strip_mined_outer"]) == ([23], [28], [17], [27])
    main = result.loop_facts[28]
    assert (main.vector_bits, main.element, main.unroll) == (256, "long", 2)  # vpmovsxdq + vpaddq on ymm


def test_tensor4d_sum4_copies_jdk17_only_in_the_osr_compilation() -> None:
    osr = roles(analysed(DATA / "hsdis/jdk17-Tensor4D-print-hsdis-att.txt.gz", 8))  # B1: the OSR entry
    assert sorted(osr["main"]) == [20, 47] and sorted(osr["pre"]) == [16, 34] and sorted(osr["post"]) == [24, 39]
    # the normal compilation keeps the range checks inside the innermost loop and makes no copies of it
    normal = analysed(DATA / "hsdis/jdk17-Tensor4D-print-hsdis-att.txt.gz", 9)
    assert {f.role for f in normal.loop_facts.values()} == {""}


def test_syncadd_lock_fast_and_slow_paths_jdk17() -> None:
    result = analysed(DATA / "hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz", 107)
    locks = [p for p in result.runtime_paths if p.kind == "lock"]
    assert [p.what for p in locks] == ["_complete_monitor_locking_Java"] * 3
    for path in locks:
        assert "lock_slow" in result.block_tags(path.slow) and path.fast
        fast = result.cfg.blocks[path.fast[0]]
        assert result.cfg.method.instructions[fast.end - 1].mnemonic == "jne"
        assert all("lock" in result.block_tags(b) for b in path.fast)
    # JDK 17's hsdis prints no relocation on the monitor-exit call (movabs; call *%r10): it stays unnamed
    assert not [p for p in result.runtime_paths if p.kind == "unlock"]
    assert [c.kind for c in result.calls if c.kind == "unknown"] == ["unknown"] * 3


@pytest.mark.parametrize(("name", "compile_id", "lock"), [
    ("hsdis/jdk25-ExcSyncAlloc-print-hsdis-att.txt.gz", 68, "C2 Runtime complete_monitor_locking"),
    ("hsdis/jdk17-aarch64-ExcSyncAlloc-print-hsdis.txt.gz", 98, "_complete_monitor_locking_Java"),
])
def test_syncadd_lock_and_unlock_paths(name: str, compile_id: int, lock: str) -> None:
    result = analysed(DATA / name, compile_id)
    kinds = [(p.kind, p.what) for p in result.runtime_paths]
    unlock = "SharedRuntime::complete_monitor_unlocking_C(oopDesc*, BasicLock*, JavaThread*)"
    assert kinds.count(("lock", lock)) == 3 and kinds.count(("unlock", unlock)) == 3
    assert all(p.fast and f"{p.kind}_slow" in result.block_tags(p.slow) for p in result.runtime_paths)
    unlock_call = next(c for c in result.calls if c.callee == unlock)
    assert unlock_call.kind == "runtime"  # named from the instruction loading the address before `call`/`blr`


def test_allocpoints_c1_allocates_with_g1_barriers_c2_does_not_allocate() -> None:
    c1 = analysed(DATA / "hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz", 38)
    kinds = [(p.kind, p.what) for p in c1.runtime_paths]
    assert kinds == [("allocation", "fast_new_instance Runtime1 stub"),
                     ("allocation", "new_object_array Runtime1 stub"),
                     ("gc_barrier", "g1_pre_barrier_slow"), ("gc_barrier", "g1_post_barrier_slow")]
    for path in c1.runtime_paths[2:]:
        assert "gc_barrier_slow" in c1.block_tags(path.slow) and path.fast
        assert all("gc_barrier" in c1.block_tags(b) for b in path.fast)
    checkcast = [t for t in c1.type_checks if t.classes == ("ExcSyncAlloc$Point",)]
    assert [(t.fails_to, t.bytecode) for t in checkcast] == [("class_check", "checkcast")]
    # C2 scalar-replaced both allocations (escape analysis): a pure integer loop with none of these tags
    c2 = analysed(DATA / "hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz", 94)
    assert c2.loops and not c2.runtime_paths and not c2.calls and not c2.type_checks
    assert not any(c2.block_tags(b.id) & (MEANING_TAGS | {"runtime_call"}) for b in c2.cfg.blocks)


def test_allocation_slow_paths_c2() -> None:
    parse = analysed(DATA / "hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz", 125)
    (alloc,) = parse.runtime_paths
    assert (alloc.kind, alloc.what) == ("allocation", "_new_instance_Java") and alloc.fast
    assert "allocation_slow" in parse.block_tags(alloc.slow) and "allocation" in parse.block_tags(alloc.fast[0])
    copy = analysed(DATA / "hsdis/jdk25-ExcSyncAlloc-print-hsdis-att.txt.gz", 139)
    assert [p.what for p in copy.runtime_paths] == ["C2 Runtime new_array_nozero"] * 3
    assert [c.kind for c in copy.calls if "arraycopy" in c.callee] == ["stub", "stub"]


@pytest.mark.parametrize(("name", "total", "perim"), [
    ("hsdis/jdk17-Shapes-print-hsdis-att.txt.gz", 25, 31),
    ("hsdis/jdk25-Shapes-print-hsdis-att.txt.gz", 41, 25),
])
def test_shapes_calls_after_the_megamorphic_recompile(name: str, total: int, perim: int) -> None:
    area = analysed(DATA / name, total)
    assert [(c.kind, c.callee) for c in area.calls if c.java] == [("interface", "area")]
    perimeter = analysed(DATA / name, perim)
    assert [(c.kind, c.callee) for c in perimeter.calls if c.java] == [("virtual", "perimeter")]
    guards = [t for r in (area, perimeter) for t in r.type_checks if t.fails_to.endswith("call")]
    assert guards and all(t.classes == ("Shapes$Circle",) for t in guards)


def test_shapes_monomorphic_compile_guards_with_class_check_traps() -> None:
    result = analysed(DATA / "hsdis/jdk17-Shapes-print-hsdis-att.txt.gz", 15)
    circle = [t for t in result.type_checks if t.classes == ("Shapes$Circle",)]
    assert len(circle) == 6 and {t.fails_to for t in circle} == {"class_check"}
    assert all("type_check" in result.block_tags(t.block) for t in circle)


def _type_checks(path: Path) -> list[tuple[str, tuple[str, ...], str, str]]:
    """(method, classes, fails_to, bytecode) of every type check of every method of `path`, in input order."""
    stream = open_input(str(path))
    return [
        (method.header.name, t.classes, t.fails_to, t.bytecode)
        for method in map(stream.complete, stream.methods) for t in analyse_method(method).type_checks
    ]


@pytest.mark.parametrize("program", ["ExcSyncAlloc", "Switches", "VecLong", "Shapes"])
def test_aarch64_finds_the_type_checks_x86_finds_in_the_same_program(program: str) -> None:
    # AArch64 loads the class into a register (`movz x14, #0x100, lsl #16 ; {metadata('Shapes$Circle')}`) and
    # compares a narrower view of it (`cmp w13, w14`); x86 names the class in the compare itself
    x86 = _type_checks(DATA / f"hsdis/jdk17-{program}-print-hsdis-att.txt.gz")
    aarch64 = _type_checks(DATA / f"hsdis/jdk17-aarch64-{program}-print-hsdis.txt.gz")
    assert x86 and [c for c in aarch64 if c[1]]
    if program != "Shapes":  # both runs compiled the same methods the same way
        assert aarch64 == x86


def test_aarch64_class_guard_through_a_register_fails_to_its_class_check_trap() -> None:
    result = analysed(DATA / "hsdis/jdk17-aarch64-Shapes-print-hsdis.txt.gz", 16)
    instructions = result.cfg.method.instructions
    circle = [t for t in result.type_checks if t.classes == ("Shapes$Circle",) and t.fails_to == "class_check"]
    assert len(circle) == 6 and {t.bytecode for t in circle} == {"invokeinterface area"}
    first = instructions[circle[0].site]
    assert (first.address, first.mnemonic, first.operands) == (0x551B9730FC, "cmp", "w13, w14")
    assert all("type_check" in result.block_tags(t.block) for t in circle)


def _log_decisions(path: Path, compile_id: int) -> dict[int, tuple[str, str]]:
    """bci -> (kind, reason) of the task's decisions, read from the log text with regular expressions."""
    with gzip.open(path, "rt") as handle:
        text = handle.read()
    task = re.search(rf"<task compile_id='{compile_id}'.*?</task>", text, re.S)
    assert task is not None
    found, bci = {}, -1
    for line in task.group().splitlines():
        bc = re.match(r"<bc code='\d+' bci='(\d+)'/>", line)
        decision = re.match(r"<inline_(success|fail) reason='([^']*)'/>", line)
        if bc:
            bci = int(bc.group(1))
        elif decision:
            found[bci] = (decision.group(1), decision.group(2))
    return found


@pytest.mark.parametrize(("version", "compile_id"), [("jdk17", 24), ("jdk25", 27)])
@pytest.mark.parametrize("with_log", [False, True])
def test_inlining_decisions_at_each_call_site(version: str, compile_id: int, with_log: bool) -> None:
    xml = LOGC / f"inlining-{version}.xml.gz"
    if with_log:
        stream = open_input(str(LOGC / f"inlining-{version}-stdout.txt.gz"))
        picked = pick_one(stream.methods, Selector(None, compile_id))
        assert picked is not None and picked.method.log_inlines is None
        result = analyse_method(link.attach(picked.method, link.read(str(xml)), strict=True))
    else:
        result = analysed(xml, compile_id)
    logged = _log_decisions(xml, compile_id)
    assert logged == {11: ("success", "inline (hot)"), 18: ("fail", "hot method too big"),
                      30: ("fail", "virtual call")}
    decisions = {(d.bci, d.callee): (d.inlined, d.reason) for d in result.cfg.method.log_inlines or ()}
    assert decisions == {(11, "Inlining::tiny"): (True, "inline (hot)"),
                         (18, "Inlining::big"): (False, "hot method too big"),
                         (30, "Inlining$Op::apply"): (False, "virtual call")}
    java = [c for c in result.calls if c.java]
    assert [(c.kind, c.callee, c.frames[0].bci, c.not_inlined_because()) for c in java] == [
        ("static", "Inlining::big", 18, "hot method too big"),
        ("virtual", "Inlining$Op::apply", 30, "virtual call"),
    ]
    assert all("java_call" in result.block_tags(c.block) for c in java)


def test_inlining_in_json_summary_and_dot() -> None:
    xml = str(LOGC / "inlining-jdk17.xml.gz")
    (method,) = json_methods(xml, "--compile-id", "24")
    assert [(c["kind"], c["callee"], [d["reason"] for d in c["inlining"]]) for c in method["calls"]] == [
        ("static", "Inlining::big", ["hot method too big"]), ("virtual", "Inlining$Op::apply", ["virtual call"])]
    assert [(d["bci"], d["inlined"]) for d in method["inlining"]] == [(11, True), (18, False), (30, False)]
    code, out, err = run_cli(xml, "--compile-id", "24")
    assert code == 0
    assert "call: static Inlining::big -- NOT inlined: hot method too big" in out
    assert "call: virtual Inlining$Op::apply -- NOT inlined: virtual call" in out
    assert re.search(r"Calls not inlined in hot blocks.*hot method too big.*virtual call", err, re.S)
    assert re.search(r"Inlining::run@11 .*Inlining::tiny .*inlined \(hot\) ", err)


def test_log_of_another_run_is_refused() -> None:
    code, _, err = run_cli(str(LOGC / "inlining-jdk25-stdout.txt.gz"), "--compile-id", "27", "--log",
                           str(LOGC / "inlining-jdk17.xml.gz"), "-q")
    assert code == 1 and "compile id 27 is not in the --log log" in err and "Traceback" not in err


def test_corpus_logs_inlining_decisions() -> None:
    switches = analysed(LOGC / "jdk17-Switches.xml.gz", 17)
    assert [(d.bci, d.callee, d.inlined, d.reason) for d in switches.cfg.method.log_inlines or ()] == [
        (14, "Switches::dense", True, "inline (hot)"), (20, "Switches::sparse", True, "inline (hot)")]
    assert not [c for c in switches.calls if c.java]  # both inlined: no call left in the code
    tensor = analysed(LOGC / "jdk17-Tensor4D.xml.gz", pattern="sum4")
    assert tensor.cfg.method.log_inlines == () and not [c for c in tensor.calls if c.java]


def test_json_loop_fields_and_legend() -> None:
    (method,) = json_methods(str(DATA / "hsdis/jdk17-VecLong-print-hsdis-att.txt.gz"), "--compile-id", "14")
    main = next(loop for loop in method["loops"] if loop["role"] == "main")
    assert (main["vector_bits"], main["vector_element"], main["vector_isa"], main["unroll"]) == (512, "float",
                                                                                                 "avx512", 4)
    assert "vector" in method["blocks"][main["header"]]["tags"]
    code, out, _ = run_cli(str(DATA / "hsdis/jdk17-VecLong-print-hsdis-att.txt.gz"), "--compile-id", "14", "-q")
    assert code == 0 and "loop: main loop x4, 512-bit float (avx512)" in out and "legend_vector" in out
