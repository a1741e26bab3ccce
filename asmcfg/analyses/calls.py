"""Every real call: its kind from the call relocation and bytecode, what it calls, and C2's inlining decision there.

A Java call is named by its relocation (`{static_call}`, `{optimized virtual_call}`, `{virtual_call}`; a
`virtual_call` at an `invokeinterface` is an interface call) and its callee by the scope's bytecode
(`;*invokevirtual apply`) or, with a LogCompilation log, by the `<call>` record at the same inlining chain: the
call's whole scope chain (`fib@12 <- fib@18 <- run@14`), not only its innermost method and bci, which a method
inlined at several places (a recursive one) shares with calls the compiler decided otherwise. A
runtime call names its routine in a `{runtime_call …}` relocation on the call or, for an indirect call, on
the instruction that loads the address (`movabs …, %r10 ; {runtime_call …}` then `call *%r10`). Generated
code (StubRoutines, C2 and C1 runtime stubs, blobs) is a `stub`; a VM function is `runtime`. Trap calls are
traps, not calls; the deopt handler's call to the next instruction is not a call either.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from asmcfg.analyses.context import Context, add_tags
from asmcfg.hotspot.stubs import GENERATED_CODE
from asmcfg.model import Analysis, Call, CallKind, Flow, Instruction, Tag

if TYPE_CHECKING:
    from asmcfg.model import LogInline

Chain = tuple[tuple[str, int | None], ...]
"""An inlining chain as (method, bci), innermost first."""

_HANDLERS = frozenset({Tag.DEOPT_HANDLER, Tag.EXCEPTION_HANDLER})
_LOOKBACK = 3
_JAVA_KINDS = {"static_call": CallKind.STATIC, "optimized virtual_call": CallKind.OPTIMIZED_VIRTUAL,
               "opt_virtual_call": CallKind.OPTIMIZED_VIRTUAL, "virtual_call": CallKind.VIRTUAL}
_BOUND = (CallKind.STATIC, CallKind.OPTIMIZED_VIRTUAL, CallKind.VIRTUAL)


def run(ctx: Context, result: Analysis) -> Analysis:
    """`calls`, with `java_call`/`runtime_call` tags on the blocks that make them."""
    method = ctx.cfg.method
    trap_sites = {trap.site for trap in result.traps.values()}
    decisions = _by_site(method.log_inlines or ())
    calls: list[Call] = []
    tags: dict[int, set[Tag]] = {}
    flows = ctx.layout.flows
    for block in ctx.cfg.blocks:
        if result.block_tags(block.id) & _HANDLERS:
            continue
        for i in range(block.start, block.end):
            if flows[i] is not Flow.CALL or i in trap_sites:
                continue
            call = _call(ctx, block.id, i, decisions)
            if call is not None:
                calls.append(call)
                tags.setdefault(block.id, set()).add(Tag.JAVA_CALL if call.java else Tag.RUNTIME_CALL)
    return add_tags(replace(result, calls=tuple(calls)), tags)


def _call(ctx: Context, block: int, site: int, decisions: dict[Chain, list[LogInline]]) -> Call | None:
    instructions = ctx.cfg.method.instructions
    ins = instructions[site]
    kind, name = _kind(ins)
    if kind is None:
        routine = _loaded_routine(ctx, block, site)
        if routine:
            kind, name = _routine_kind(routine), routine
        elif ctx.table.target(ins) == _next_address(ctx, site):
            return None
        else:
            kind = CallKind.UNKNOWN
    here: tuple[LogInline, ...] = ()
    if kind in _BOUND and ins.frames:
        chain = tuple((frame.method.replace("/", "."), frame.bci) for frame in ins.frames)
        here = _matching(decisions.get(chain, []), name)
        if ins.bytecode.startswith("invokeinterface") and kind is CallKind.VIRTUAL:
            kind = CallKind.INTERFACE
        name = here[0].callee if here else name
    return Call(site, block, kind, name, ins.frames, here)


def _kind(ins: Instruction) -> tuple[CallKind | None, str]:
    """(kind, callee) from the call's own relocation; (None, "") when it has none that names a call."""
    for reloc in ins.relocs:
        if reloc in _JAVA_KINDS:
            return _JAVA_KINDS[reloc], _bytecode_callee(ins.bytecode)
        if reloc.startswith("runtime_call"):
            routine = reloc[len("runtime_call") :].strip()
            if routine:
                return _routine_kind(routine), routine
    return None, ""


def _routine_kind(routine: str) -> CallKind:
    """`stub` for code HotSpot generated, `runtime` for a VM function."""
    return CallKind.STUB if GENERATED_CODE.search(routine) else CallKind.RUNTIME


def _bytecode_callee(bytecode: str) -> str:
    """`apply` from `invokevirtual apply`; empty when the bytecode names no method."""
    parts = bytecode.split()
    return parts[1] if len(parts) > 1 and parts[0].startswith("invoke") else ""


def _loaded_routine(ctx: Context, block: int, site: int) -> str:
    """The runtime routine an instruction just before an indirect call loads (its `runtime_call` relocation)."""
    instructions = ctx.cfg.method.instructions
    start = ctx.block(block).start
    for i in range(site - 1, max(start, site - _LOOKBACK) - 1, -1):
        routine = instructions[i].runtime_call()
        if routine:
            return routine
    return ""


def _next_address(ctx: Context, site: int) -> int | None:
    instructions = ctx.cfg.method.instructions
    return instructions[site + 1].address if site + 1 < len(instructions) else None


def _by_site(records: tuple[LogInline, ...]) -> dict[Chain, list[LogInline]]:
    """The decisions at each inlining chain."""
    found: dict[Chain, list[LogInline]] = {}
    for record in records:
        found.setdefault(record.chain, []).append(record)
    return found


def _matching(records: list[LogInline], name: str) -> tuple[LogInline, ...]:
    """The records whose callee has the bytecode's method name (all of them when none has, or no name is known)."""
    named = [r for r in records if name and r.callee.rsplit("::", 1)[-1] == name]
    return tuple(named or records)
