"""Findings at hot call sites: a callee C2 could bind but did not inline (`not-inlined`), and a virtual or interface
call whose profile saw more receiver types than C2 inlines (`megamorphic`). Both rest on the LogCompilation log's
decision at the call: without a log there is no finding."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace

from asmcfg.facts.findings_frame import at_site, block_where, is_hot
from asmcfg.model import Analysis, Call, CallKind, LogInline
from asmcfg.model.findings import Finding, FindingKind


@dataclass(frozen=True, slots=True)
class Limit:
    """The inlining limit an `<inline_fail>` reason names."""

    flag: str
    """The HotSpot flag."""
    default: int | None
    """Its x86-64 default on JDK 17 and 25, when the finding can compare a figure with it."""
    measure: str
    """What the flag bounds."""
    suggestion: str
    """What to try."""


SIZE = "the callee's bytecode size"
LIMITS: dict[str, Limit] = {
    "too big": Limit("MaxInlineSize", 35, SIZE,
                     "make the callee smaller (move its rare paths into a method of their own), or test with a larger "
                     "-XX:MaxInlineSize"),
    "hot method too big": Limit("FreqInlineSize", 325, SIZE,
                                "make the callee smaller (move its rare paths into a method of their own), or test "
                                "with a larger -XX:FreqInlineSize"),
    "already compiled into a big method": Limit(
        "InlineSmallCode", None, "the size of the callee's own compiled code",
        "make the callee's compiled code smaller (move its rare paths into a method of their own)"),
    "already compiled into a medium method": Limit(
        "InlineSmallCode", None, "the size of the callee's own compiled code (a quarter of it for a cold site)",
        "make the callee's compiled code smaller (move its rare paths into a method of their own)"),
    "inlining too deep": Limit("MaxInlineLevel", 15, "the depth of inlined calls",
                               "make the call chain shorter, or test with a larger -XX:MaxInlineLevel"),
    "recursive inlining is too deep": Limit("MaxRecursiveInlineLevel", 1, "how deep a recursive call is inlined",
                                            "turn the recursion into a loop"),
}
"""The `<inline_fail>` reasons that name a size or depth limit, with the limit."""
DISPATCH = frozenset({CallKind.VIRTUAL, CallKind.INTERFACE})


def call_findings(result: Analysis, whatif: str) -> list[Finding]:
    """The not-inlined and megamorphic findings at the compilation's hot calls; `whatif` starts the commands."""
    found = []
    for call in result.calls:
        if not call.java or not call.decisions or any(d.inlined for d in call.decisions):
            continue
        heat = block_where(result, call.block)
        if not is_hot(heat):
            continue
        decision = call.decisions[-1]
        made = (_megamorphic(result, call, decision, heat.figure) if call.kind in DISPATCH else None) \
            or _not_inlined(result, call, decision, heat.figure, whatif)
        if made is not None:
            found.append(_placed(made, result, call, heat.share, heat.estimate))
    return _merged(found)


def _merged(found: list[Finding]) -> list[Finding]:
    """One finding per kind and bytecode (scope and bci): a call inlined at several places is several calls in the
    code, their evidence together, their measured shares summed."""
    groups: dict[tuple[FindingKind, str, int | None, str], list[Finding]] = {}
    for each in found:
        groups.setdefault((each.kind, each.scope, each.bci, each.cause), []).append(each)
    merged = []
    for same in groups.values():
        first = same[0]
        if len(same) > 1:
            shares = [f.share for f in same if f.share is not None]
            first = replace(first, share=sum(shares) if shares else None,
                            estimate=max((f.estimate for f in same if f.estimate is not None), default=None),
                            cause=f"{first.cause} (at {len(same)} places: the bytecode was inlined more than once)",
                            evidence=tuple(dict.fromkeys(e for f in same for e in f.evidence)))
        merged.append(first)
    return merged


@dataclass(frozen=True, slots=True)
class _Made:
    kind: FindingKind
    cause: str
    evidence: tuple[str, ...]
    suggestion: str
    whatif: str | None


def _placed(made: _Made, result: Analysis, call: Call, share: float | None, estimate: int | None) -> Finding:
    site = at_site(result, call.site)
    header = result.cfg.method.header
    return Finding(made.kind, header.compile_id, header.name, call.block, site.bci, site.line, site.scope, share,
                   estimate, made.cause, made.evidence, made.suggestion, made.whatif)


def _code(result: Analysis, call: Call) -> str:
    ins = result.cfg.method.instructions[call.site]
    return f"B{call.block} 0x{ins.address:x} {ins.mnemonic} {ins.operands} ({call.kind} call)".replace("  ", " ")


def _logged(decision: LogInline) -> str:
    known = decision.count is not None and decision.count >= 0  # -1: the site has no profile
    count = f", called {decision.count:,} times in the profile" if known else ", no profile count at the site"
    return f"log line {decision.line}: {decision.callee} not inlined, reason '{decision.reason}'{count}"


def _not_inlined(result: Analysis, call: Call, decision: LogInline, figure: str, whatif: str) -> _Made | None:
    limit = LIMITS.get(decision.reason)
    if limit is None:
        return None
    evidence = [_code(result, call), _logged(decision)]
    if limit.measure == SIZE and decision.callee_bytes is not None and limit.default is not None:
        evidence.append(f"{decision.callee} is {decision.callee_bytes} bytes of bytecode, over {limit.flag} "
                        f"({limit.default} by default)")
        against = f"{decision.callee_bytes} bytes of bytecode against {limit.flag}={limit.default}"
    else:
        against = f"{limit.measure} against {limit.flag}" + (f"={limit.default}" if limit.default else "")
    evidence.append(figure)
    cause = (f"C2 did not inline {decision.callee} here ('{decision.reason}': {against}), so the code pays a call "
             "there and C2 cannot optimise the callee's work together with the caller's")
    command = f"{whatif} --inline {shlex.quote(decision.callee)}"
    return _Made(FindingKind.NOT_INLINED, cause, tuple(evidence), limit.suggestion, command)


def _megamorphic(result: Analysis, call: Call, decision: LogInline, figure: str) -> _Made | None:
    """A virtual or interface call C2 left in the code whose profile saw two receiver types or more: its inline
    cache, which holds one type, has gone megamorphic and dispatches through a vtable or itable stub."""
    if decision.count is None or decision.count <= 0 or len(decision.receivers) < 2:
        return None
    recorded = sum(count for _, count in decision.receivers)
    others = max(0, decision.count - recorded)
    types = ", ".join(f"{name} {count:,}" for name, count in decision.receivers)
    rest = (f"; {others:,} calls of other types ({100 * others / decision.count:.0f}%)" if others else
            "; no other type")
    evidence = (_code(result, call), _logged(decision), f"receiver types the profile recorded: {types}{rest}", figure)
    seen = "at least three receiver types, more than C2 inlines" if others else "two receiver types"
    article = "an" if call.kind is CallKind.INTERFACE else "a"
    cause = (f"the call of {decision.callee} saw {seen}, and C2 left {article} {call.kind} call: an inline cache "
             "holds one type, so each call dispatches through a vtable or itable stub")
    return _Made(FindingKind.MEGAMORPHIC, cause, evidence,
                 "make this call site see one receiver type (split the work by type, or branch on the type and "
                 "call each class's method directly) so C2 can inline it behind a type check", None)
