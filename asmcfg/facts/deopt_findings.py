"""`deopt-cycle` findings: a method whose C2 compilations the log says were made not entrant and compiled again,
more than once, with the traps that fired in them and, measured, the samples its C1 code took meanwhile."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

from asmcfg.model import Compiler
from asmcfg.model.findings import Finding, FindingKind
from asmcfg.model.timeline import EventKind, JitEvent, JitLog

LEAST = 2
"""C2 compilations made not entrant, each followed by another C2 compilation, that make a cycle."""
TYPE_REASONS = ("class_check", "bimorphic", "type_check", "speculate_class_check")
"""Trap reasons whose firing means a receiver or value type the compiled code did not expect."""


def deopt_findings(jit: JitLog, shares: Mapping[int, float] | None,
                   wanted: Callable[[str, int], bool] | None = None) -> list[Finding]:
    """One finding per method in a deopt cycle; `jit` is the log's compilations and events, `shares` the
    recording's percent per compile id (None unmeasured); `wanted(method, compile_id)` keeps the methods a
    selection names."""
    c2: dict[str, list[int]] = {}
    c1: dict[str, list[int]] = {}
    osr = {task.compile_id for task in jit.tasks if task.osr_bci is not None}
    for task in sorted(jit.tasks, key=lambda t: t.compile_id):
        if not task.failure:
            (c2 if task.compiler is Compiler.C2 else c1 if task.compiler is Compiler.C1 else {}).setdefault(
                task.method, []).append(task.compile_id)
    not_entrant: dict[int, int] = {}
    fired: dict[int, list[JitEvent]] = {}
    for event in jit.events:
        if event.compile_id is None:
            continue
        if event.kind is EventKind.MAKE_NOT_ENTRANT:
            not_entrant.setdefault(event.compile_id, event.t_ms)
        elif event.kind is EventKind.UNCOMMON_TRAP:
            fired.setdefault(event.compile_id, []).append(event)
    found = []
    for method, ids in sorted(c2.items()):
        made = [cid for cid in ids if cid in not_entrant]
        again = [cid for cid in made if any(later > cid for later in ids)]
        if len(again) < LEAST or (wanted is not None and not any(wanted(method, cid) for cid in ids)):
            continue
        found.append(_finding(method, ids, made, fired, not_entrant, osr, shares, c1.get(method, [])))
    return found


def _finding(method: str, ids: list[int], made: list[int], fired: dict[int, list[JitEvent]],
             not_entrant: dict[int, int], osr: set[int], shares: Mapping[int, float] | None,
             c1_ids: list[int]) -> Finding:
    traps = [trap for cid in made for trap in fired.get(cid, ())]
    counted = Counter((t.reason, t.action, t.method, t.bci, t.source_line) for t in traps)
    listed = ", ".join(f"{'OSR' if cid in osr else 'compile id'} {cid} at {not_entrant[cid]} ms" for cid in made)
    evidence = [f"{len(made)} of {len(ids)} C2 compilations of {method} made not entrant: {listed}; the last C2 "
                f"compilation is {ids[-1]}" + (" (still entrant)" if ids[-1] not in not_entrant else "")]
    for (reason, action, scope, bci, line), n in counted.most_common():
        evidence.append(f"trap fired {n}×: {reason} / {action} at {scope}@{bci}"
                        + (f" line {line}" if line is not None else ""))
    quiet = [cid for cid in made if cid not in fired]
    if quiet:
        evidence.append(f"the log records no trap firing in {', '.join(map(str, quiet))}: made not entrant without "
                        "one (HotSpot does that when an assumption of the code breaks, a new subclass loading, say)")
    share = None
    if shares is not None:
        share = sum(shares.get(cid, 0.0) for cid in c1_ids)
        evidence.append(f"its C1 code ({len(c1_ids)} compilations) took {share:.2f}% of the run's samples")
    top = counted.most_common(1)[0][0] if counted else None
    reasons = sorted({t.reason for t in traps})
    cause = (f"C2 compiled {method} {len(ids)} times: the code it compiled stopped fitting the run "
             + (f"(traps {', '.join(reasons)} fired)" if reasons else "(made not entrant without a trap)")
             + ", so the method ran in the interpreter and C1 code between compilations, and was compiled again")
    typed = any(r.startswith(TYPE_REASONS) for r in reasons)
    suggestion = ("let the call site see every receiver type before C2 compiles it (warm up with each), or keep "
                  "the types at it few" if typed else
                  "let the method meet every branch and type its hot phase uses before C2 compiles it, so the "
                  "first compilation fits the whole run")
    return Finding(FindingKind.DEOPT_CYCLE, ids[-1], method, None, top[3] if top else None, top[4] if top else None,
                   top[2] if top else "", share, None, cause, tuple(evidence), suggestion, None)
