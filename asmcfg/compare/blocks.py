"""Pair the blocks of two compilations: by the debug info of their instructions (and their trap), then the rest of
matched loops' blocks in address order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from asmcfg.compare.items import LoopItem, Side


class LoopPairLike(Protocol):
    """A matched (or unmatched) pair of loops."""

    @property
    def old(self) -> LoopItem | None:
        """The old side's loop."""

    @property
    def new(self) -> LoopItem | None:
        """The new side's loop."""


def pair_blocks(old: Side, new: Side, loops: Sequence[LoopPairLike]) -> tuple[tuple[int, int], ...]:
    """Blocks with the same debug info, then the rest of matched loops' blocks in address order."""
    old_keys, new_keys = _block_keys(old), _block_keys(new)
    return _pair_blocks(old_keys, new_keys, loops)


def _block_keys(side: Side) -> dict[int, tuple[object, ...]]:
    """Per block, the (method, bci, bytecode) of its instructions with debug info, and its trap."""
    result = side.result
    instructions = result.cfg.method.instructions
    keys: dict[int, tuple[object, ...]] = {}
    for block in result.cfg.blocks:
        info: list[object] = [
            (ins.frames[0].method, ins.frames[0].bci, ins.bytecode)
            for ins in instructions[block.start : block.end]
            if ins.frames
        ]
        trap = result.traps.get(block.id)
        if trap is not None:
            info.append((trap.reason, trap.action))
        keys[block.id] = tuple(info)
    return keys


def _pair_blocks(
    old_keys: dict[int, tuple[object, ...]], new_keys: dict[int, tuple[object, ...]], loops: Sequence[LoopPairLike]
) -> tuple[tuple[int, int], ...]:
    mapping: dict[int, int] = {}
    buckets: dict[tuple[object, ...], list[int]] = {}
    for block in sorted(new_keys):
        if new_keys[block]:
            buckets.setdefault(new_keys[block], []).append(block)
    for block in sorted(old_keys):
        bucket = buckets.get(old_keys[block])
        if bucket:
            mapping[block] = bucket.pop(0)
    used = set(mapping.values())
    for loop in loops:
        if loop.old is None or loop.new is None:
            continue
        rest_old = [b for b in loop.old.blocks if b not in mapping]
        rest_new = [b for b in loop.new.blocks if b not in used]
        for o, n in zip(rest_old, rest_new, strict=False):
            mapping[o] = n
            used.add(n)
    return tuple(sorted(mapping.items()))
