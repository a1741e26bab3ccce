"""`not-vectorized` findings: a hot innermost loop whose work on primitive array elements C2 left scalar, with the
cause where the code and the log show it, else "cause unknown".

A loop qualifies when a counter steps through its array elements (`analyses.strides` finds its stride, or an
element's index is a register the loop's latch steps by a constant and compares, or a `long` counter, below);
when, in its own warm blocks, instructions load or store array elements indexed by the induction variable
(`0x10(%rsi,%rax,4)`, `analyses.arrays`), the debug info naming a primitive element's bytecode (`iaload`,
`dastore`, …) at one of them at least and no other kind (`aaload`, `getfield`) at any; when no packed SIMD
instruction does the work (`analyses.vectors`); and when no vectorized loop of the compilation works on the same
bytecodes (a vectorized main loop's scalar pre- and post-loops, or a slow copy beside a vectorized one, are no
finding). The causes it reads:

- a Java call left in the body: C2 vectorizes no loop that calls (the call's `inline_fail` reason from the log);
- a `long` counter: a 64-bit add of a constant whose debug info names `ladd` or `l2i` in the body, and no
  pre-, main- and post-loop copies of the loop: C2 did not make it an `int`-counted loop it could vectorize.
"""

from __future__ import annotations

import re
import shlex

from asmcfg import describe
from asmcfg.analyses.arrays import element_accesses, split, x86_family
from asmcfg.analyses.context import Context, make_context
from asmcfg.analyses.hotness import is_cold
from asmcfg.analyses.strides import walk
from asmcfg.analyses.vectors import own_blocks
from asmcfg.facts.findings_frame import at_site, is_hot, loop_where
from asmcfg.isa import for_name
from asmcfg.model import Analysis, Call, Instruction, IsaName, Loop, LoopRole
from asmcfg.model.findings import Finding, FindingKind

SCALAR_COPIES = frozenset({LoopRole.PRE, LoopRole.POST, LoopRole.DRAIN, LoopRole.STRIP_MINED_OUTER})
"""C2's loop copies that are no place to vectorize: the few trips around a main loop, and the outer loop of a
strip-mined one (its inner loop is the one that works)."""
ELEMENT_BYTECODES = frozenset(f"{t}{op}" for t in "ilfdbcs" for op in ("aload", "astore"))
"""Bytecodes that load or store a primitive array element (`baload` is byte and boolean)."""
LONG_BYTECODES = frozenset({"ladd", "l2i", "lsub"})
"""Bytecodes a `long` counter's step and its use as an `int` index carry in the debug info."""
_X86_LONG_STEP = re.compile(
    r"^(?:(?:addq|subq)\s+\$(?:0x)?[0-9a-f]+,\s*%r\w+|(?:incq|decq)\s+%r\w+|leaq\s+-?(?:0x)?[0-9a-f]+\(%r\w+\),\s*%r\w+"
    r"|(?:add|sub)\s+r(?:\d+|[a-ds][xip]|[sb]p)\b,\s*(?:0x)?[0-9a-f]+|(?:inc|dec)\s+r(?:\d+|[a-ds][xip]|[sb]p)\b)$")
"""A 64-bit step of a register by a constant, AT&T (`addq $2, %r11`) or Intel (`add r11, 0x2`)."""
_ARITHMETIC = re.compile(r"^[ilfdbcs](?:add|sub|mul|div|rem|and|or|xor|shl|shr|ushr|neg|2[ilfdbcs])$")
"""A primitive value's arithmetic or conversion, which x86 folds an element's load into (`addl 0x10(%rdx,%rax,4)`)."""
_X86_INDEXED = re.compile(r"\(%(?!r1[25]\b)\w+,\s*%\w+|\[(?!r1[25]\b)\w+\s*\+\s*\w+(?:\*\d)?\s*\+")
"""An x86 address with a base and an index register, AT&T (`0x10(%rsi,%rax,4)`) or Intel (`[rsi+rax*4+0x10]`)."""
_X86_REGISTER32 = re.compile(r"^%?(?:r\d+d|e[a-z]{2})$")
_X86_ANY_REGISTER = re.compile(r"^%?(?:r\d+[dwb]?|[re]?[a-ds][xip]|[re]?[sb]p)$")
_X86_CONSTANT = re.compile(r"^\$?-?(?:0x[0-9a-fA-F]+|\d+)$")
_X86_INDEX = re.compile(r"\(%\w+,\s*%(\w+)|\[\w+\s*\+\s*(\w+)")
"""The index register of an x86 address, AT&T or Intel."""
ADVICE_UNKNOWN = ("look for what C2's SuperWord does not vectorize: a long counter, a call, a branch in the body, a "
                  "stride that is not a constant, two arrays that may be the same, a floating-point sum (kept in "
                  "order), a type conversion; `asmcfg whatif` with -XX:-UseSuperWord shows what SuperWord does here")


def vector_findings(result: Analysis, whatif: str) -> list[Finding]:
    """One finding per hot innermost loop whose primitive array work is scalar; `whatif` starts the commands."""
    loops = [loop for loop in result.loops if not _has_inner(result, loop)]
    vectorized = [loop for loop in result.loops if (f := result.loop_facts.get(loop.header)) and f.vectorized]
    done = {key for loop in vectorized for key in _element_work(result, loop)[1]}
    found = []
    ctx: Context | None = None
    for loop in loops:
        facts = result.loop_facts.get(loop.header)
        role = facts.role if facts is not None else LoopRole.NONE
        if role in SCALAR_COPIES or (facts is not None and facts.vectorized):
            continue
        sites, keys = _element_work(result, loop)
        if not sites or keys & done:
            continue
        where = loop_where(result, loop)
        if not is_hot(where):
            continue
        ctx = ctx or make_context(result.cfg, result.jdk)
        stride = walk(ctx, result, loop).stride
        if stride is None and not _counted(result, loop, sites) and not _long_steps(result, loop, role):
            continue  # no counter steps through the elements: a walk of a list or a table, no vectorizing loop
        found.append(_finding(result, loop, role, sites, stride, where.share, where.estimate, where.figure, whatif))
    return found


def _has_inner(result: Analysis, loop: Loop) -> bool:
    return len(own_blocks(result, loop)) < len(loop.blocks)


def _warm(result: Analysis, loop: Loop) -> list[tuple[int, int]]:
    """(block, instruction index) of the loop's own warm blocks, in address order."""
    blocks = {b.id: b for b in result.cfg.blocks}
    out: list[tuple[int, int]] = []
    for block in sorted(own_blocks(result, loop), key=lambda b: blocks[b].start if b in blocks else 0):
        if block in blocks and not is_cold(result, block):
            out.extend((block, at) for at in range(blocks[block].start, blocks[block].end))
    return out


def _element_work(result: Analysis, loop: Loop) -> tuple[list[int], set[tuple[str, int]]]:
    """The instruction indexes of the loop's primitive element loads and stores that its induction variable
    indexes, and their (method, bci); none unless the debug info names a primitive element's bytecode at one."""
    instructions = result.cfg.method.instructions
    method = result.cfg.method
    body = _warm(result, loop)
    found = element_accesses([instructions[at] for _, at in body], method.isa, method.syntax,
                             for_name(method.isa).base_mnemonic)
    sites = [body[position][1] for position in sorted(found) if _element(method.isa, instructions[body[position][1]])]
    if not any(_bytecode(instructions[at]) in ELEMENT_BYTECODES for at in sites):
        return [], set()
    keys = {(instructions[at].frames[0].method, instructions[at].frames[0].bci) for at in sites
            if _bytecode(instructions[at]) in ELEMENT_BYTECODES}
    return sites, keys


def _element(isa: IsaName, ins: Instruction) -> bool:
    """True when an access `element_accesses` found may be a primitive element's: its debug info names no other
    kind of bytecode (an object array's `aaload`, a field's `getfield`), and, on x86, its address has a base and an
    index register, the base neither the thread (`r15`) nor the heap base (`r12`)."""
    name = _bytecode(ins)
    if name and name not in ELEMENT_BYTECODES and not _ARITHMETIC.match(name):
        return False
    return isa is IsaName.AARCH64 or bool(_X86_INDEXED.search(ins.operands))


def _counted(result: Analysis, loop: Loop, sites: list[int]) -> bool:
    """True when an element access is indexed by a counter of the loop (x86): a 32-bit register a block that jumps
    back in the loop steps by a constant and compares (`incl %r8d; cmpl 0xc(%rsp), %r8d; jl <header>`), or a copy
    of one (`movslq %r8d, %r10`). What
    `analyses.strides` cannot follow through a call (the counter spilled around it) this still reads."""
    if result.cfg.method.isa is IsaName.AARCH64:
        return False
    instructions = result.cfg.method.instructions
    warm = _warm(result, loop)
    body = [instructions[at] for _, at in warm]
    members = set(loop.blocks)
    latches = {e.src for e in result.cfg.edges  # a backward jump inside the loop
               if e.src in members and isinstance(e.dst, int) and e.dst in members and e.dst <= e.src}
    stepped: set[str] = set()
    compared: set[str] = set()
    for ins in [instructions[at] for block, at in warm if block in latches]:
        parts = [p.strip() for p in split(ins.operands)]
        registers = [x86_family(p) for p in parts if _X86_REGISTER32.match(p)]
        if ins.mnemonic.startswith(("add", "sub", "inc", "dec")) and registers and (
                len(parts) == 1 or any(_X86_CONSTANT.match(p) for p in parts)):
            stepped.add(registers[-1] if ins.operands.startswith("$") or len(parts) == 1 else registers[0])
        elif ins.mnemonic.startswith("cmp"):
            compared.update(registers)
    counters = stepped & compared
    for ins in body:  # copies: movslq %r8d, %r10; mov r10, r8
        parts = [p.strip() for p in split(ins.operands)]
        if ins.mnemonic.startswith("mov") and len(parts) == 2 and all(_X86_ANY_REGISTER.match(p) for p in parts):
            source, target = (parts[0], parts[1]) if ins.operands.lstrip().startswith("%") else (parts[1], parts[0])
            if x86_family(source) in counters:
                counters.add(x86_family(target))
    for at in sites:
        index = _X86_INDEX.search(instructions[at].operands)
        if index is not None and x86_family(index.group(1) or index.group(2)) in counters:
            return True
    return False


def _bytecode(ins: Instruction) -> str:
    return ins.bytecode.split(" ")[0] if ins.frames and ins.bytecode else ""


def _text(result: Analysis, at: int) -> str:
    ins = result.cfg.method.instructions[at]
    name = _bytecode(ins)
    where = at_site(result, at).text if ins.frames else ""
    return (f"0x{ins.address:x} {ins.mnemonic} {ins.operands}".rstrip()
            + (f" ({where})" if name else ""))


def _calls(result: Analysis, loop: Loop) -> list[Call]:
    warm = {block for block, _ in _warm(result, loop)}
    return [call for call in result.calls if call.java and call.block in warm]


def _long_steps(result: Analysis, loop: Loop, role: LoopRole) -> list[int]:
    """The 64-bit constant steps in the body whose debug info names a long bytecode (none for a loop C2 split
    into counted copies)."""
    if role is not LoopRole.NONE:
        return []
    instructions = result.cfg.method.instructions
    return [at for _, at in _warm(result, loop) if _bytecode(instructions[at]) in LONG_BYTECODES
            and _X86_LONG_STEP.match(f"{instructions[at].mnemonic} {instructions[at].operands}".strip())]


def _finding(result: Analysis, loop: Loop, role: LoopRole, sites: list[int], stride: int | None,
             share: float | None, estimate: int | None, figure: str, whatif: str) -> Finding:
    header = result.cfg.method.header
    instructions = result.cfg.method.instructions
    first = at_site(result, next(at for at in sites if _bytecode(instructions[at]) in ELEMENT_BYTECODES))
    shown = list(dict.fromkeys(_text(result, at) for at in sites))
    accesses = describe.count(len(sites), "scalar element load or store", "scalar element loads and stores")
    evidence = [f"{accesses} in the loop's body: " + "; ".join(shown[:4])
                + (f"; {len(shown) - 4} more" if len(shown) > 4 else ""),
                "no packed SIMD instruction works on the loop's elements, and no vectorized loop of this "
                "compilation works on the same bytecodes"]
    if stride is not None:
        evidence.append(f"its induction variable moves {describe.count(stride, 'element')} per trip of the body")
    causes: list[str] = []
    suggestion = ""
    command: str | None = None
    for call in _calls(result, loop):
        ins = result.cfg.method.instructions[call.site]
        decision = call.decisions[-1] if call.decisions else None
        why = f" (not inlined: '{decision.reason}')" if decision is not None and decision.reason else ""
        evidence.append(f"a {call.kind} call of {call.callee} stays in the body: B{call.block} 0x{ins.address:x} "
                        f"{ins.mnemonic} {ins.operands} ({at_site(result, call.site).text}){why}".replace("  ", " "))
        causes.append(f"a call of {call.callee} stays in its body{why}")
        if command is None and decision is not None and decision.callee:
            command = f"{whatif} --inline {shlex.quote(decision.callee)}"
        suggestion = suggestion or ("let C2 inline the call (make the callee small, or keep it monomorphic), or "
                                    "move it out of the loop: C2 vectorizes no loop that calls")
    steps = _long_steps(result, loop, role)
    if steps:
        evidence.append("the counter steps as a long: " + "; ".join(_text(result, at) for at in steps[:3]))
        evidence.append("no pre-, main- or post-loop copy of this loop: C2 did not make it an int-counted loop")
        causes.append("its counter is a long, and C2 did not turn it into the int-counted loop it vectorizes")
        suggestion = suggestion or ("count the loop with an int (for (int i = 0; i < n; i++)), and widen to long "
                                    "only where a long is needed")
    evidence.append(figure)
    work = f"the loop at B{loop.header} works on array elements one at a time"
    cause = (f"{work}: {'; '.join(causes)}" if causes else
             f"{work}; what kept C2 from vectorizing it is not in the code or the log (cause unknown)")
    return Finding(FindingKind.NOT_VECTORIZED, header.compile_id, header.name, loop.header, first.bci, first.line,
                   first.scope, share, estimate, cause, tuple(evidence), suggestion or ADVICE_UNKNOWN, command)
