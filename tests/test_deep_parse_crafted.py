"""A crafted LogCompilation log whose `<parse>` scopes nest far deeper than HotSpot inlines: the calls and branches
under them are not kept, each with its whole chain (depth times their number), and those at a real depth are."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from asmcfg.dialects.logcompilation.inline import MOST_DEPTH, InlineCollector
from asmcfg.dialects.logcompilation.logxml import Tag
from asmcfg.facts import inlining_tree


def _tag(tag: str, closing: bool = False, empty: bool = False, **attrs: str) -> Tag:
    return Tag(tag, closing, empty, attrs)


def _feed(depth: int, records: int) -> InlineCollector:
    collector = InlineCollector()
    tags = [_tag("task", compile_id="7", method="p/C m ()V"), _tag("klass", empty=True, id="1", name="p/C"),
            _tag("method", empty=True, id="2", holder="1", name="m", bytes="10")]
    tags += [_tag("parse", method="2")] * depth
    for _ in range(records):
        tags += [_tag("bc", empty=True, code="153", bci="3"),
                 _tag("branch", empty=True, target_bci="9", taken="1", not_taken="2", prob="0.3"),
                 _tag("call", empty=True, method="2", count="5"),
                 _tag("inline_fail", empty=True, reason="too deep")]
    for line, tag in enumerate(tags, 1):
        collector.feed(tag, line)
    return collector


def test_calls_and_branches_at_a_real_depth_are_kept() -> None:
    collector = _feed(MOST_DEPTH, 3)
    assert len(collector.branches[7]) == 3 and len(collector.inlines[7]) == 3
    assert len(collector.branches[7][0].chain) == MOST_DEPTH


def test_those_nested_deeper_than_any_compilation_are_not() -> None:
    collector = _feed(5_000, 5_000)
    kept = sum(len(b.chain) for b in collector.branches.get(7, [])) + \
        sum(len(i.chain) for i in collector.inlines.get(7, []))
    assert kept == 0


def test_an_instruction_of_debug_info_deeper_than_any_compilation_shares_no_heat() -> None:
    frames = [SimpleNamespace(method=f"p.C::m{n}", bci=n) for n in range(5_000)]
    ins = SimpleNamespace(address=0x10, frames=frames)
    result: Any = SimpleNamespace(cfg=SimpleNamespace(method=SimpleNamespace(
        log_inlines=(), profile=SimpleNamespace(heat={0x10: (50.0,)}), instructions=[ins])))
    assert inlining_tree._shares(result) == {}
    ins.frames = frames[:3]
    assert len(inlining_tree._shares(result) or {}) == 2
