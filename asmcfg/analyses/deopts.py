"""Find Graal's (JVMCI's) deoptimization sites: the request stored into the thread, then the blob called.

A JVMCI compilation deoptimizes by writing the trap request into the JavaThread's pending deoptimization field
(`movl $REQ, OFF(%r15)`), the failed speculation into the field after it (`movq $SPEC, OFF+8(%r15)`), then
calling the DeoptimizationBlob. OFF differs between JDKs (0x370 on 17, 0x560 on 25): it is read from the two
stores, never assumed. Several sites often share one store-and-call: each predecessor loads its own request and
speculation into the registers the stores read (`movl $REQ, %r10d`) and jumps there, so each predecessor is a
site of its own. A call to the blob without the stores is the deopt handler's, not a trap.
"""

from __future__ import annotations

from dataclasses import dataclass

from asmcfg.analyses.context import Context
from asmcfg.isa.base import signed32
from asmcfg.model import Flow

_BLOB = "DeoptimizationBlob"
_SPECULATION_GAP = 8
"""The failed speculation's field follows the pending deoptimization's (an int padded to 8 bytes)."""
_STORE_WINDOW = 4
"""How many instructions before the call the two stores may sit."""
_LOOKBACK = 16
"""How far back in a predecessor its register loads are searched."""


@dataclass(frozen=True, slots=True)
class DeoptSite:
    """One deoptimization request: where its call is and what it asks for."""

    site: int
    """Index of the DeoptimizationBlob call."""
    request: int
    """The trap request, signed 32-bit."""
    speculation: int | None
    """The failed speculation's value (an index into the compilation's speculations), if read."""


def sites(ctx: Context) -> dict[int, DeoptSite]:
    """Every deopt site by the block that requests it: the call's own block, or each predecessor of a shared
    store-and-call that loads the registers it stores."""
    found: dict[int, DeoptSite] = {}
    instructions, flows = ctx.cfg.method.instructions, ctx.layout.flows
    for block in ctx.cfg.blocks:
        for index in range(block.start, block.end):
            if flows[index] is not Flow.CALL or _BLOB not in instructions[index].runtime_call():
                continue
            stores = _stores(ctx, block.start, index)
            if stores is None:
                continue
            request, speculation = stores
            if isinstance(request, int):
                found[block.id] = DeoptSite(index, signed32(request), _value(speculation))
                continue
            for edge in ctx.predecessors.get(block.id, ()):
                loaded = _loads(ctx, edge.src, {r for r in (request, speculation) if isinstance(r, str)})
                if request in loaded:
                    spec = loaded.get(speculation) if isinstance(speculation, str) else _value(speculation)
                    found[edge.src] = DeoptSite(index, signed32(loaded[request]), spec)
    return found


def _value(item: int | str | None) -> int | None:
    return item if isinstance(item, int) else None


def _stores(ctx: Context, start: int, call: int) -> tuple[int | str, int | str | None] | None:
    """The request's and the speculation's stored values just before `call`, if the request store is there."""
    stored: dict[int, int | str] = {}
    for index in range(call - 1, max(start, call - _STORE_WINDOW) - 1, -1):
        store = ctx.table.thread_store(ctx.cfg.method.instructions[index])
        if store is None:
            break
        stored.setdefault(store[0], store[1])
    for offset in sorted(stored):
        if offset + _SPECULATION_GAP in stored:
            return stored[offset], stored[offset + _SPECULATION_GAP]
    return None


def _loads(ctx: Context, block_id: int, registers: set[str]) -> dict[str, int]:
    """The immediates the last instructions of block `block_id` leave in `registers`."""
    found: dict[str, int] = {}
    block = ctx.block(block_id)
    written: set[str] = set()
    for index in range(block.end - 1, max(block.start, block.end - _LOOKBACK) - 1, -1):
        ins = ctx.cfg.method.instructions[index]
        if ctx.layout.flows[index] is Flow.CALL:
            break
        loaded = ctx.table.register_immediate(ins)
        if loaded is not None and loaded[0] in registers and loaded[0] not in written:
            found[loaded[0]] = loaded[1]
        destination = ctx.table.written_register(ins)
        if destination is not None:
            written.add(destination)
    return found
