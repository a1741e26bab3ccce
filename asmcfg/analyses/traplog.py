"""Set each decoded trap beside the LogCompilation log's `<uncommon_trap>` records of its compilation.

The compiler logs a record for every trap it emits while parsing (`origin` `parse`), and the VM one for
every trap that fires (`runtime`, with the whole inlining chain of the scope that trapped). A decoded trap
agrees when a parse record names the same scope, bci, reason and action; it differs when the records at that
scope and bci name something else (C2 may change a trap after parsing, e.g. when it folds two compares into
one range check); it is unlogged when the compiler logged nothing there. A fired record counts on the trap
whose call has the same reason and the same inlining chain, so code inlined at several sites is told apart.
A JVMCI compiler logs no parse records: its traps get only their firings (verdict `no_records`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from asmcfg.analyses.context import Context
from asmcfg.hotspot.deopt import plain_reason
from asmcfg.model import Analysis, Compiler, Frame, Trap, TrapEvidence, TrapOrigin, Verdict

if TYPE_CHECKING:
    from asmcfg.model import LogTrap


def run(ctx: Context, result: Analysis) -> Analysis:
    """Evidence per decoded C2 trap, and the fired traps no trap call accounts for."""
    records = ctx.cfg.method.log_traps
    if not records:
        return result
    parsed: dict[tuple[str, int | None], list[LogTrap]] = {}
    for record in records:
        if record.origin is TrapOrigin.PARSE:
            parsed.setdefault(_site(record), []).append(record)
    fired = [r for r in records if r.origin is TrapOrigin.RUNTIME]
    evidence: dict[int, TrapEvidence] = {}
    matched: set[int] = set()
    for block, trap in result.traps.items():
        if trap.request is None:
            continue
        chain = _chain_of(ctx.cfg.method.instructions[trap.site].frames)
        site = _site_of(trap)
        hits = [i for i, r in enumerate(fired) if _fired_here(r, trap, site, chain)]
        matched.update(hits)
        if parsed:
            evidence[block] = _evidence(trap, tuple(parsed.get(site, ())), len(hits))
        elif ctx.cfg.method.header.compiler is Compiler.JVMCI:
            evidence[block] = TrapEvidence(Verdict.NO_RECORDS, (), len(hits))
    elsewhere = tuple(r for i, r in enumerate(fired) if i not in matched)
    return replace(result, trap_log=evidence, fired_elsewhere=elsewhere)


def _evidence(trap: Trap, here: tuple[LogTrap, ...], fired: int) -> TrapEvidence:
    """The verdict of the parse records at the trap's scope and bci (`here`, in log order)."""
    if any(plain_reason(r.reason) == plain_reason(trap.reason) and r.action == trap.action for r in here):
        verdict = Verdict.AGREES
    else:
        verdict = Verdict.DIFFERS if here else Verdict.UNLOGGED
    return TrapEvidence(verdict, here, fired)


def _fired_here(
    record: LogTrap, trap: Trap, site: tuple[str, int | None], chain: tuple[tuple[str, int | None], ...]
) -> bool:
    """Same reason and innermost scope (the trap's `site`), and, where both are known, the same whole inlining
    chain: a trap in code inlined at several call sites fired at the one whose callers the run-time record names."""
    if _site(record) != site or plain_reason(record.reason) != plain_reason(trap.reason):
        return False
    theirs = tuple((method.replace("/", "."), bci) for method, bci in record.chain)
    return not theirs or not chain or theirs == chain


def _chain_of(frames: tuple[Frame, ...]) -> tuple[tuple[str, int | None], ...]:
    return tuple((frame.method.replace("/", "."), frame.bci) for frame in frames)


def _site(record: LogTrap) -> tuple[str, int | None]:
    return record.method.replace("/", "."), record.bci


def _site_of(trap: Trap) -> tuple[str, int | None]:
    return trap.method.replace("/", "."), trap.bci
