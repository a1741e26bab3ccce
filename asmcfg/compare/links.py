"""What the side-by-side page needs of a diff: each side's colours, and for every block and loop of one side its
counterpart on the other (through a matched trap, check, call or poll in it, a matched loop it heads, or the
block pairs), with a line saying why."""

from __future__ import annotations

from typing import Any

from asmcfg import describe
from asmcfg.compare import where
from asmcfg.compare.dot import block_marks, loop_status
from asmcfg.compare.match import Diff
from asmcfg.compare.report import describe_item

_SIDES = ("old", "new")


def links(result: Diff) -> dict[str, Any]:
    """`{"old": side, "new": side}`, each `{"blocks": {id: {"to", "why"}}, "loops": {header: {"to", "why"}},
    "paint": {"blocks", "loops", "colours", "fills"}}`; `to` is the other side's block or loop header, or None."""
    blocks: dict[str, dict[int, dict[str, Any]]] = {"old": {}, "new": {}}
    loops: dict[str, dict[int, dict[str, Any]]] = {"old": {}, "new": {}}

    def link(old: int, new: int, why: str) -> None:
        blocks["old"].setdefault(old, {"to": new, "why": why})
        blocks["new"].setdefault(new, {"to": old, "why": why})

    for found in result.matched:
        link(found.old.block, found.new.block,
             f"{found.what}: {describe_item(found.old)}  ↔  {describe_item(found.new)}")
    for change in result.changes:
        old_block, new_block = getattr(change.old, "block", None), getattr(change.new, "block", None)
        if old_block is not None and new_block is not None:  # a moved check, a call whose kind changed
            link(old_block, new_block,
                 f"{change.what} {describe.CHANGE_LABELS[change.change]}: {describe_item(change.old)}  →  "
                 f"{describe_item(change.new)}")
    for pair in result.loops:
        if pair.old is not None and pair.new is not None:
            why = f"loop {where.loop(pair.old)}  ↔  {where.loop(pair.new)}: {pair.status} (matched by {pair.how})"
            loops["old"][pair.old.header] = {"to": pair.new.header, "why": why}
            loops["new"][pair.new.header] = {"to": pair.old.header, "why": why}
            link(pair.old.header, pair.new.header, why)
        for side, loop in (("old", pair.old), ("new", pair.new)):
            if loop is not None and pair.status in ("added", "removed"):
                loops[side][loop.header] = {"to": None, "why": f"loop {where.loop(loop)}: {pair.status}"}
    for old, new in result.blocks:
        link(old, new, f"B{old}  ↔  B{new}: the same debug info, or the same place in a matched loop")
    _unmatched(result, blocks)
    status = loop_status(result.loops)
    return {
        side: {
            "blocks": {str(b): v for b, v in sorted(blocks[side].items())},
            "loops": {str(h): v for h, v in sorted(loops[side].items())},
            "paint": {"blocks": {str(b): s for b, s in block_marks(result, side[0]).items()},
                      "loops": {str(h): s for h, s in status[side[0]].items()},
                      "colours": describe.DIFF_COLOURS, "fills": describe.DIFF_FILLS},
        }
        for side in _SIDES
    }


def _unmatched(result: Diff, blocks: dict[str, dict[int, dict[str, Any]]]) -> None:
    """Blocks holding an added or removed item, with no counterpart: say what was added or removed."""
    for change in result.changes:
        for side, item in (("old", change.old), ("new", change.new)):
            block = getattr(item, "block", None)
            other = change.new if side == "old" else change.old
            if block is not None and other is None:
                label = describe.CHANGE_LABELS[change.change]
                blocks[side].setdefault(block, {"to": None, "why": f"{change.what} {label}: {describe_item(item)}"})
