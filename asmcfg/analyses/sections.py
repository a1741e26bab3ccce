"""Tag entries, handlers and stubs from the section markers and the calls blocks make."""

from __future__ import annotations

import bisect
import re

from asmcfg.analyses.context import Context, add_tags
from asmcfg.hotspot.sections import TAGS as MARKER_TAGS
from asmcfg.hotspot.stubs import RUNTIME_STUB_CALLS
from asmcfg.model import Analysis

_STUB_NAMES = re.compile("|".join(map(re.escape, RUNTIME_STUB_CALLS)))


def run(ctx: Context, result: Analysis) -> Analysis:
    """Tag blocks by the section they lie in and by what they call or jump to."""
    tags: dict[int, set[str]] = {}
    _section_tags(ctx, tags)
    stubby = _stub_calls(ctx)
    for block in ctx.cfg.blocks:
        names = tags.setdefault(block.id, set())
        for edge in ctx.successors.get(block.id, ()):
            if isinstance(edge.dst, str) and "ic_miss" in edge.dst:
                names.add("ic_miss")
            if isinstance(edge.dst, str) and "SafepointBlob" in edge.dst:
                names.add("stub")
        first = bisect.bisect_left(stubby, block.start)
        if first < len(stubby) and stubby[first] < block.end:
            names.add("stub")
    return add_tags(result, tags)


def _section_tags(ctx: Context, tags: dict[int, set[str]]) -> None:
    method = ctx.cfg.method
    starts = {b.start: b.id for b in ctx.cfg.blocks}
    osr = method.header.osr_bci is not None
    markers = sorted(method.markers)
    for n, (index, label) in enumerate(markers):
        tag = MARKER_TAGS.get(label)
        if tag is None or index not in starts:
            continue
        tags.setdefault(starts[index], set()).add(tag)
        if tag == "verified_entry" and osr:
            tags[starts[index]].add("osr_entry")
        if tag in ("exception_handler", "deopt_handler", "stub"):
            end = markers[n + 1][0] if n + 1 < len(markers) else len(method.instructions)
            for block in ctx.cfg.blocks:
                if index <= block.start < end:
                    tags.setdefault(block.id, set()).add(tag)


def _stub_calls(ctx: Context) -> list[int]:
    """Indexes of the instructions that call or name a stub (SafepointBlob, the entry barrier, …), ascending."""
    return [
        i
        for i, ins in enumerate(ctx.cfg.method.instructions)
        if _STUB_NAMES.search(ins.operands) or (ins.relocs and _STUB_NAMES.search(ins.runtime_call()))
    ]
