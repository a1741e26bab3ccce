"""The passes that say what HotSpot means (calls, runtime paths, type checks, vectors, loop copies), each on its
own over the compilations cut from the corpus (tests/data/snippets/), checked against what the snippet's text
shows: its call relocations and scopes, its class compares, its scalar and packed instructions, its loads."""

from __future__ import annotations

import re

from asmcfg.model import Analysis
from tests.test_passes import AARCH64_FIB, SNIPPETS, X86_OSR, before, tagged, through

_ADDRESS = re.compile(r"^\s*0x([0-9a-f]+):")


def text_addresses(snippet: str, pattern: str) -> list[int]:
    """Addresses of the snippet's instruction lines matching `pattern` (read from the text, not the analysis)."""
    found = []
    for line in (SNIPPETS / snippet).read_text().splitlines():
        address = _ADDRESS.match(line)
        if address and re.search(pattern, line):
            found.append(int(address.group(1), 16))
    return found


def address(result: Analysis, site: int) -> int:
    return result.cfg.method.instructions[site].address


def test_calls_name_each_static_call_and_its_scope() -> None:
    assert before(AARCH64_FIB, "calls").calls == ()
    result = through(AARCH64_FIB, "calls")
    text = (SNIPPETS / AARCH64_FIB).read_text()
    assert text.count("{static_call}") == 4 == text.count(";*invokestatic fib")
    assert [(c.kind, c.callee) for c in result.calls] == [("static", "fib")] * 4
    assert [c.frames[0].bci for c in result.calls] == [12, 18, 12, 18]
    assert all(c.decisions == () for c in result.calls)  # no LogCompilation log: no decisions
    assert tagged(result, "java_call") == sorted({c.block for c in result.calls})


def test_calls_on_the_osr_entry_are_not_java_calls() -> None:
    result = through(X86_OSR, "calls")
    assert not any(call.java for call in result.calls)
    assert tagged(result, "java_call") == []
    # the trap calls are traps, not calls
    assert {c.site for c in result.calls}.isdisjoint(t.site for t in result.traps.values())


def test_runtime_paths_find_none_where_nothing_allocates_locks_or_has_a_barrier() -> None:
    for snippet in (X86_OSR, AARCH64_FIB):
        result = through(snippet, "runtime_paths")
        assert result.runtime_paths == ()
        assert not any(tag in tags for tags in result.tags.values()
                       for tag in ("allocation", "allocation_slow", "lock", "lock_slow", "gc_barrier"))


def test_typechecks_are_the_class_compares_and_their_class_check_traps() -> None:
    assert before(X86_OSR, "typechecks").type_checks == ()
    result = through(X86_OSR, "typechecks")
    circle = text_addresses(X86_OSR, r"cmpl.*\{metadata\('Shapes\$Circle'\)\}")
    assert len(circle) == 6
    checks = {address(result, t.site): t for t in result.type_checks}
    assert set(circle) <= set(checks)
    for site in circle:
        assert checks[site].classes == ("Shapes$Circle",)
        assert checks[site].fails_to == "class_check" and checks[site].bytecode == "invokeinterface area"
    assert "class_check" in {t.reason for t in result.traps.values()}
    assert tagged(result, "type_check") == sorted({t.block for t in result.type_checks})
    assert through(AARCH64_FIB, "typechecks").type_checks == ()


def test_vectors_leave_a_scalar_double_loop_scalar() -> None:
    # the loops multiply and add doubles on xmm registers with scalar instructions; the one packed mnemonic is
    # a copy between two registers, C2's way to move a scalar double
    assert text_addresses(X86_OSR, r"vmulsd|vaddsd")
    packed = text_addresses(X86_OSR, r"\b\w+p[sd]\s")
    assert len(packed) == 1 and packed == text_addresses(X86_OSR, r"vmovapd\s+%xmm\d+, %xmm\d+$")
    result = through(X86_OSR, "vectors")
    assert result.loop_facts and not any(f.vectorized for f in result.loop_facts.values())
    assert tagged(result, "vector") == []


def test_copies_name_the_pre_main_and_post_loops() -> None:
    result = through(X86_OSR, "copies")
    roles = {facts.role: header for header, facts in result.loop_facts.items()}
    assert set(roles) == {"pre", "strip_mined_outer", "main", "post"}
    loops = {loop.header: loop for loop in result.loops}
    outer, main = loops[roles["strip_mined_outer"]], loops[roles["main"]]
    assert set(main.blocks) < set(outer.blocks) and outer.has_poll and not main.has_poll
    assert roles["pre"] < roles["strip_mined_outer"] < roles["post"]  # the copies in address order
    # the main loop loads four array elements per trip: 0x10, 0x14, 0x18 and 0x1c off the same base
    loads = text_addresses(X86_OSR, r"movl\s+0x1[048c]\(%rbx, %r[ab][xp], 4\)")
    main_sites = {address(result, i) for b in main.blocks
                  for i in range(result.cfg.blocks[b].start, result.cfg.blocks[b].end)}
    assert len([a for a in loads if a in main_sites]) == 4
    assert result.loop_facts[main.header].unroll == 4
