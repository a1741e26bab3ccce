"""What one analysed compilation offers a comparison: its loops, traps, checks, calls and polls, each with the
debug info (method@bci chain, bytecode) that names it independently of addresses."""

from __future__ import annotations

from dataclasses import dataclass

from asmcfg.analyses.hotness import is_cold
from asmcfg.compare import facts
from asmcfg.compare.facts import Inlined, Scope
from asmcfg.facts import report
from asmcfg.facts.counts import counts
from asmcfg.hotspot.stubs import routine_key
from asmcfg.model import Analysis, Call, CallKind, Check, EdgeKind, Loop, LoopFacts, LoopRole

_MAX_HOPS = 32


@dataclass(frozen=True, slots=True)
class LoopItem:
    """A loop with what one iteration costs and the debug info that names it."""

    header: int
    """Header block id."""
    depth: int
    """Nesting depth, 1 for outermost."""
    parent: int | None
    """Header of the loop it is nested in."""
    blocks: tuple[int, ...]
    """Member block ids."""
    strip_mined: bool
    """C2's strip-mined outer loop."""
    role: LoopRole
    """Its place among C2's copies of one source loop (`pre`, `main`, `post`, `drain`, `strip_mined_outer`), or
    empty (the `copies` pass)."""
    unroll: int | None
    """Copies of the body one trip of a main or drain loop runs; None for other loops and where unknown."""
    instructions: int
    """Instructions in its warm blocks (one iteration's worth)."""
    range_checks: int
    """Range-check branches in its warm blocks."""
    null_checks: int
    """Null-check branches and implicit null checks in its warm blocks."""
    polls: int
    """Safepoint polls in its warm blocks."""
    calls: int
    """Real calls in its warm blocks."""
    vector: LoopFacts | None
    """Its own blocks' packed SIMD work (the `vectors` pass: width, element, `avx`/`neon`/…), None when scalar."""
    heat: float | None
    """Share of the first profile event in its blocks, None without a profile."""
    hot: bool
    """Its header is on the hot path (measured, else static)."""
    scopes: frozenset[tuple[str, int]]
    """(method, bci) of every instruction with debug info in it, and of the traps its checks lead to."""
    words: frozenset[tuple[str, str]]
    """(method, bytecode) of the same: what still names the loop when bcis shift."""


@dataclass(frozen=True, slots=True)
class TrapItem:
    """An uncommon trap call."""

    block: int
    """The block making the call."""
    reason: str
    """Deoptimization reason."""
    action: str
    """Deoptimization action."""
    bytecode: str
    """Bytecode the trap is at."""
    scope: Scope
    """(method, bci) chain of the call, innermost first."""


@dataclass(frozen=True, slots=True)
class CheckItem:
    """A range or null check: its branch (or implicit-exception instruction) and the bytecode it guards."""

    block: int
    """Block holding the branch."""
    kind: Check
    """`range_check` or `null_check`."""
    bytecode: str
    """The guarded bytecode (`iaload`), from the trap the failure path reaches."""
    scope: Scope
    """(method, bci) chain of that bytecode."""
    loop: int | None
    """Header of the innermost loop whose warm blocks hold the branch, None outside loops."""
    implicit: bool
    """An implicit null check (a faulting load), not a branch."""


@dataclass(frozen=True, slots=True)
class CallItem:
    """A real call (the `calls` pass), with the debug info that names it and the log's decision there."""

    block: int
    """Block making the call."""
    kind: CallKind
    """`static`, `optimized_virtual`, `virtual`, `interface`, `runtime`, `stub` or `unknown`."""
    callee: str
    """What it calls: the log's `pkg.Class::name`, else the bytecode's method name, else the runtime routine."""
    name: str
    """The callee's short name (`area`), what pairs it across the sides."""
    scope: Scope
    """(method, bci) chain of the invoke, innermost first; empty without debug info."""
    bytecode: str
    """The invoke bytecode as printed (`invokeinterface area`), or empty."""
    inlined: bool | None
    """The log's decision at this call site: False (`<inline_fail>`), True (only `<inline_success>` records),
    None without a log or a record there."""
    why: str
    """The log's `inline_fail` reasons here, joined (`hot method too big`), or empty."""

    @property
    def java(self) -> bool:
        """A call of a Java method, one C2 could have inlined."""
        return self.kind.java


@dataclass(frozen=True, slots=True)
class PollItem:
    """A loop safepoint poll."""

    block: int
    """Block holding it."""
    scope: Scope
    """(method, bci) chain of the poll, usually the loop's back branch."""
    loop: int | None
    """Header of the innermost loop holding it."""


@dataclass(frozen=True, slots=True)
class Side:
    """One compilation, reduced to what the diff compares."""

    result: Analysis
    """The analysed method."""
    facts: dict[str, int | str | None]
    """Compiler, compile id, tier, OSR bci, JDK, bytes of `main code`, instructions, blocks, loops."""
    loops: tuple[LoopItem, ...]
    """Loops, outermost first."""
    traps: tuple[TrapItem, ...]
    """Uncommon traps."""
    checks: tuple[CheckItem, ...]
    """Range and null checks."""
    calls: tuple[CallItem, ...]
    """Real calls."""
    inlined: tuple[Inlined, ...]
    """Invokes compiled inline (the log's records when it has one, else the debug info's evidence)."""
    logged: bool
    """The compilation was read with its LogCompilation task, so `inlined` and the calls' decisions are the log's."""
    polls: tuple[PollItem, ...]
    """Loop safepoint polls."""


def side(result: Analysis) -> Side:
    """Reduce one analysed compilation to its comparable items."""
    innermost = _innermost(result)
    checks = _checks(result, innermost)
    calls = tuple(_call(result, call) for call in result.calls)
    return Side(
        result=result,
        facts=compile_facts(result),
        loops=tuple(_loop(result, loop, checks, calls) for loop in result.loops),
        traps=_traps(result),
        checks=checks,
        calls=calls,
        inlined=facts.inlined(result),
        logged=facts.has_log(result),
        polls=_polls(result, innermost),
    )


def _call(result: Analysis, call: Call) -> CallItem:
    bytecode = result.cfg.method.instructions[call.site].bytecode
    inlined = None
    if call.decisions:
        inlined = all(d.inlined for d in call.decisions)
    short = facts.short_name(routine_key(call.callee))  # one routine under its JDK 17 and JDK 25 names
    return CallItem(call.block, call.kind, call.callee, short, facts.scope_of(call.frames),
                    bytecode, inlined, call.not_inlined_because())


def compile_facts(result: Analysis) -> dict[str, int | str | None]:
    """The compilation's identity and size."""
    method = result.cfg.method
    header = method.header
    return {
        "name": header.name, "compiler": header.compiler, "compile_id": header.compile_id, "level": header.level,
        "osr_bci": header.osr_bci, "jdk": result.jdk, "main_code_bytes": method.main_code_size,
        "instructions": len(method.instructions), "blocks": len(result.cfg.blocks), "loops": len(result.loops),
        "uncommon_traps": counts(result)["uncommon_trap_calls"],
    }


def _innermost(result: Analysis) -> dict[int, int]:
    """For each warm block inside a loop, the header of the deepest loop holding it."""
    found: dict[int, int] = {}
    for loop in sorted(result.loops, key=lambda lp: lp.depth):
        for block in loop.blocks:
            if not is_cold(result, block):
                found[block] = loop.header
    return found


def _traps(result: Analysis) -> tuple[TrapItem, ...]:
    instructions = result.cfg.method.instructions
    return tuple(
        TrapItem(block, t.reason, t.action, t.bytecode, facts.scope_of(instructions[t.site].frames))
        for block, t in sorted(result.traps.items())
    )


def _checks(result: Analysis, innermost: dict[int, int]) -> tuple[CheckItem, ...]:
    instructions = result.cfg.method.instructions
    successors: dict[int, list[int | str]] = {}
    for edge in result.cfg.edges:
        if edge.kind in (EdgeKind.FALLTHROUGH, EdgeKind.JUMP):
            successors.setdefault(edge.src, []).append(edge.dst)
    found = []
    for edge, kind in result.checks.items():
        if not isinstance(edge.dst, int):
            continue
        trap_block = _trap_reached(result, successors, edge.dst)
        if trap_block is not None:
            trap = result.traps[trap_block]
            bytecode, scope = trap.bytecode, facts.scope_of(instructions[trap.site].frames)
        else:
            ins = instructions[edge.site]
            bytecode, scope = ins.bytecode, facts.scope_of(ins.frames)
        implicit = edge.kind is EdgeKind.EXCEPTION
        found.append(CheckItem(edge.src, kind, bytecode, scope, innermost.get(edge.src), implicit))
    return tuple(sorted(found, key=lambda c: (c.block, c.kind, c.scope)))


def _trap_reached(result: Analysis, successors: dict[int, list[int | str]], start: int) -> int | None:
    """The trap block a failure path from `start` reaches along single fall-through or jump successors."""
    current: int | str = start
    for _ in range(_MAX_HOPS):
        if not isinstance(current, int):
            return None
        if current in result.traps:
            return current
        nexts = successors.get(current, [])
        if len(nexts) != 1:
            return None
        current = nexts[0]
    return None


def _polls(result: Analysis, innermost: dict[int, int]) -> tuple[PollItem, ...]:
    instructions = result.cfg.method.instructions
    found = []
    for block in result.cfg.blocks:
        for i in range(block.start, block.end):
            if instructions[i].poll:
                # the poll's debug info is printed on the load of the polling page just before it
                framed = [instructions[j].frames for j in range(i, block.start - 1, -1) if instructions[j].frames]
                found.append(PollItem(block.id, facts.scope_of(framed[0] if framed else ()), innermost.get(block.id)))
    return tuple(found)


def _loop(result: Analysis, loop: Loop, checks: tuple[CheckItem, ...], calls: tuple[CallItem, ...]) -> LoopItem:
    summary = report.loop_dict(result, loop)
    members = set(loop.blocks)
    instructions = result.cfg.method.instructions
    scopes: set[tuple[str, int]] = set()
    words: set[tuple[str, str]] = set()
    for block_id in loop.blocks:
        block = result.cfg.blocks[block_id]
        for ins in instructions[block.start : block.end]:
            if ins.frames:
                scopes.add((ins.frames[0].method, ins.frames[0].bci))
                words.add((ins.frames[0].method, ins.bytecode.split(" ", 1)[0]))
    for check in checks:
        if check.block in members and check.scope:
            scopes.add(check.scope[0])
            words.add((check.scope[0][0], check.bytecode.split(" ", 1)[0]))
    parents = [o for o in result.loops if o.depth == loop.depth - 1 and members < set(o.blocks)]
    hot = set(result.hot_paths[0].blocks if result.hot_paths else result.hot_path)
    copy = result.loop_facts.get(loop.header, LoopFacts(loop.header, LoopRole.NONE, None, None, ""))
    heat = None
    if result.block_heat:
        heat = round(sum(result.block_heat.get(b, (0.0,))[0] for b in loop.blocks), 4)
    return LoopItem(
        header=loop.header, depth=loop.depth, parent=parents[0].header if parents else None, blocks=loop.blocks,
        strip_mined=summary["strip_mined_outer"], role=copy.role, unroll=copy.unroll,
        instructions=summary["instructions"],
        range_checks=summary["range_checks"], null_checks=summary["null_checks"], polls=summary["polls"],
        calls=sum(1 for c in calls if c.block in members and not is_cold(result, c.block)),
        vector=copy if copy.vectorized else None, heat=heat, hot=loop.header in hot, scopes=frozenset(scopes),
        words=frozenset(words),
    )
