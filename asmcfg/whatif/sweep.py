"""`asmcfg whatif --sweep`: the compilation replayed once per single switch of a built-in list (only the switches
the JDK has, asked of the JVM with -XX:+PrintFlagsFinal, and only those that change its setting), on every core,
ranked by what each changes in the hottest loop and in the whole compilation."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from asmcfg.compare import items
from asmcfg.compare.items import LoopItem, Side
from asmcfg.compare.match import Diff, diff
from asmcfg.errors import InputError
from asmcfg.model import Analysis, PathKind
from asmcfg.whatif import runner
from asmcfg.whatif.options import changes_inlining
from asmcfg.whatif.replayfile import without_inlining
from asmcfg.whatif.source import Source

SWITCHES = (
    ("UseSuperWord", False), ("LoopUnrollLimit", 1), ("PartialPeelLoop", False), ("UseLoopPredicate", False),
    ("RangeCheckElimination", False), ("DoEscapeAnalysis", False), ("EliminateAllocations", False),
    ("UseCountedLoopSafepoints", False), ("UseAVX", "one below"), ("AlignVector", True),
    ("MaxInlineSize", "doubled"), ("FreqInlineSize", "doubled"),
)
"""The built-in list: each C2 feature switched off, or its limit moved, one at a time."""
_FLAG = re.compile(r"^\s*(\w+)\s+(\w+)\s+:?=\s+(\S+)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Failed:
    """A switch whose replay failed."""

    option: str
    """The switch."""
    error: str
    """Why, in one line."""
    argv: tuple[str, ...]
    """Its command."""


Ran = tuple[runner.Done, Analysis] | Failed


@dataclass(frozen=True, slots=True)
class Row:
    """One switch's replay, measured against the baseline."""

    option: str
    """The switch (`-XX:-UseSuperWord`)."""
    diff: Diff | None
    """Baseline → this replay, None when it failed."""
    error: str | None
    """Why the replay failed (one line), else None."""
    seconds: float
    """How long it ran."""
    argv: tuple[str, ...]
    """Its command."""


def flags(java: str, timeout: float) -> dict[str, str]:
    """The JVM's flags and their values, from `java -XX:+PrintFlagsFinal -version` (diagnostic and experimental
    ones unlocked, as a replay has them)."""
    try:
        done = subprocess.run([java, "-XX:+UnlockDiagnosticVMOptions", "-XX:+UnlockExperimentalVMOptions",
                               "-XX:-UsePerfData", "-XX:+PrintFlagsFinal", "-version"], capture_output=True,
                              timeout=timeout, check=False, stdin=subprocess.DEVNULL, env=runner.clean_env())
    except (OSError, subprocess.TimeoutExpired) as error:
        raise InputError(f"{java} -XX:+PrintFlagsFinal: {error}", "whatif") from None
    text = done.stdout.decode("utf-8", "replace")
    return {name: value for _, name, value in _FLAG.findall(text)}


def switches(known: dict[str, str]) -> tuple[list[str], list[str]]:
    """The list's options this JVM accepts and that change its setting; and why each other one is left out."""
    chosen, skipped = [], []
    for name, wanted in SWITCHES:
        value = known.get(name)
        if value is None:
            skipped.append(f"{name}: this JVM has no such flag")
            continue
        option = _option(name, wanted, value)
        if option is None:
            skipped.append(f"{name}: already {value}")
        else:
            chosen.append(option)
    return chosen, skipped


def _option(name: str, wanted: object, value: str) -> str | None:
    """The switch that moves `name` from `value` as the list says, None when it changes nothing."""
    if isinstance(wanted, bool):
        return None if value == ("true" if wanted else "false") else f"-XX:{'+' if wanted else '-'}{name}"
    if wanted == "one below":
        return f"-XX:{name}={int(value) - 1}" if value.isdigit() and int(value) > 0 else None
    if wanted == "doubled":
        return f"-XX:{name}={2 * int(value)}" if value.isdigit() and int(value) > 0 else None
    return None if value == str(wanted) else f"-XX:{name}={wanted}"


def replays(source: Source, options: list[str], folder: Path, timeout: float,
            analysed: Callable[[runner.Done], Analysis]) -> tuple[tuple[runner.Done, Analysis], list[Ran]]:
    """The baseline and one replay per option, on every core, each read and analysed as soon as it ends (while the
    others run); the baseline's failure is an error, an option's is its row's."""
    def one(n: int, option: str | None) -> Ran:
        chosen = () if option is None else (option,)
        text = without_inlining(source.text, source.task) if changes_inlining(chosen) and \
            source.task.inlining else source.text
        replay = runner.Replay(option or "baseline", source.java, text, source.task, source.class_path,
                               source.module_path, chosen)
        try:
            done = runner.run(replay, folder, f"sweep{n}", timeout)
            return done, analysed(done)
        except InputError as error:
            if option is None:
                raise
            return Failed(option, error.message.removeprefix(f"{option}: "),
                          tuple(runner.argv(replay, folder, f"sweep{n}")))

    asked: list[str | None] = [None, *options]
    with ThreadPoolExecutor(max(1, os.cpu_count() or 1)) as pool:
        try:
            done = list(pool.map(one, range(len(asked)), asked))
        finally:
            runner.stop_all()
    first = done[0]
    assert not isinstance(first, Failed)
    return first, done[1:]


def rows(baseline: Analysis, ran: list[Ran]) -> list[Row]:
    """Each replay compared with the baseline."""
    before = items.side(baseline)
    found = []
    for one in ran:
        if isinstance(one, Failed):
            found.append(Row(one.option, None, one.error, 0.0, one.argv))
        else:
            done, result = one
            found.append(Row(done.replay.options[0], diff(before, items.side(result)), None, done.seconds,
                             done.argv))
    return found


def hottest_loop(side: Side, recorded: Diff | None) -> LoopItem | None:
    """The baseline's hottest loop: the one paired with the recorded compilation's hottest measured loop, else
    the deepest hot loop (a main loop first), else the largest."""
    if recorded is not None:
        measured = [p for p in recorded.loops if p.old is not None and p.old.heat and p.new is not None]
        if measured:
            best = max(measured, key=lambda p: p.old.heat or 0.0 if p.old else 0.0)
            return best.new
    if not side.loops:
        return None
    return max(side.loops, key=lambda loop: (loop.hot, loop.depth, loop.role == "main", loop.instructions))


def counterpart(result: Diff, loop: LoopItem | None) -> tuple[bool, LoopItem | None]:
    """(found, its loop in the what-if) for a baseline loop: (False, None) when the what-if has no such loop."""
    if loop is None:
        return False, None
    for pair in result.loops:
        if pair.old is not None and pair.old.header == loop.header:
            return pair.new is not None, pair.new
    return False, None


def allocations(side: Side) -> int:
    """Allocation slow paths in the compilation."""
    return sum(1 for path in side.result.runtime_paths if path.kind is PathKind.ALLOCATION)


def real_calls(side: Side) -> int:
    """Calls that stayed calls."""
    return len(side.calls)


def score(result: Diff, hot: LoopItem | None) -> float:
    """How much a switch changes: the hottest loop first (its loss, instructions per iteration, vector width,
    checks, unroll), then the compilation (size, traps, calls, allocations)."""
    found, new = counterpart(result, hot)
    total = 0.0
    if hot is not None and not found:
        total += 10_000
    elif hot is not None and new is not None:
        total += 1_000 * ((hot.vector is None) != (new.vector is None))
        total += 10 * abs(hot.instructions - new.instructions) + 5 * abs((hot.unroll or 1) - (new.unroll or 1))
        total += 20 * abs(hot.range_checks - new.range_checks) + 20 * abs(hot.null_checks - new.null_checks)
        total += abs(_bits(hot) - _bits(new)) / 8
    old, new_facts = result.old.facts, result.new.facts
    total += abs(_int(new_facts["main_code_bytes"]) - _int(old["main_code_bytes"])) / 16
    total += 5 * abs(_int(new_facts["uncommon_traps"]) - _int(old["uncommon_traps"]))
    total += 5 * abs(real_calls(result.new) - real_calls(result.old))
    total += 20 * abs(allocations(result.new) - allocations(result.old))
    return total


def ranked(rows: list[Row], hot: LoopItem | None) -> list[Row]:
    """The rows, those that change most first (failed replays last), the list's order among equals."""
    return sorted(rows, key=lambda row: -score(row.diff, hot) if row.diff is not None else 1.0)


def _bits(loop: LoopItem) -> int:
    return 0 if loop.vector is None else loop.vector.vector_bits or 0


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0
