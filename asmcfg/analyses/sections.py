"""Tag entries, handlers and stubs from the section markers and the calls blocks make."""

from __future__ import annotations

import bisect

from asmcfg.analyses.context import Context, add_tags
from asmcfg.cfg.build import PADDING
from asmcfg.hotspot import osr
from asmcfg.hotspot.sections import TAGS as MARKER_TAGS
from asmcfg.hotspot.stubs import RUNTIME_STUB_CALLS
from asmcfg.model import Analysis, Tag

_SPANNING = (Tag.EXCEPTION_HANDLER, Tag.DEOPT_HANDLER, Tag.STUB)
"""Tags a marker gives every block up to the next marker."""


def _names_stub(text: str) -> bool:
    """True when `text` holds one of `RUNTIME_STUB_CALLS` (a substring search per name: faster than one
    pattern of alternatives, which tries every name at every position)."""
    return any(name in text for name in RUNTIME_STUB_CALLS)


def run(ctx: Context, result: Analysis) -> Analysis:
    """Tag blocks by the section they lie in and by what they call or jump to."""
    tags: dict[int, set[Tag]] = {}
    _section_tags(ctx, tags)
    stubby = _stub_calls(ctx)
    entered = {edge.dst for edge in ctx.cfg.edges}
    for block in ctx.cfg.blocks:
        names = tags.setdefault(block.id, set())
        if block.id not in entered and _all_padding(ctx, block.start, block.end):
            names.add(Tag.PADDING)
        for edge in ctx.successors.get(block.id, ()):
            if isinstance(edge.dst, str) and "ic_miss" in edge.dst:
                names.add(Tag.IC_MISS)
            if isinstance(edge.dst, str) and "SafepointBlob" in edge.dst:
                names.add(Tag.STUB)
        first = bisect.bisect_left(stubby, block.start)
        if first < len(stubby) and stubby[first] < block.end:
            names.add(Tag.STUB)
    return add_tags(result, tags)


def _all_padding(ctx: Context, start: int, end: int) -> bool:
    """True when every instruction is alignment filler: `hlt`/`int3` runs or `nop`s."""
    instructions = ctx.cfg.method.instructions[start:end]
    return all(ins.mnemonic in PADDING or ins.mnemonic.startswith("nop") for ins in instructions)


def _section_tags(ctx: Context, tags: dict[int, set[Tag]]) -> None:
    method = ctx.cfg.method
    starts = {b.start: b.id for b in ctx.cfg.blocks}
    osr_entry = osr.entry(method, ctx.layout.flows, ctx.layout.ends)
    if osr_entry is not None and osr_entry in starts:
        tags.setdefault(starts[osr_entry], set()).add(Tag.OSR_ENTRY)
    markers = sorted(method.markers)
    for n, (index, label) in enumerate(markers):
        tag = MARKER_TAGS.get(label)
        if tag is None or index not in starts:
            continue
        tags.setdefault(starts[index], set()).add(tag)
        if tag in _SPANNING:
            end = markers[n + 1][0] if n + 1 < len(markers) else len(method.instructions)
            for block in ctx.cfg.blocks:
                if index <= block.start < end:
                    tags.setdefault(block.id, set()).add(tag)


def _stub_calls(ctx: Context) -> list[int]:
    """Indexes of the instructions that call or name a stub (SafepointBlob, the entry barrier, …), ascending."""
    instructions = ctx.cfg.method.instructions
    # one search over all operand texts first: most methods name no stub there
    named = _names_stub("\n".join([ins.operands for ins in instructions]))
    return [
        i
        for i, ins in enumerate(instructions)
        if (named and _names_stub(ins.operands)) or (ins.relocs and _names_stub(ins.runtime_call()))
    ]
