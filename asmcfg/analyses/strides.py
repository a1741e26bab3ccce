"""How a loop walks its arrays (x86): the Java array elements it reads and writes, its induction variable's
step per trip, and how many elements one copy of the body handles.

A Java array element is addressed as base register plus index register times the element size plus the array
header (`0x10(%rsi,%rcx,4)`, `[rsi + rcx*4 + 0x10]`): a displacement of at least 12 bytes and a base other than
`r12` (the compressed-oop heap base, whose `(%r12,%rX,8)` addresses are object fields). Intrinsic and stub loops
(`String.equals`, the zeroing of a new array) walk raw pointers with small displacements and have none.

The induction variable is the register whose value the body moves by a constant: followed through the body in
address order from its header (`add $0x10,%r13d`; `inc`; `lea 0x40(%r10),%eax` then `mov %eax,%r10d`; copies
by `mov` or `movslq`, which then index elements too), its net move is the stride per trip.
A copy handles one element when its accesses are scalar, and register width over element size (the index's
scale) when they are packed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from asmcfg.analyses.arrays import literal
from asmcfg.analyses.context import Context
from asmcfg.analyses.hotness import is_cold
from asmcfg.analyses.operands import Access, Parsed, parse
from asmcfg.analyses.vectors import own_blocks
from asmcfg.model import Analysis, IsaName, Loop, Syntax

_HEADER = 12
"""Smallest array base offset: the array header (12 with compact object headers, 16 otherwise)."""
_GPRS = frozenset(["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp"] + [f"r{n}" for n in range(8, 16)])
"""The families of x86-64's general registers (`operands.family`): the only ones an induction variable lives in. A
crafted log's other names (`%r123456`) are no candidates, so the walks stay linear in the loop's size."""
_HEAP_BASE = "r12"
_BASE_INDEX = re.compile(r"\(%\w+,\s*%")
"""What an AT&T memory operand with a base and an index register holds (`0x10(%rsi,%rcx,4)`): an instruction
without it addresses no array element."""
_READ_ONLY = frozenset({"cmp", "test", "push", "prefetchnta", "prefetcht0", "ptest", "vptest", "ucomiss", "ucomisd",
                        "vucomiss", "vucomisd", "comiss", "comisd", "bt"})
_VECTOR = re.compile(r"\b([xyz])mm\d+\b")
_WIDTH = {"x": 16, "y": 32, "z": 64}
_PARTIAL = re.compile(r"^v?(?:pmov[sz]x|cvt|pbroadcast|broadcast|pinsr|pextr|insert|extract|gather|scatter)")
_SCALAR_BYTES = {"movd": 4, "vmovd": 4, "movq": 8, "vmovq": 8, "ss": 4, "sd": 8}
"""Bytes moved by the scalar moves and operations on vector registers, by mnemonic or suffix."""


@dataclass(frozen=True, slots=True)
class Walk:
    """How one loop walks Java array elements."""

    elements: frozenset[tuple[int, bool]]
    """(element size, written) of every Java array element the loop's own blocks address: not the base register,
    which C2 may allocate differently in each copy."""
    stride: int | None
    """How far the induction variable moves per trip (elements), or None when no single one is found (or the loop
    addresses no element: then it is no copy, and its stride is not looked for)."""
    lanes: int | None
    """Elements one copy of the body handles: 1 scalar, width / element size packed; None when unclear (or the loop
    addresses no element)."""


def walk(ctx: Context, result: Analysis, loop: Loop) -> Walk:
    """How `loop`'s own warm blocks walk Java array elements (empty on AArch64: not read there)."""
    method = ctx.cfg.method
    if method.isa is IsaName.AARCH64:
        return Walk(frozenset(), None, None)
    att = method.syntax is Syntax.ATT
    blocks = sorted((ctx.block(b) for b in own_blocks(result, loop) if not is_cold(result, b)), key=lambda b: b.start)
    first = next((i for i, b in enumerate(blocks) if b.id == loop.header), 0)
    blocks = blocks[first:] + blocks[:first]  # from the header on: a latch laid out before it runs last
    instructions = [ins for b in blocks for ins in method.instructions[b.start : b.end]]
    addressing = {at: parse(ins, att) for at, ins in enumerate(instructions)
                  if (_BASE_INDEX.search(ins.operands) if att else "[" in ins.operands)}
    arrays = {at: hits for at, (_, _, operands) in addressing.items() if (hits := _arrays(operands))}
    elements = frozenset((a.scale, written) for hits in arrays.values() for a, written in hits)
    if not elements:
        return Walk(elements, None, None)  # a loop that walks no array is no copy: its stride is never asked for
    body = [addressing.get(at) or parse(ins, att) for at, ins in enumerate(instructions)]
    steps = _steps(body, arrays)
    indexes = {a.index for hits in arrays.values() for a, _ in hits}
    into = _copies(steps)
    best: tuple[int, int, int | None] | None = None
    ambiguous = False
    for candidate in candidates(body):
        if indexes.isdisjoint(_copied(into, candidate)):
            continue  # no access is indexed by it or a copy of it: no lanes
        net, lanes = _follow(steps, candidate)
        if net is None or net == 0 or not lanes:
            continue
        found = (len(lanes), abs(net), _one(lanes))
        if best is None or found[0] > best[0]:
            best, ambiguous = found, False
        elif found[0] == best[0] and found[1:] != best[1:]:
            ambiguous = True
    if best is None or ambiguous:
        return Walk(elements, None, None)
    return Walk(elements, best[1], best[2])


def candidates(body: list[Parsed]) -> list[str]:
    """The general registers the body names, in order: the induction-variable candidates, each walked once (at most
    16 walks of the body, whatever names a crafted log gives)."""
    return sorted({o for _, _, operands in body for o in operands if isinstance(o, str) and o in _GPRS})


def _one(lanes: list[int | None]) -> int | None:
    values = set(lanes)
    return values.pop() if len(values) == 1 else None


Step = tuple[str, str, tuple[Access, ...], tuple[str, int, Any] | None]
"""What one instruction of the body does, for `_follow`: (its operation and operand text, the element accesses it
makes, and how it changes a register: (register, `_ADD` a constant, `_OFFSET` (register, displacement) copies a
register plus a constant, `_COPY` a register copies one, or `_FORGET` the register no longer follows any), or
None when it writes no general register)."""
_ADD, _OFFSET, _COPY, _FORGET = range(4)


def _steps(body: list[Parsed], arrays: dict[int, list[tuple[Access, bool]]]) -> list[Step]:
    """The `Step` of each instruction of the body that accesses an element or writes a general register, in order
    (read once for all the candidates `_follow` walks); `arrays` holds each instruction's element accesses
    (`_arrays`), by position, where it has any."""
    steps: list[Step] = []
    for at, (op, text, operands) in enumerate(body):
        accesses = tuple(access for access, _ in arrays.get(at, ()))
        dest = operands[0] if operands else None
        change: tuple[str, int, Any] | None = None
        if isinstance(dest, str) and op not in _READ_ONLY:
            source = operands[1] if len(operands) > 1 else None
            step = literal(source) if isinstance(source, str) and source.startswith("#") else None
            if op in ("add", "sub") and step is not None:
                change = dest, _ADD, step * (1 if op == "add" else -1)
            elif op in ("inc", "dec") and len(operands) == 1:
                change = dest, _ADD, 1 if op == "inc" else -1
            elif op == "lea" and isinstance(source, Access) and not source.index:
                change = dest, _OFFSET, (source.base, source.displacement)
            elif op in ("mov", "movsxd") and isinstance(source, str):
                change = dest, _COPY, source
            else:
                change = dest, _FORGET, None
        if accesses or change is not None:
            steps.append((op, text, accesses, change))
    return steps


def _copies(steps: list[Step]) -> dict[str, set[str]]:
    """Per register, the registers the body copies it into (itself plus a constant, or as it is)."""
    into: dict[str, set[str]] = {}
    for _, _, _, change in steps:
        if change is not None and change[1] in (_COPY, _OFFSET):
            source = change[2] if change[1] == _COPY else change[2][0]
            into.setdefault(source, set()).add(change[0])
    return into


def _copied(into: dict[str, set[str]], register: str) -> set[str]:
    """`register` and every register a copy of it (or of a copy) may be made into in the body (`into`, from
    `_copies`): those `_follow` may track from it, whatever the order."""
    found = {register}
    todo = [register]
    while todo:
        for dest in into.get(todo.pop(), ()):
            if dest not in found:
                found.add(dest)
                todo.append(dest)
    return found


def _follow(steps: list[Step], iv: str) -> tuple[int | None, list[int | None]]:
    """The net move of `iv` over the body's `steps`, and the lanes of each element access indexed by it (or a
    copy)."""
    tracked = {iv: 0}
    lanes: list[int | None] = []
    for op, text, accesses, change in steps:
        for access in accesses:
            if access.index in tracked:
                lanes.append(_lanes(op, text, access))
        if change is None:
            continue
        dest, kind, value = change
        if kind == _ADD and dest in tracked:
            tracked[dest] += value
        elif kind == _OFFSET and value[0] in tracked:
            tracked[dest] = tracked[value[0]] + value[1]
        elif kind == _COPY and value in tracked:
            tracked[dest] = tracked[value]
        else:
            tracked.pop(dest, None)
    return tracked.get(iv), lanes


def _lanes(op: str, text: str, access: Access) -> int | None:
    """Elements one access moves: 1 scalar, bytes moved over element size packed, None when unclear."""
    widths = _VECTOR.findall(text)
    if not widths:
        return 1
    if _PARTIAL.match(op):
        return None
    scalar = _SCALAR_BYTES.get(op) or (_SCALAR_BYTES.get(op[-2:]) if not op.lstrip("v").startswith("p") else None)
    size = scalar or access.size or max(_WIDTH[w] for w in widths)
    return size // access.scale if size % access.scale == 0 else None


def _arrays(operands: tuple[str | Access, ...]) -> list[tuple[Access, bool]]:
    """The operands that address a Java array element, each with whether it is written (the destination)."""
    return [(o, i == 0 and len(operands) > 1) for i, o in enumerate(operands)
            if isinstance(o, Access) and o.index and o.base and o.base != _HEAP_BASE and o.displacement >= _HEADER]
