"""Findings of one compilation, from the facts the passes found: the checks left in hot loops, the hot calls not
inlined, the megamorphic calls, the allocations in hot loops (`--findings`, docs/findings.md).

Each finding is inferred only from what the code, the log and the samples show. "Hot" means, with measured heat,
at least `MIN_SHARE` percent of the run's samples; without heat, any loop of a C2 compilation but C2's pre and
post loops, the findings then ranked by a static estimate (loop depth × the loop's instructions)."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from asmcfg import describe
from asmcfg.analyses.heat import heat_of
from asmcfg.facts import calls_findings, profile_findings, vector_findings
from asmcfg.facts.findings_frame import Where, at_site, innermost_loops, is_hot, loop_where, pre_loop_traps
from asmcfg.model import Analysis, Check, Compiler, Edge, EdgeKind, LoopRole, PathKind, RuntimePath
from asmcfg.model.findings import Finding, FindingKind

SKIPPED_ROLES = frozenset({LoopRole.PRE, LoopRole.POST, LoopRole.DRAIN})
"""C2's loop copies that run a few trips around the main loop: what is left in them costs little."""
RANGE_ADVICE = ("an index read from memory or computed (a[idx[i]], a[i * k + j]) keeps its check: check the bounds "
                "once before the loop where you can; an index that is the loop's own counter (a[i], i up to a bound "
                "that does not change in the loop) loses it, unless C2 did not see a counted loop (a long counter, a "
                "changing bound, OSR code)")
NULL_ADVICE = "read the reference into a local before the loop, so C2 checks it once there"


def findings(result: Analysis, source: str = "INPUT", run_measured: bool = False) -> list[Finding]:
    """The findings of one compilation, ranked; `source` is the input as the whatif commands name it;
    `run_measured` says the run was measured, so a compilation without heat took no samples: it has none."""
    header = result.cfg.method.header
    if header.compiler is not Compiler.C2 or (run_measured and result.cfg.method.profile is None):
        return []
    found = [*_checks_in_loops(result), *_paths_in_loops(result)]
    found += calls_findings.call_findings(result, whatif_prefix(source, header.compile_id))
    found += vector_findings.vector_findings(result, whatif_prefix(source, header.compile_id))
    found += profile_findings.profile_findings(result)
    return ranked(found)


def whatif_prefix(source: str, compile_id: int | None) -> str:
    """`asmcfg whatif INPUT --compile-id N`, quoted for a shell."""
    cid = f" --compile-id {compile_id}" if compile_id is not None else ""
    return f"asmcfg whatif {shlex.quote(source)}{cid}"


def ranked(found: Iterable[Finding]) -> list[Finding]:
    """Measured findings by share, highest first, then the unmeasured ones by their static estimate."""
    return sorted(found, key=lambda f: (f.share is None, -(f.share or 0.0), -(f.estimate or 0),
                                        f.compile_id or 0, f.block if f.block is not None else -1, f.kind))


def _checks_in_loops(result: Analysis) -> list[Finding]:
    """One finding per hot loop holding range or null checks: the checks, and the predicates before the loop."""
    inner = innermost_loops(result)
    per_loop: dict[int, list[tuple[Edge, Check]]] = {}
    for edge, check in result.checks.items():
        if edge.kind is EdgeKind.EXCEPTION:  # an implicit null check: a load that faults, no instruction of its own
            continue
        loop = inner.get(edge.src)
        if loop is not None:
            per_loop.setdefault(loop.header, []).append((edge, check))
    found = []
    loops = {loop.header: loop for loop in result.loops}
    successors: dict[int, list[int]] = {}
    for e in result.cfg.edges:
        if isinstance(e.dst, int):
            successors.setdefault(e.src, []).append(e.dst)
    site_of = {edge: _check_site(result, edge, successors) for edge in result.checks} if per_loop else {}
    for header, checks in sorted(per_loop.items()):
        loop = loops[header]
        facts = result.loop_facts.get(header)
        if facts is not None and facts.role in SKIPPED_ROLES:
            continue
        where = loop_where(result, loop)
        if not is_hot(where):
            continue
        checks.sort(key=lambda item: item[0].site)
        sites = [site_of[edge] for edge, _ in checks]
        evidence = [f"{check} at B{edge.src} {_ins_text(result, edge.site)}: fails to {site.text}"
                    for (edge, check), site in zip(checks, sites, strict=True)]
        members = set(loop.blocks)
        outside = {(site.scope, site.bci) for edge, site in site_of.items() if edge.src not in members}
        hoisted = list(dict.fromkeys(s.text for s in sites if s.bci is not None and (s.scope, s.bci) in outside))
        predicates = pre_loop_traps(result, loop)
        if hoisted:
            evidence.append("the same bytecode is also checked outside this loop: " + ", ".join(hoisted))
        evidence.append(f"{describe.count(len(predicates), 'loop-predicate trap')} before the loop"
                        + (f" ({', '.join(predicates)})" if predicates else
                           ": C2 hoisted no check out of it as a predicate"))
        osr = result.cfg.method.header.osr_bci
        if osr is not None:
            evidence.append(f"an OSR compilation (entered from the interpreter's loop at bci {osr}): C2 keeps "
                            "checks in it that the method's own compilation may remove")
        evidence.append(where.figure)
        ranged = any(check is Check.RANGE for _, check in checks)
        first = sites[0]
        counted: dict[str, int] = {}
        for (_, check), site in zip(checks, sites, strict=True):
            key = f"{check.value.replace('_', ' ')} {site.text}"
            counted[key] = counted.get(key, 0) + 1
        what = ", ".join(f"{n} × {key}" if n > 1 else key for key, n in counted.items())
        proof = "the index in bounds" if ranged else "the reference non-null"
        sit, them = ("sits", "the check") if len(checks) == 1 else ("sit", "the checks")
        cause = (f"{describe.count(len(checks), 'check')} {sit} inside the loop at B{header} ({what}): C2 could not "
                 f"prove {proof} before the loop, so it could not hoist {them} out of it")
        found.append(Finding(
            FindingKind.CHECK_IN_LOOP, result.cfg.method.header.compile_id, result.cfg.method.header.name, header,
            first.bci, first.line, first.scope, where.share, where.estimate, cause, tuple(evidence),
            RANGE_ADVICE if ranged else NULL_ADVICE))
    return found


def _check_site(result: Analysis, edge: Edge, successors: dict[int, list[int]]) -> Where:
    """Where a check's failure goes: the trap's bytecode, bci and line (the first trap within a few blocks), else
    the checking instruction's debug info."""
    if edge.kind is not EdgeKind.EXCEPTION and isinstance(edge.dst, int):
        seen, todo = {edge.dst}, [edge.dst]
        while todo and len(seen) < 32:
            block = todo.pop(0)
            trap = result.traps.get(block)
            if trap is not None:
                where = f"{trap.bytecode}@{trap.bci}" if trap.bci is not None else trap.bytecode
                line = f" line {trap.line}" if trap.line is not None else ""
                return Where(trap.method, trap.bci, trap.line,
                             f"{where}{line} ({trap.reason} / {trap.action})")
            for nxt in successors.get(block, ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    return at_site(result, edge.site)


def _ins_text(result: Analysis, site: int) -> str:
    ins = result.cfg.method.instructions[site]
    return f"0x{ins.address:x} {ins.mnemonic} {ins.operands}".rstrip()


@dataclass(frozen=True, slots=True)
class _PathKind:
    """How a runtime path in a hot loop is written as a finding."""

    finding: FindingKind
    does: str
    """What each trip does (`allocates`)."""
    why: str
    """Why it is left in the code."""
    kept: str
    """The evidence line: the optimisation that did not remove it."""
    suggestion: str


_PATH_KINDS = {
    PathKind.ALLOCATION: _PathKind(
        FindingKind.ALLOCATION_IN_LOOP, "allocates",
        "the object escapes (or escape analysis gave up), so each trip that allocates pays for it and later for "
        "its collection", "the allocation is in the compiled code: escape analysis did not remove it",
        "allocate once before the loop and reuse the object, or keep it from escaping (no store to a field or "
        "array, no call that is not inlined) so escape analysis can replace it by its fields"),
    PathKind.LOCK: _PathKind(
        FindingKind.LOCK_IN_LOOP, "takes a monitor",
        "the locked object escapes (a shared object, or one escape analysis could not follow), so the lock stays "
        "and each trip that locks pays for a compare-and-swap and, contended, for the runtime's slow path",
        "the monitor enter is in the compiled code: neither escape analysis nor lock coarsening removed it",
        "take the lock once around the whole loop (or a batch of trips), or work on a local copy and publish the "
        "result under one lock"),
}
"""The runtime paths whose place in a hot loop is a finding."""


def _paths_in_loops(result: Analysis) -> list[Finding]:
    """One finding per hot loop and bytecode whose allocation or monitor enter has its inline fast path (or its
    slow call) in the loop (a bytecode inlined at several places is several paths in the code)."""
    inner = innermost_loops(result)
    grouped: dict[tuple[PathKind, int, str, int | None], list[RuntimePath]] = {}
    for path in result.runtime_paths:
        if path.kind not in _PATH_KINDS:
            continue
        loop = next((inner[b] for b in (*path.fast, path.slow) if b in inner), None)
        if loop is None:
            continue
        facts = result.loop_facts.get(loop.header)
        if facts is not None and facts.role in SKIPPED_ROLES:
            continue
        site = at_site(result, path.site)
        grouped.setdefault((path.kind, loop.header, site.scope, site.bci), []).append(path)
    loops = {loop.header: loop for loop in result.loops}
    found = []
    for (kind, header, _, _), paths in grouped.items():
        how = _PATH_KINDS[kind]
        where = loop_where(result, loops[header])
        if not is_hot(where):
            continue
        site = at_site(result, paths[0].site)
        evidence = [f"slow path B{path.slow}: call {path.what} ({_ins_text(result, path.site)})"
                    + (f", its inline fast path in B{', B'.join(map(str, path.fast))}" if path.fast else "")
                    for path in paths]
        slow = heat_of(result, [path.slow for path in paths])
        evidence += [how.kept, where.figure + (f"; its slow path {slow[0]:.2f}%" if slow and slow[0] else "")]
        routines = ", ".join(dict.fromkeys(path.what for path in paths))
        places = f" (at {len(paths)} places the bytecode was inlined)" if len(paths) > 1 else ""
        cause = f"the loop at B{header} {how.does} ({site.text}{places}) through {routines}: {how.why}"
        header_ = result.cfg.method.header
        found.append(Finding(how.finding, header_.compile_id, header_.name, header, site.bci, site.line, site.scope,
                             where.share, where.estimate, cause, tuple(evidence), how.suggestion))
    return found
