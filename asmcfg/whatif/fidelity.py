"""Fidelity: does the baseline replay reproduce the recorded compilation? Blocks, loops (what one iteration
costs, vector width included), instructions, traps, checks, calls and polls are compared, never addresses."""

from __future__ import annotations

from asmcfg.compare.items import LoopItem
from asmcfg.compare.match import Diff
from asmcfg.compare.report import describe_item
from asmcfg.model import LoopFacts

MATCHES = "baseline matches the recording"
"""What every output says when the baseline reproduces the recorded compilation."""
NO_RECORDING = "no recorded compilation to compare the baseline with (a replay file given alone)"
SHOWN = 8
"""Differences the one line names; the JSON lists them all."""
_COUNTED = (("blocks", "blocks"), ("loops", "loops"), ("instructions", "instructions"),
            ("uncommon_traps", "uncommon traps"))


def differences(recorded_vs_baseline: Diff) -> list[str]:
    """How the baseline differs from the recorded compilation, one phrase each; empty when it matches."""
    old, new = recorded_vs_baseline.old.facts, recorded_vs_baseline.new.facts
    found = [f"{label} {old[key]} → {new[key]}" for key, label in _COUNTED if old[key] != new[key]]
    for pair in recorded_vs_baseline.loops:
        if pair.status == "added" and pair.new is not None:
            found.append(f"a loop at block {pair.new.header} that the recording lacks")
        elif pair.status == "removed" and pair.old is not None:
            found.append(f"the recorded loop at block {pair.old.header} is missing")
        elif pair.status == "changed" and pair.old is not None and pair.new is not None:
            found.append(f"the loop at block {pair.old.header} changed ({_loop_change(pair.old, pair.new)})")
    for change in recorded_vs_baseline.changes:
        item = describe_item(change.new if change.new is not None else change.old)
        found.append(f"{change.what} {change.change.replace('_', ' ')}: {item}")
    return found


def sentence(found: list[str] | None) -> str:
    """The one line every output gives: `baseline matches the recording`, or how it differs."""
    if found is None:
        return NO_RECORDING
    if not found:
        return MATCHES
    shown = "; ".join(found[:SHOWN])
    more = f"; and {len(found) - SHOWN} more (--json lists them all)" if len(found) > SHOWN else ""
    return f"baseline differs from the recording: {shown}{more}"


def _loop_change(old: LoopItem, new: LoopItem) -> str:
    """The figures of one iteration that differ."""
    parts = []
    for name in ("role", "unroll", "instructions", "range_checks", "null_checks", "polls", "calls"):
        before, after = getattr(old, name), getattr(new, name)
        if before != after:
            parts.append(f"{name.replace('_', ' ')} {before} → {after}")
    if _bits(old.vector) != _bits(new.vector):
        parts.append(f"vector {_bits(old.vector)} → {_bits(new.vector)}")
    return ", ".join(parts) or "its figures"


def _bits(vector: LoopFacts | None) -> str:
    return "scalar" if vector is None else f"{vector.vector_bits} bits"
