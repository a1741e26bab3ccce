"""Tag blocks holding a loop safepoint poll (`{poll}`) or a return poll (`{poll_return}`)."""

from __future__ import annotations

from asmcfg.analyses.context import Context, add_tags
from asmcfg.model import Analysis, Tag


def run(ctx: Context, result: Analysis) -> Analysis:
    """`safepoint_poll` and `return_poll` tags."""
    tags: dict[int, set[Tag]] = {}
    instructions = ctx.cfg.method.instructions
    for block in ctx.cfg.blocks:
        names = tags.setdefault(block.id, set())
        for ins in instructions[block.start : block.end]:
            if not ins.relocs:
                continue
            if ins.poll:
                names.add(Tag.SAFEPOINT_POLL)
            if ins.poll_return:
                names.add(Tag.RETURN_POLL)
    return add_tags(result, tags)
