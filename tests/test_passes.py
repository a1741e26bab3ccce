"""Each analysis pass on its own, on one real compilation cut from a corpus dump (tests/data/snippets/).

Every test runs the passes up to the one it shows and checks what that pass adds, against the corpus facts of
the same compilation (facts.jsonl: trap reasons, range-check branches, safepoint polls, verified entry).
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from asmcfg.analyses import PASSES, analyse
from asmcfg.cfg.build import build_cfg
from asmcfg.model import Analysis, Cfg, Tag, TrapKind
from asmcfg.run.pipeline import open_input

SNIPPETS = Path(__file__).parent / "data" / "snippets"
X86_OSR = "jdk17-x86-Shapes-total-osr-c2.txt"
"""C2 compile 15, `Shapes::total` OSR at bci 11, hsdis AT&T, JDK 17."""
AARCH64_FIB = "jdk17-aarch64-RecOsr-fib-c2.txt"
"""C2 compile 6, `RecOsr::fib`, hsdis, JDK 17 on AArch64."""
NAMES = [name for name, _ in PASSES]


@cache
def graph(snippet: str) -> Cfg:
    """The graph of the snippet's one compilation."""
    (method,) = list(open_input(str(SNIPPETS / snippet)).methods)
    return build_cfg(method)


def through(snippet: str, last: str) -> Analysis:
    """The analysis after the passes up to and including `last`."""
    return analyse(graph(snippet), passes=PASSES[: NAMES.index(last) + 1])


def before(snippet: str, first: str) -> Analysis:
    """The analysis after the passes that run before `first`."""
    return analyse(graph(snippet), passes=PASSES[: NAMES.index(first)])


def tagged(result: Analysis, tag: str) -> list[int]:
    """Blocks that carry `tag`."""
    return sorted(block for block, tags in result.tags.items() if tag in tags)


def test_sections_tag_the_entries_and_handlers() -> None:
    result = through(X86_OSR, "sections")
    cfg = result.cfg
    (verified,) = tagged(result, "verified_entry")
    assert cfg.method.instructions[cfg.blocks[verified].start].address == 0x7FC10CEC8060
    assert len(tagged(result, "osr_entry")) == 1 and len(tagged(result, "exception_handler")) == 1
    assert result.traps == {}


def test_traps_decode_each_uncommon_trap() -> None:
    assert before(X86_OSR, "traps").traps == {}
    result = through(X86_OSR, "traps")
    assert Counter(t.reason for t in result.traps.values()) == Counter(
        {"class_check": 1, "constraint": 1, "null_check": 1, "profile_predicate": 1, "range_check": 1}
    )
    assert all(t.kind is TrapKind.UNCOMMON_TRAP for t in result.traps.values())
    assert tagged(result, "uncommon_trap") == sorted(result.traps)
    assert result.jdk == 17


def test_checks_find_the_range_check_branches() -> None:
    assert before(X86_OSR, "checks").checks == {}
    result = through(X86_OSR, "checks")
    range_sites = {edge.site for edge, check in result.checks.items() if check == "range_check"}
    assert len(range_sites) == 2
    assert all(result.cfg.method.instructions[site].mnemonic.startswith("j") for site in range_sites)


@pytest.mark.parametrize(("snippet", "polls"), [(X86_OSR, 1), (AARCH64_FIB, 0)])
def test_safepoints_tag_the_loop_polls(snippet: str, polls: int) -> None:
    assert tagged(before(snippet, "safepoints"), "safepoint_poll") == []
    assert len(tagged(through(snippet, "safepoints"), "safepoint_poll")) == polls


def test_loops_find_the_loops_and_their_headers() -> None:
    assert before(X86_OSR, "loops").loops == ()
    result = through(X86_OSR, "loops")
    assert len(result.loops) == 4
    assert tagged(result, "loop_header") == sorted(loop.header for loop in result.loops)
    assert all(loop.header in loop.blocks for loop in result.loops)


def test_a_recursive_method_without_loops_has_none() -> None:
    result = through(AARCH64_FIB, "loops")
    assert result.loops == () and result.traps == {}


def test_hotness_walks_a_path_from_the_entry() -> None:
    assert before(X86_OSR, "hotness").hot_path == ()
    result = through(X86_OSR, "hotness")
    path = result.hot_path
    edges = {(edge.src, edge.dst) for edge in result.cfg.edges}
    # an OSR compilation is entered at its OSR entry, B1: B0 is the breakpoint C2 puts at its verified entry
    assert path[0] == 1 and all(step in edges for step in itertools.pairwise(path))
    assert Tag.OSR_ENTRY in result.block_tags(1) and 0 not in path
    assert not set(path) & set(result.traps), "the static hot path avoids the trap blocks"
