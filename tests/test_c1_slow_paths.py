"""C1 code's slow paths and throw stubs on real dumps: the static hot path through a synchronized method
(`java/Sync.java`) keeps to the lock and unlock fast paths, and the incompatible-class-change stub of an interface
call C1 inlined through the interface's only implementor (`java/Icce.java`, where a separately compiled class
that no longer implements the interface does get there) is a `throw` trap. JDK 17 and 25, `-XX:TieredStopAtLevel=1`,
no hsdis; addresses read from the decoded code."""

from __future__ import annotations

from pathlib import Path

import pytest

from asmcfg.model import Analysis, Tag, TrapKind
from asmcfg.run.pipeline import Selector, analyse_method, open_input, pick_one
from tests.corpus import DATA

NOHSDIS = DATA / "nohsdis"
SLOW = {Tag.LOCK_SLOW, Tag.UNLOCK_SLOW}


def analysed(path: Path) -> Analysis:
    stream = open_input(str(path))
    picked = pick_one(stream.methods, Selector(None, None, None))
    assert picked is not None
    return analyse_method(stream.complete(picked.method))


def starts(result: Analysis, blocks: tuple[int, ...] | list[int]) -> list[int]:
    first = {b.id: result.cfg.method.instructions[b.start].address for b in result.cfg.blocks}
    return [first[b] for b in blocks]


@pytest.mark.parametrize("jdk, path_starts", [
    # JDK 25: lock-stack lock (B4-B9), the body with the unlock fast path (B10-B13: lock-stack pop, recursion
    # test, inflated test, cmpxchg), the return; not B14 (`addl $8, 0x7d0(%r15)`: the failed cmpxchg puts the
    # lock back on the lock stack) nor B18, the monitorexit slow call
    ("jdk25", [0x7F86C050CEA0, 0x7F86C050CEBB, 0x7F86C050CEDA, 0x7F86C050CEE5, 0x7F86C050CEED, 0x7F86C050CF03,
               0x7F86C050CF0A, 0x7F86C050CF18, 0x7F86C050CF3E, 0x7F86C050CF51, 0x7F86C050CF5C, 0x7F86C050CF7B,
               0x7F86C050CF8D]),
    ("jdk17", [0x7FD31CAFB5C0, 0x7FD31CAFB5EA, 0x7FD31CAFB5FD, 0x7FD31CAFB619, 0x7FD31CAFB628, 0x7FD31CAFB63D]),
])
def test_static_hot_path_of_a_c1_synchronized_method_keeps_to_the_fast_paths(jdk: str, path_starts: list[int]) -> None:
    result = analysed(NOHSDIS / f"{jdk}-Sync-c1-nohsdis.txt")
    assert starts(result, result.hot_path) == path_starts
    assert not any(result.block_tags(b) & SLOW for b in result.hot_path)
    kinds = sorted((p.kind.value, p.what) for p in result.runtime_paths)
    assert [k for k, _ in kinds] == ["lock", "unlock", "unlock"]  # enter; exit on return and on the exception path


def test_jdk25_monitor_exit_slow_call_is_reached_only_off_the_hot_path() -> None:
    result = analysed(NOHSDIS / "jdk25-Sync-c1-nohsdis.txt")
    (slow,) = [p.slow for p in result.runtime_paths if p.kind.value == "unlock" and p.slow in {
        b.id for b in result.cfg.blocks if starts(result, [b.id]) == [0x7F86C050CFA1]}]
    assert Tag.UNLOCK_SLOW in result.block_tags(slow) and slow not in result.hot_path
    fixup = next(b.id for b in result.cfg.blocks if starts(result, [b.id]) == [0x7F86C050CF6E])
    assert fixup not in result.hot_path


@pytest.mark.parametrize("jdk, stub, check_site", [
    ("jdk17", 0x7F4EDD4FC2FC, 0x7F4EDD4FC2D0),
    ("jdk25", 0x7FDC5850DAE3, 0x7FDC5850DABA),
])
def test_incompatible_class_change_stub_call_is_a_throw_trap(jdk: str, stub: int, check_site: int) -> None:
    result = analysed(NOHSDIS / f"{jdk}-Icce-c1-nohsdis.txt")
    instructions = result.cfg.method.instructions
    traps = {instructions[t.site].address: t for t in result.traps.values()}
    trap = traps[stub]
    assert "incompatible_class_change_error" in instructions[trap.site].runtime_call()
    assert (trap.kind, trap.reason, trap.action, trap.bytecode) == (
        TrapKind.THROW, "class_check", "throw", "invokeinterface area")
    block = next(b for b, t in result.traps.items() if t is trap)
    assert Tag.STUB in result.block_tags(block) and block not in result.hot_path
    assert not [e for e in result.cfg.edges if e.src == block]  # the throw call does not return
    assert stub not in [instructions[c.site].address for c in result.calls]  # a trap, not a call
    # the exact-class compare against the only implementor fails into that throw
    (check,) = result.type_checks
    assert (instructions[check.site].address, check.classes, check.fails_to) == (
        check_site, ("Icce$Square",), "class_check")
