"""`asmcfg whatif --sweep`'s outputs: one table on stderr, the switches ranked; `--json` the same rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from asmcfg import describe
from asmcfg.compare import where
from asmcfg.compare.items import LoopItem
from asmcfg.compare.report import item_dict
from asmcfg.render import literal
from asmcfg.whatif import fidelity, runner
from asmcfg.whatif.options import changes_inlining
from asmcfg.whatif.source import Source
from asmcfg.whatif.sweep import Row, allocations, counterpart, real_calls

SWEEP_SCHEMA = 1
"""Version of the sweep's JSON document."""


@dataclass(frozen=True, slots=True)
class Swept:
    """A sweep's result."""

    source: Source
    """What was replayed."""
    baseline: runner.Done
    """The baseline replay."""
    fidelity: list[str] | None
    """How the baseline differs from the recording (empty: it matches; None: nothing recorded)."""
    hot: LoopItem | None
    """The baseline's hottest loop."""
    rows: list[Row]
    """The switches, ranked."""
    skipped: list[str]
    """The list's switches left out, and why."""
    seconds: float
    """The sweep's wall time."""
    cores: int
    """Replays run at once."""


def swept(found: Source, timeout: float) -> Swept:
    """Replay the compilation once per switch this JVM takes (and once as recorded), in a temporary folder removed
    afterwards, and rank the switches."""
    import os
    import shutil
    import tempfile
    import time
    from pathlib import Path

    from asmcfg.compare import items
    from asmcfg.compare.match import diff
    from asmcfg.whatif import sweep
    from asmcfg.whatif.mode import analysed
    from asmcfg.whatif.source import check_jdk

    check_jdk(found)
    started = time.monotonic()
    chosen, skipped = sweep.switches(sweep.flags(found.java, timeout))
    folder = Path(tempfile.mkdtemp(prefix="asmcfg-whatif-"))
    try:
        (baseline_run, baseline), ran = sweep.replays(found, chosen, folder, timeout, analysed)
        rows = sweep.rows(baseline, ran)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    recorded = None if found.recorded is None else diff(items.side(found.recorded), items.side(baseline))
    hot = sweep.hottest_loop(items.side(baseline), recorded)
    return Swept(found, baseline_run, None if recorded is None else fidelity.differences(recorded), hot,
                 sweep.ranked(rows, hot), skipped, time.monotonic() - started, os.cpu_count() or 1)


def lines(swept: Swept) -> list[str]:
    """What the sweep says before its table."""
    source = swept.source
    said = [f"whatif --sweep: {source.what}, JDK {source.release or '(release unknown)'}: {len(swept.rows)} "
            f"switches in {swept.seconds:.1f} s on {swept.cores} core(s)"
            + (f"; left out: {', '.join(swept.skipped)}" if swept.skipped else ""),
            fidelity.sentence(swept.fidelity)]
    if swept.hot is not None:
        said.append(f"hottest loop: {where.loop(swept.hot)}, {_loop_text(swept.hot)}")
    else:
        said.append("the compilation has no loop: the switches are ranked by what they change in the whole")
    return said


def write_table(swept: Swept, console: Console) -> None:
    """The lines and the ranked table."""
    for line in lines(swept):
        console.print(literal.text(line), highlight=False, soft_wrap=True)
    table = Table(title="Switches, ranked by what they change (hottest loop first, then the whole compilation)",
                  title_justify="left")
    for column in ("#", "switch", "hot loop ins/iter", "vector", "range chk", "unroll", "code B", "traps", "calls",
                   "allocs", "what changed"):
        table.add_column(column)
    for n, row in enumerate(swept.rows, 1):
        literal.add_row(table, str(n), row.option, *_cells(row, swept.hot))
    console.print(table)


def _cells(row: Row, hot: LoopItem | None) -> list[str]:
    if row.diff is None:
        return ["", "", "", "", "", "", "", "", f"failed: {row.error}"]
    found, new = counterpart(row.diff, hot)
    old_facts, new_facts = row.diff.old.facts, row.diff.new.facts
    if hot is None:
        loop = ["", "", "", ""]
    elif not found or new is None:
        loop = ["gone", "", "", ""]
    else:
        loop = [_cell(hot.instructions, new.instructions), _cell(_vector(hot), _vector(new)),
                _cell(hot.range_checks, new.range_checks), _cell(hot.unroll, new.unroll)]
    whole = [_cell(old_facts["main_code_bytes"], new_facts["main_code_bytes"]),
             _cell(old_facts["uncommon_traps"], new_facts["uncommon_traps"]),
             _cell(real_calls(row.diff.old), real_calls(row.diff.new)),
             _cell(allocations(row.diff.old), allocations(row.diff.new))]
    changed = len(row.diff.changes)
    what = f"{changed} trap/check/call/poll change(s)" if changed else "no item moved"
    if changes_inlining((row.option,)):
        what += " (inlining decided afresh)"
    return [*loop, *whole, what]


def _cell(before: object, after: object) -> str:
    shown = ["-" if v is None else str(v) for v in (before, after)]
    return shown[0] if shown[0] == shown[1] else f"{shown[0]} → {shown[1]}"


def _vector(loop: LoopItem) -> str | None:
    vector = loop.vector
    return None if vector is None else describe.vector_text(vector.vector_bits, vector.element, vector.vector_isa)


def _loop_text(loop: LoopItem) -> str:
    vector = _vector(loop)
    return f"{loop.instructions} instructions per iteration" + (f", {vector}" if vector else ", scalar")


def _loop_dict(loop: LoopItem | None) -> dict[str, Any] | None:
    if loop is None:
        return None
    return {"header": loop.header, "role": loop.role or None, "unroll": loop.unroll, "instructions": loop.instructions,
            "range_checks": loop.range_checks, "null_checks": loop.null_checks,
            "vector_bits": None if loop.vector is None else loop.vector.vector_bits}


def document(swept: Swept) -> dict[str, Any]:
    """The sweep as JSON."""
    rows = []
    for n, row in enumerate(swept.rows, 1):
        entry: dict[str, Any] = {"rank": n, "option": row.option, "error": row.error, "seconds": round(row.seconds, 3),
                                 "inlining_decided_afresh": changes_inlining((row.option,)), "argv": list(row.argv)}
        if row.diff is not None:
            found, new = counterpart(row.diff, swept.hot)
            old_facts, new_facts = row.diff.old.facts, row.diff.new.facts
            entry["hottest_loop"] = {"found": found, "after": _loop_dict(new)}
            entry["compilation"] = {
                "main_code_bytes": [old_facts["main_code_bytes"], new_facts["main_code_bytes"]],
                "uncommon_traps": [old_facts["uncommon_traps"], new_facts["uncommon_traps"]],
                "calls": [real_calls(row.diff.old), real_calls(row.diff.new)],
                "allocations": [allocations(row.diff.old), allocations(row.diff.new)],
            }
            entry["changes"] = [{"what": c.what, "change": c.change, "old": item_dict(c.old), "new": item_dict(c.new)}
                                for c in row.diff.changes]
        rows.append(entry)
    return {
        "sweep_schema": SWEEP_SCHEMA,
        "whatif": {"compilation": swept.source.what, "jdk": swept.source.release, "java": swept.source.java,
                   "baseline_matches_recorded": None if swept.fidelity is None else not swept.fidelity,
                   "baseline_differences": swept.fidelity, "fidelity": fidelity.sentence(swept.fidelity),
                   "commands": [{"replay": "baseline", "argv": list(swept.baseline.argv),
                                 "seconds": round(swept.baseline.seconds, 3)}]},
        "hottest_loop": _loop_dict(swept.hot),
        "skipped": swept.skipped, "seconds": round(swept.seconds, 3), "cores": swept.cores, "rows": rows,
    }
