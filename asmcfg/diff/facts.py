"""The few per-compilation facts the diff needs that the analysis record does not carry yet: real calls with their
kind, callee and scope, the call sites whose callee was inlined, and a loop's SIMD width.

This is the one place that computes them; when the analysis record gains `Analysis.calls` and per-loop vector
facts, these functions become reads of those fields and nothing else in the package changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from asmcfg.isa import for_name
from asmcfg.model import Analysis, CallKind, Flow, Frame, Instruction, IsaName, Loop

Scope = tuple[tuple[str, int], ...]
"""An inlining chain as (method, bci) pairs, innermost first."""

_TYPE_GUARDS = frozenset({"class_check", "bimorphic", "speculate_class_check", "type_checked_inlining"})
"""Trap reasons that guard a call inlined for the receiver types the profile saw."""
_STUB_WORDS = ("Stub::", "StubRoutines", "stub", "_blob", "Blob")
_X86_WIDTH = {"xmm": 128, "ymm": 256, "zmm": 512}
_X86_REGISTER = re.compile(r"\b%?([xyz]mm)\d+\b")
_X86_FULL = re.compile(r"[xyz]mm\d+")
_A64_ARRANGEMENT = re.compile(r"\bv\d+\.(\d+)([bhsd])\b")
_A64_ELEMENT_BITS = {"b": 8, "h": 16, "s": 32, "d": 64}
_X86_SCALAR = re.compile(r"(ss|sd|sh)$")
_X86_PACKED_FLOAT = {"ps": "float", "pd": "double", "ph": "half"}
_X86_INT_SUFFIX = {"b": "byte", "w": "short", "d": "int", "q": "long"}


@dataclass(frozen=True, slots=True)
class Call:
    """A real call the compiled code makes (trap calls excluded)."""

    site: int
    """Index of the call instruction in the method."""
    block: int
    """Block holding it."""
    kind: CallKind
    """`static`, `virtual`, `interface`, `runtime` or `stub`."""
    callee: str
    """The called method's name from the invoke bytecode (`area`), else the runtime target (`SafepointBlob`)."""
    scope: Scope
    """Where the call is: the invoke's (method, bci) chain, innermost first; empty without debug info."""
    bytecode: str
    """The invoke bytecode as printed (`invokeinterface area`), or empty."""


@dataclass(frozen=True, slots=True)
class Inlined:
    """Evidence in the debug info that an invoke was compiled inline."""

    callee: str
    """Short name of the inlined method (`area`)."""
    scope: Scope
    """The invoke's (method, bci) chain in the caller, innermost first."""


@dataclass(frozen=True, slots=True)
class Vector:
    """The widest packed SIMD work of a loop."""

    bits: int
    """Register width of its widest packed operation (128, 256, 512)."""
    element: str
    """Element type of those operations (`float`, `int`, …), `?` when the mnemonic does not say."""
    ops: int
    """How many packed operations the loop's blocks hold."""


def scope_of(frames: tuple[Frame, ...]) -> Scope:
    """A frame chain as (method, bci) pairs."""
    return tuple((f.method, f.bci) for f in frames)


def short_name(method: str) -> str:
    """`area` from `Shapes$Circle::area`."""
    return method.rsplit("::", 1)[-1]


def calls(result: Analysis) -> tuple[Call, ...]:
    """Every real call, in address order: Java calls, runtime calls and stub calls, not trap calls."""
    table = for_name(result.cfg.method.isa)
    trap_sites = {t.site for t in result.traps.values()}
    instructions = result.cfg.method.instructions
    found = []
    for block in result.cfg.blocks:
        for index in range(block.start, block.end):
            ins = instructions[index]
            if index in trap_sites or table.flow(ins) is not Flow.CALL:
                continue
            kind = call_kind(ins)
            if kind is not None:
                found.append(Call(index, block.id, kind, _callee(ins, kind), scope_of(ins.frames), ins.bytecode))
    return tuple(found)


def call_kind(ins: Instruction) -> CallKind | None:
    """The kind of call its relocation names; None for calls that are not calls of anything (`call next`).
    An optimized virtual call counts as `virtual` here, so a devirtualized call is matched with its old self."""
    for reloc in ins.relocs:
        if reloc == "virtual_call":
            return CallKind.INTERFACE if ins.bytecode.startswith("invokeinterface") else CallKind.VIRTUAL
        if reloc in ("optimized virtual_call", "opt_virtual_call"):
            return CallKind.VIRTUAL
        if reloc == "static_call":
            return CallKind.STATIC
        if reloc.startswith("runtime_call"):
            target = reloc[len("runtime_call") :].strip()
            return CallKind.STUB if any(word in target for word in _STUB_WORDS) else CallKind.RUNTIME
    return None


def _callee(ins: Instruction, kind: CallKind) -> str:
    if kind.java:
        parts = ins.bytecode.split()
        return parts[1] if len(parts) > 1 else "?"
    return ins.runtime_call() or "?"


def inlined(result: Analysis) -> tuple[Inlined, ...]:
    """Invokes the debug info shows compiled inline: a frame chain that runs through them (an inlined
    method's code with its caller below), or a type-guard trap at the invoke (a profile-guided inline)."""
    found: set[Inlined] = set()
    for ins in result.cfg.method.instructions:
        for depth in range(len(ins.frames) - 1):
            found.add(Inlined(short_name(ins.frames[depth].method), scope_of(ins.frames[depth + 1 :])))
    instructions = result.cfg.method.instructions
    for trap in result.traps.values():
        frames = instructions[trap.site].frames
        if trap.reason in _TYPE_GUARDS and trap.bytecode.startswith("invoke") and frames:
            parts = trap.bytecode.split()
            found.add(Inlined(parts[1] if len(parts) > 1 else "?", scope_of(frames)))
    return tuple(sorted(found, key=lambda i: (i.scope, i.callee)))


def loop_vector(result: Analysis, loop: Loop) -> Vector | None:
    """The widest packed SIMD operation in the loop's blocks, or None when it has none (not vectorized)."""
    method = result.cfg.method
    widths: list[tuple[int, str]] = []
    for block_id in loop.blocks:
        block = result.cfg.blocks[block_id]
        for ins in method.instructions[block.start : block.end]:
            packed = _packed(ins, method.isa)
            if packed is not None:
                widths.append(packed)
    if not widths:
        return None
    bits = max(w for w, _ in widths)
    elements = sorted({e for w, e in widths if w == bits and e != "?"})
    return Vector(bits, "/".join(elements) or "?", len(widths))


def _packed(ins: Instruction, isa: IsaName) -> tuple[int, str] | None:
    """(register bits, element type) of a packed SIMD instruction, None for scalar and non-SIMD ones."""
    if isa is IsaName.AARCH64:
        match = _A64_ARRANGEMENT.search(ins.operands)
        if match is None or int(match.group(1)) < 2:
            return None
        lanes, size = int(match.group(1)), _A64_ELEMENT_BITS[match.group(2)]
        kind = "float" if ins.mnemonic.startswith("f") else "int"
        return lanes * size, f"{kind}{size}"
    registers = _X86_REGISTER.findall(ins.operands.lower())
    mnemonic = ins.mnemonic.lower()
    if not registers or _X86_SCALAR.search(mnemonic) or mnemonic.startswith(("vmovd", "vmovq", "movd", "movq")):
        return None
    memory = "(" in ins.operands or "[" in ins.operands
    if not memory and ("mov" in mnemonic or (mnemonic.endswith(("xorps", "xorpd", "xor")) and len(set(registers)) == 1
                                             and len(set(_X86_FULL.findall(ins.operands))) == 1)):
        return None  # a register copy or a zeroing idiom: scalar code uses them too
    if mnemonic.endswith(("ps", "pd", "ph")) and not mnemonic.startswith(("vmovmsk", "movmsk")):
        element = _X86_PACKED_FLOAT[mnemonic[-2:]]
    elif mnemonic.startswith(("vp", "p")):
        element = _X86_INT_SUFFIX.get(mnemonic.rstrip("xyz")[-1], "?")
    elif mnemonic.startswith(("vmovdq", "movdq", "vbroadcast", "vinsert", "vextract")):
        element = "?"
    else:
        return None
    return max(_X86_WIDTH[r] for r in registers), element
