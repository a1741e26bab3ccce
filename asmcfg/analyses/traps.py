"""Find uncommon-trap calls and C1 deopt/throw stubs, decode their trap_request, pick the JDK table."""

from __future__ import annotations

from dataclasses import replace

from asmcfg.analyses import deopts
from asmcfg.analyses.context import Context, add_tags
from asmcfg.hotspot import deopt, jdk
from asmcfg.model import Analysis, Flow, Instruction, Tag, Trap, TrapKind

_C1_THROWS = {
    "throw_range_check_failed": "range_check",
    "throw_index_exception": "range_check",
    "throw_null_pointer_exception": "null_check",
    "throw_div0_exception": "div0_check",
    "throw_class_cast_exception": "class_check",
    "throw_array_store_exception": "array_check",
    "throw_incompatible_class_change_error": "class_check",
}
"""C1's throw stubs by the name in their call's relocation, and the check that fails into each: the
incompatible-class-change stub throws when the receiver of an interface call C1 inlined through the interface's
only implementor is no instance of that interface (a checkcast that throws IncompatibleClassChangeError)."""
_LOOKBACK = 64
_TRAP_FLOWS = frozenset({Flow.CALL, Flow.JUMP})


def trap_kind(ins: Instruction) -> TrapKind | None:
    """`uncommon_trap` (C2 UncommonTrapBlob or C1 deoptimize stub), `throw` (C1 throw stub), or None."""
    callee = ins.runtime_call()
    if "UncommonTrapBlob" in callee or callee.startswith(("deoptimize", "C1 Runtime deoptimize")):
        return TrapKind.UNCOMMON_TRAP
    if any(name in callee for name in _C1_THROWS):
        return TrapKind.THROW
    return None


def run(ctx: Context, result: Analysis) -> Analysis:
    """Attach a decoded Trap to every block that ends in a trap call; choose the JDK table."""
    sites = _trap_sites(ctx)
    requests = {block: _request(ctx, block, site) for block, site in sites.items()}
    known = [r for r in requests.values() if r is not None]
    guess = jdk.choose(ctx.cfg.method, known, ctx.jdk)
    traps = {block: _trap(ctx, site, requests[block], guess.version) for block, site in sites.items()}
    for block, deopt_site in deopts.sites(ctx).items():
        traps.setdefault(block, _jvmci_trap(ctx, deopt_site, guess.version))
    tags = {b: {Tag.UNCOMMON_TRAP if trap.kind is TrapKind.UNCOMMON_TRAP else Tag.STUB} for b, trap in traps.items()}
    result = replace(result, traps=traps, jdk=guess.version, jdk_why=guess.why)
    return add_tags(result, tags)


def _trap_sites(ctx: Context) -> dict[int, int]:
    sites: dict[int, int] = {}
    instructions, flows = ctx.cfg.method.instructions, ctx.layout.flows
    for block in ctx.cfg.blocks:
        for i in range(block.start, block.end):
            if flows[i] in _TRAP_FLOWS and trap_kind(instructions[i]):
                sites[block.id] = i
    return sites


def _request(ctx: Context, block_id: int, site: int) -> int | None:
    """The last immediate written to the trap register in straight-line code before `site`."""
    instructions = ctx.cfg.method.instructions
    current: int | None = block_id
    index = site - 1
    steps = 0
    while current is not None and steps < _LOOKBACK:
        block = ctx.block(current)
        while index >= block.start:
            ins = instructions[index]
            value = ctx.table.trap_immediate(ins)
            if value is not None:
                return value
            if ctx.table.writes_trap_register(ins) or ctx.layout.flows[index] is Flow.CALL:
                return None
            index -= 1
            steps += 1
        current = ctx.fallthrough_pred(current)
        if current is not None:
            index = ctx.block(current).end - 1
    return None


def _trap(ctx: Context, site: int, request: int | None, version: int) -> Trap:
    ins = ctx.cfg.method.instructions[site]
    kind = trap_kind(ins)
    assert kind is not None, "a trap site is a trap call"
    if kind is TrapKind.THROW:
        reason = next(r for name, r in _C1_THROWS.items() if name in ins.runtime_call())
        reason_action = (reason, "throw")
    elif request is None:
        reason_action = ("unknown", "unknown")
    else:
        reason_action = deopt.decode(request, version)
    frame = ins.frames[0] if ins.frames else None
    return Trap(
        site=site,
        kind=kind,
        request=request,
        reason=reason_action[0],
        action=reason_action[1],
        bytecode=ins.bytecode,
        bci=frame.bci if frame else None,
        line=frame.line if frame else None,
        method=frame.method if frame else "",
    )


def _jvmci_trap(ctx: Context, deopt_site: deopts.DeoptSite, version: int) -> Trap:
    """A JVMCI deopt site as a trap: the request decoded, the scope of its call's debug info."""
    ins = ctx.cfg.method.instructions[deopt_site.site]
    reason, action = deopt.decode_jvmci(deopt_site.request, version)
    frame = ins.frames[0] if ins.frames else None
    return Trap(
        site=deopt_site.site,
        kind=TrapKind.UNCOMMON_TRAP,
        request=deopt_site.request,
        reason=reason,
        action=action,
        bytecode=ins.bytecode,
        bci=frame.bci if frame else None,
        line=frame.line if frame else None,
        method=frame.method if frame else "",
        speculation=deopt_site.speculation,
    )
