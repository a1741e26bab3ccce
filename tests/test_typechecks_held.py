"""The type-check pass's analysis of the classes held in registers against the plain one it replaces.

`typechecks` passes over the instructions that can neither change nor compare a class held in a register, takes
each block as one step, and works out again only the blocks something flowing into them changed. The reference
here is the plain analysis: every round steps through every instruction of every block. Both must give the same
states on entry to each block, the same count of rounds (a bound of a few rounds fails the same way in both) and
the same type checks, on every compilation with a class constant of x86 (AT&T and Intel) and AArch64 dumps and
a javac LogCompilation log.
"""

from __future__ import annotations

from functools import cache

import pytest

from asmcfg.analyses import PASSES, registers, typechecks
from asmcfg.analyses.context import Context, make_context
from asmcfg.cfg.build import build_cfg
from asmcfg.model import Analysis, Flow, Instruction, Syntax
from asmcfg.run.pipeline import open_input
from tests.corpus import DATA

DUMPS = ["hsdis/jdk17-Shapes-print-hsdis-att.txt.gz", "hsdis/jdk17-Shapes-print-hsdis-intel.txt.gz",
         "hsdis/jdk17-aarch64-Shapes-print-hsdis.txt.gz", "hsdis/jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz",
         "hsdis/jdk17-aarch64-ExcSyncAlloc-print-hsdis.txt.gz", "hsdis/jdk25-Switches-print-hsdis-att.txt.gz",
         "hsdis/jdk17-aarch64-Switches-print-hsdis.txt.gz", "logc/javac-jdk17-excerpt.xml.gz"]
"""Dumps with class constants: x86 AT&T and Intel, AArch64, and javac's LogCompilation excerpt (its largest
compilations need several rounds)."""


@cache
def contexts(dump: str) -> list[tuple[Context, Analysis]]:
    """(context, analysis up to the type checks) of each compilation of `dump` that names a class."""
    stream = open_input(str(DATA / dump))
    found = []
    before = PASSES[: [name for name, _ in PASSES].index("typechecks")]
    for method in map(stream.complete, stream.methods):
        if any(typechecks._class(r) for ins in method.instructions for r in ins.relocs):
            ctx = make_context(build_cfg(method), None)
            result = Analysis(cfg=ctx.cfg, jdk=17, jdk_why="default")
            for _, run in before:
                result = run(ctx, result)
            found.append((ctx, result))
    return found


def _step(ins: Instruction, flow: Flow, loaded: dict[str, str], syntax: Syntax) -> tuple[str, ...]:
    """The plain step: classes `ins` compares against, `loaded` updated past it."""
    if flow is Flow.CALL:
        loaded.clear()
        return ()
    if not ins.relocs and not loaded:
        return ()
    names = [typechecks._class(r) for r in ins.relocs if typechecks._class(r)]
    if ins.mnemonic.lower().startswith("cmp") and not ins.mnemonic.lower().startswith("cmpxchg"):
        if names:
            return tuple(names)
        return tuple(dict.fromkeys(loaded[r] for r in registers.direct(ins.operands) if r in loaded))
    writes = registers.written(ins.mnemonic, ins.operands, syntax)
    for register in writes:
        loaded.pop(register, None)
    if names and writes:
        loaded[writes[-1] if syntax is Syntax.ATT else writes[0]] = names[0]
    return ()


def _held(ctx: Context, rounds: int) -> dict[int, dict[str, str]]:
    """The plain analysis: rounds over every instruction of every block until one changes nothing."""
    instructions, flows, syntax = ctx.cfg.method.instructions, ctx.layout.flows, ctx.cfg.method.syntax
    out: dict[int, dict[str, str]] = {}
    held: dict[int, dict[str, str]] = {}
    for _ in range(rounds):
        changed = False
        for block in ctx.cfg.blocks:
            state = typechecks._meet([out[e.src] for e in ctx.predecessors.get(block.id, ()) if e.src in out])
            held[block.id], state = dict(state), dict(state)
            for i in range(block.start, block.end):
                _step(instructions[i], flows[i], state, syntax)
            if out.get(block.id) != state:
                out[block.id], changed = state, True
        if not changed:
            return held
    return {}


def _checks(ctx: Context, held: dict[int, dict[str, str]]) -> list[tuple[int, tuple[str, ...]]]:
    """(site, classes) of each compare against a class, stepping through every instruction."""
    instructions, flows, syntax = ctx.cfg.method.instructions, ctx.layout.flows, ctx.cfg.method.syntax
    found = []
    for block in ctx.cfg.blocks:
        loaded = dict(held.get(block.id, {}))
        for i in range(block.start, block.end):
            classes = _step(instructions[i], flows[i], loaded, syntax)
            if classes:
                found.append((i, classes))
    return found


@pytest.mark.parametrize("dump", DUMPS)
def test_the_held_classes_are_the_plain_analysis(dump: str, monkeypatch: pytest.MonkeyPatch) -> None:
    compilations = contexts(dump)
    assert compilations
    for rounds in (1, 2, 3, 64):
        monkeypatch.setattr(typechecks, "_ROUNDS", rounds)
        for ctx, _ in compilations:
            steps = typechecks._Steps(ctx)
            assert typechecks._held(ctx, steps) == _held(ctx, rounds), (dump, rounds, ctx.cfg.method.header.name)


@pytest.mark.parametrize("dump", DUMPS)
def test_the_type_checks_are_the_plain_analysis(dump: str) -> None:
    for ctx, result in contexts(dump):
        found = typechecks.run(ctx, result).type_checks
        flows = ctx.layout.flows
        plain = [(i, classes) for i, classes in _checks(ctx, _held(ctx, typechecks._ROUNDS))
                 if flows[ctx.cfg.blocks[_block(ctx, i)].end - 1] is Flow.COND
                 and ctx.cfg.method.instructions[i].implicit_target is None]
        assert [(t.site, t.classes) for t in found if t.classes] == plain


def _block(ctx: Context, site: int) -> int:
    return next(b.id for b in ctx.cfg.blocks if b.start <= site < b.end)


def test_some_compilations_need_several_rounds() -> None:
    counts = []
    for ctx, _ in contexts("logc/javac-jdk17-excerpt.xml.gz"):
        counts.append(next(r for r in range(1, 65) if _held(ctx, r) or not ctx.cfg.blocks))
    assert max(counts) >= 3
