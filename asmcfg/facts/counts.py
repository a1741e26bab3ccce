"""Headline counts of an analysed method, the numbers facts.jsonl and the JSON report hold."""

from __future__ import annotations

from collections import Counter
from typing import Any

from asmcfg.model import Analysis, Check, TrapKind


def counts(result: Analysis) -> dict[str, Any]:
    """Instructions, trap calls, reasons, range-check branches and polls."""
    method = result.cfg.method
    trap_calls = [t for t in result.traps.values() if t.kind is TrapKind.UNCOMMON_TRAP]
    reasons = Counter(t.reason for t in trap_calls)
    return {
        "instructions": len(method.instructions),
        "blocks": len(result.cfg.blocks),
        "edges": len(result.cfg.edges),
        "uncommon_trap_calls": len(trap_calls),
        "range_check_branches": len({e.site for e, c in result.checks.items() if c is Check.RANGE}),
        "null_check_branches": len({e.site for e, c in result.checks.items() if c is Check.NULL}),
        "safepoint_polls": sum(1 for ins in method.instructions if ins.relocs and ins.poll),
        "return_polls": sum(1 for ins in method.instructions if ins.relocs and ins.poll_return),
        "trap_reasons": dict(sorted(reasons.items())),
    }
