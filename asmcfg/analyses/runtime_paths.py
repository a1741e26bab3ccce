"""GC barriers, allocation and locking: the slow-path calls the code makes, and the fast paths that branch to them.

A slow path is named by the routine its call names: allocation (`_new_instance_Java`, `C2 Runtime
new_array_nozero`, C1's `fast_new_instance`/`new_object_array` stubs), monitor enter
(`_complete_monitor_locking_Java`, C1 `monitorenter`) and exit (`complete_monitor_unlocking_C`, C1
`monitorexit`), GC barriers (G1's `write_ref_field_pre_entry`/`post_entry` and C1's `g1_pre_barrier_slow`/
`g1_post_barrier_slow`, ZGC and Shenandoah barrier routines). Its block is tagged `<kind>_slow`. The fast path
is the inline code that decides to take it: every block whose conditional branch reaches the slow call through
straight-line code and jumps only is tagged `<kind>` (TLAB bump, `lock cmpxchg`, the card or marking check).
C1's `fast_new_instance` stub holds the TLAB fast path itself, so its call block is the allocation.
"""

from __future__ import annotations

from dataclasses import replace

from asmcfg.analyses.context import Context, add_tags
from asmcfg.hotspot.stubs import NOT_A_RUNTIME_PATH, RUNTIME_PATHS
from asmcfg.model import Analysis, CallKind, EdgeKind, Flow, PathKind, RuntimePath, Tag

_MAX_CHAIN = 8
_NOT_JAVA = (CallKind.RUNTIME, CallKind.STUB)


def kind_of(routine: str) -> PathKind | None:
    """`gc_barrier`, `allocation`, `lock`, `unlock`, or None for another routine."""
    if NOT_A_RUNTIME_PATH in routine:
        return None
    return next((kind for kind, pattern in RUNTIME_PATHS if pattern.search(routine)), None)


def run(ctx: Context, result: Analysis) -> Analysis:
    """`runtime_paths`, with `<kind>` tags on fast-path blocks and `<kind>_slow` on slow-path calls."""
    paths: list[RuntimePath] = []
    tags: dict[int, set[Tag]] = {}
    for call in result.calls:
        kind = kind_of(call.callee) if call.kind in _NOT_JAVA else None
        if not kind:
            continue
        fast = _fast_blocks(ctx, call.block)
        paths.append(RuntimePath(kind, call.callee, call.block, fast, call.site))
        inline = fast == () and "fast_new" in call.callee  # C1's stub holds the fast path itself
        tags.setdefault(call.block, set()).add(kind.fast_tag if inline else kind.slow_tag)
        for block in fast:
            tags.setdefault(block, set()).add(kind.fast_tag)
    return add_tags(replace(result, runtime_paths=tuple(paths)), tags)


def _fast_blocks(ctx: Context, slow: int) -> tuple[int, ...]:
    """Blocks whose conditional branch reaches `slow` through straight-line code and unconditional jumps."""
    chain, frontier, fast = {slow}, [slow], set()
    while frontier and len(chain) < _MAX_CHAIN:
        block = frontier.pop()
        for edge in ctx.predecessors.get(block, ()):
            src = edge.src
            last = ctx.layout.flows[ctx.block(src).end - 1]
            if edge.kind is EdgeKind.TAKEN or (edge.kind is EdgeKind.FALLTHROUGH and last is Flow.COND):
                fast.add(src)
            elif edge.kind in (EdgeKind.JUMP, EdgeKind.FALLTHROUGH) and src not in chain and _straight(ctx, src):
                chain.add(src)
                frontier.append(src)
    return tuple(sorted(fast - chain))


def _straight(ctx: Context, block: int) -> bool:
    """No call or branch but a final unconditional jump."""
    b = ctx.block(block)
    flows = ctx.layout.flows[b.start : b.end]
    return all(f is Flow.NONE for f in flows[:-1]) and flows[-1] in (Flow.NONE, Flow.JUMP)
