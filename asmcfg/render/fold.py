"""Fold chains of cold out-of-line blocks into one summary node each, for readable graphs."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from asmcfg import describe
from asmcfg.analyses.hotness import is_cold
from asmcfg.model import Analysis


@dataclass(frozen=True, slots=True)
class Fold:
    """A run of consecutive cold blocks shown as one node."""

    blocks: tuple[int, ...]
    """The folded block ids, in address order."""
    label: str
    """`7 blocks -> 4 traps: range_check x3, null_check` (ASCII: Graphviz fonts lack other glyphs)."""


def folds(result: Analysis) -> list[Fold]:
    """Maximal runs (two or more) of consecutive cold blocks that carry no measured heat and are off the hot path."""
    runs: list[list[int]] = []
    current: list[int] = []
    hot = set(result.hot_path)
    for block in result.cfg.blocks:
        heat = sum(result.block_heat.get(block.id, ()))
        if is_cold(result, block.id) and block.id not in hot and heat == 0:
            current.append(block.id)
            continue
        if len(current) > 1:
            runs.append(current)
        current = []
    if len(current) > 1:
        runs.append(current)
    return [Fold(tuple(run), _label(result, run)) for run in runs]


def _label(result: Analysis, run: list[int]) -> str:
    reasons = Counter(result.traps[b].reason for b in run if b in result.traps)
    count = sum(reasons.values())
    ranked = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    listed = ", ".join(f"{reason} x{n}" if n > 1 else reason for reason, n in ranked)
    traps = f"{describe.count(count, 'trap')}: {listed}" if count else "no traps"
    differs = [f"B{b}" for b in run if b in result.trap_log and result.trap_log[b].disagrees]
    log = f"\nLOG DIFFERS at {', '.join(differs)}" if differs else ""
    return f"{describe.count(len(run), 'block')} -> {traps}{log}"
