"""Split one method into basic blocks and connect them: a pure function of the Method."""

from __future__ import annotations

import bisect
import itertools
import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass

from asmcfg import isa
from asmcfg.hotspot import osr, sections
from asmcfg.isa.base import Isa
from asmcfg.model import Block, Cfg, Edge, EdgeKind, Feature, Flow, Instruction, Method

UNRESOLVED = "unresolved jump table"
MID_INSTRUCTION = "into the middle of an instruction:"
"""Start of the exit name of a branch whose target lies inside an instruction of the method, not at its start."""
_BOUND_REACH = 12
"""Instructions before an indirect jump searched for its table's bounds check."""
_TABLE_BASE = re.compile(r"(0x[0-9a-fA-F]+)")
GAP = "gap"
"""Marker a partial listing (perfasm) puts where printed code is not contiguous."""


_ENDING = frozenset({Flow.COND, Flow.JUMP, Flow.INDIRECT, Flow.RETURN, Flow.HALT})
"""Flows that end a block (calls end one only when they never return)."""
_DIRECT = frozenset({Flow.COND, Flow.JUMP})
"""Flows with a target address in the operand."""
PADDING = frozenset({"hlt", "int3"})
"""Mnemonics HotSpot fills alignment gaps with: a run of one of them is one block, not one block per byte."""


@dataclass(frozen=True, slots=True)
class Layout:
    """Per-instruction facts the builder and the passes share."""

    flows: tuple[Flow, ...]
    """Control-flow kind of each instruction."""
    ends: tuple[bool, ...]
    """True where an instruction ends its block."""
    index: dict[int, int]
    """Instruction index by address."""
    starts: tuple[int, ...] = ()
    """Instruction addresses, ascending, when they are (else empty)."""
    stops: tuple[int, ...] = ()
    """One past each instruction's bytes (its address when the size is unknown)."""


def layout(method: Method, table: Isa) -> Layout:
    """Flow kind and block-ending flag of every instruction."""
    instructions = method.instructions
    last = len(instructions) - 1
    flows = table.flows(instructions)
    call = Flow.CALL
    ends = tuple(
        (flow in _ENDING and not _padding_goes_on(instructions, i))
        or (flow is call and table.noreturn(instructions[i], i == last))
        for i, flow in enumerate(flows)
    )
    starts = tuple(ins.address for ins in instructions)
    index = dict(zip(starts, range(len(starts)), strict=True))
    if not all(map(operator.lt, starts, starts[1:])):
        starts = ()
    stops = tuple(ins.address + (ins.size or 0) for ins in instructions) if starts else ()
    return Layout(flows, ends, index, starts, stops)


def _padding_goes_on(instructions: tuple[Instruction, ...], i: int) -> bool:
    """True for a padding `hlt`/`int3` followed by another of the same: the run ends at its last byte."""
    mnemonic = instructions[i].mnemonic
    return mnemonic in PADDING and i + 1 < len(instructions) and instructions[i + 1].mnemonic == mnemonic


def build_cfg(method: Method, lay: Layout | None = None) -> Cfg:
    """Blocks and edges of `method`; `lay` is its layout when the caller has it already."""
    table = isa.for_name(method.isa)
    lay = lay or layout(method, table)
    tables = jump_tables(method, lay, table)
    instructions = method.instructions
    targets = {i: table.target(instructions[i]) for i, flow in enumerate(lay.flows) if flow in _DIRECT}
    implicit = {i: ins.implicit_target for i, ins in enumerate(instructions) if ins.implicit_target is not None}
    osr_entry = osr.entry(method, lay.flows, lay.ends)
    leaders = _leaders(method, lay, tables, targets, implicit, osr_entry)
    blocks = _blocks(leaders, len(instructions))
    block_of = {b.start: b.id for b in blocks}
    handled = _by_block(blocks, implicit)
    edges: list[Edge] = []
    for block in blocks:
        edges.extend(_exception_edges(method, lay, block, block_of, handled.get(block.id, ())))
        edges.extend(_edges(method, lay, tables, targets, block, block_of, len(blocks)))
    gaps = {block_of[i] for i, label in method.markers if label == GAP and i in block_of}
    if gaps:
        edges = [e for e in edges if not (e.kind is EdgeKind.FALLTHROUGH and e.dst in gaps)]
    roots = _roots(method, block_of, osr_entry)
    if Feature.PARTIAL in method.features:
        edges = [_not_shown(e) for e in edges]
        entered = {e.dst for e in edges if isinstance(e.dst, int)}
        roots = tuple(sorted(set(roots) | {b.id for b in blocks if b.id not in entered}))
    return Cfg(method, tuple(blocks), tuple(edges), roots)


def _leaders(
    method: Method, lay: Layout, tables: dict[int, tuple[int, ...]], targets: dict[int, int | None],
    implicit: dict[int, int], osr_entry: int | None = None,
) -> list[int]:
    """Indexes of the instructions that start a block: the first, marked ones, the OSR entry, those after a block's
    end and every target of a branch (`targets` by branch index), a jump table or an implicit exception."""
    count = len(method.instructions)
    leaders = {0} | {i for i, _ in method.markers if i < count}
    if osr_entry is not None:
        leaders.add(osr_entry)
    leaders.update(i + 1 for i, end in enumerate(lay.ends) if end and i + 1 < count)
    index = lay.index
    for found in (targets.values(), (t for row in tables.values() for t in row), implicit.values()):
        leaders.update(index[target] for target in found if target in index)
    return sorted(leaders)


def _by_block(blocks: list[Block], sites: dict[int, int]) -> dict[int, list[int]]:
    """The instruction indexes in `sites` grouped by the block holding them, ascending."""
    starts = [b.start for b in blocks]
    grouped: dict[int, list[int]] = {}
    for site in sorted(sites):
        grouped.setdefault(blocks[bisect.bisect_right(starts, site) - 1].id, []).append(site)
    return grouped


def _blocks(leaders: list[int], count: int) -> list[Block]:
    bounds = [*leaders, count]
    return [Block(n, start, end) for n, (start, end) in enumerate(itertools.pairwise(bounds)) if start < end]


def _edges(
    method: Method,
    lay: Layout,
    tables: dict[int, tuple[int, ...]],
    targets: dict[int, int | None],
    block: Block,
    block_of: dict[int, int],
    nblocks: int,
) -> list[Edge]:
    edges: list[Edge] = []
    last = block.end - 1
    ins = method.instructions[last]
    flow = lay.flows[last]
    following = block.id + 1 if block.id + 1 < nblocks else None

    def to(target: int | None, kind: EdgeKind) -> Edge:
        return Edge(block.id, _destination(ins, target, lay, block_of), kind, last)

    if flow is Flow.COND:
        edges.append(to(targets[last], EdgeKind.TAKEN))
    elif flow is Flow.JUMP:
        edges.append(to(targets[last], EdgeKind.JUMP))
    elif flow is Flow.INDIRECT:
        table = tables.get(last, ())
        edges.extend(to(t, EdgeKind.INDIRECT) for t in dict.fromkeys(table))
        if not table:
            edges.append(Edge(block.id, ins.runtime_call() or UNRESOLVED, EdgeKind.INDIRECT, last))
    if (not lay.ends[last] or flow is Flow.COND) and following is not None:
        edges.append(Edge(block.id, following, EdgeKind.FALLTHROUGH, last))
    return edges


def _exception_edges(
    method: Method, lay: Layout, block: Block, block_of: dict[int, int], sites: Iterable[int]
) -> list[Edge]:
    """An edge to the handler of each implicit exception in the block (`sites`: their indexes, ascending)."""
    edges = []
    for i in sites:
        ins = method.instructions[i]
        edges.append(Edge(block.id, _destination(ins, ins.implicit_target, lay, block_of), EdgeKind.EXCEPTION, i))
    return edges


def _destination(ins: Instruction, target: int | None, lay: Layout, block_of: dict[int, int]) -> int | str:
    if target is not None and target in lay.index and lay.index[target] in block_of:
        return block_of[lay.index[target]]
    inside = _inside(lay, target)
    if inside:
        return inside
    name = ins.runtime_call()
    if name:
        return name
    for reloc in ins.relocs:
        if reloc and reloc != "no_reloc":
            return reloc
    return f"0x{target:x}" if target is not None else UNRESOLVED


def _inside(lay: Layout, target: int | None) -> str:
    """The exit name of a branch into the middle of an instruction of the method, else an empty string."""
    index = bisect.bisect_right(lay.starts, target) - 1 if target is not None else -1
    if target is None or index < 0 or target >= lay.stops[index]:
        return ""
    return f"{MID_INSTRUCTION} 0x{target:x} (byte {target - lay.starts[index]} of 0x{lay.starts[index]:x})"


def _not_shown(edge: Edge) -> Edge:
    """In a partial listing (perfasm regions), a bare address outside it is code the listing did not show."""
    if isinstance(edge.dst, str) and edge.dst.startswith("0x"):
        return Edge(edge.src, f"not shown: {edge.dst}", edge.kind, edge.site)
    return edge


def _roots(method: Method, block_of: dict[int, int], osr_entry: int | None) -> tuple[int, ...]:
    roots = {0} if method.instructions else set()
    if osr_entry is not None:
        roots.add(block_of[osr_entry])
    for index, label in method.markers:
        if label in sections.ROOTS and index in block_of:
            roots.add(block_of[index])
    return tuple(sorted(roots))


def jump_tables(method: Method, lay: Layout, table: Isa) -> dict[int, tuple[int, ...]]:
    """Targets of each indirect jump, read from the constant pool rows that point into the code."""
    if not method.constants:
        return {}
    found: dict[int, tuple[int, ...]] = {}
    bases = _table_bases(method)
    base: int | None = None
    for i in range(len(method.instructions)):
        base = bases.get(i, base)
        if lay.flows[i] is Flow.INDIRECT:
            limit = min((b for b in bases.values() if base is not None and b > base), default=None)
            bound = table.table_bound(method.instructions[max(0, i - _BOUND_REACH) : i])
            targets = _table_from(method.constants, base, limit, lay.index)[:bound]
            if targets:
                found[i] = targets
    return found


def _table_bases(method: Method) -> dict[int, int]:
    """Instruction index -> the constant-pool address it loads as a table base (`{section_word}`)."""
    pool = {address for address, _ in method.constants}
    bases = {}
    for i, ins in enumerate(method.instructions):
        if "section_word" in ins.relocs or "internal_word" in ins.relocs:
            match = _TABLE_BASE.search(ins.operands)
            if match and int(match.group(1), 16) in pool:
                bases[i] = int(match.group(1), 16)
    return bases


def _table_from(
    constants: tuple[tuple[int, int], ...], base: int | None, limit: int | None, index: dict[int, int]
) -> tuple[int, ...]:
    rows = [(a, v) for a, v in constants if (base is None or a >= base) and (limit is None or a < limit)]
    targets: list[int] = []
    expected = rows[0][0] if rows else 0
    for address, value in rows:
        if address != expected or value not in index:
            break
        targets.append(value)
        expected = address + 8
    return tuple(targets)
