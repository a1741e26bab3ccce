"""Summary tables of what HotSpot means: calls left in hot code and why, inlining decisions, runtime paths."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from asmcfg import describe
from asmcfg.facts import meaning
from asmcfg.model import Analysis
from asmcfg.render import literal
from asmcfg.terminal import visible

_MAX_DECISIONS = 40


def write_meaning(result: Analysis, console: Console) -> None:
    """The calls left in hot blocks, the log's inlining decisions, allocation/lock/barrier paths, type checks."""
    _table(console, "Calls not inlined in hot blocks", ("block", "kind", "callee", "scope@bci", "why"),
           [[r["block"], r["kind"], r["callee"], r["where"], r["why"]] for r in meaning.call_rows(result)])
    rows = meaning.inlining_rows(result)
    shown = [[r["site"], r["callee"], r["decision"], r["call"], r["line"]] for r in rows[:_MAX_DECISIONS]]
    _table(console, "Inlining decisions (LogCompilation)", ("call site", "callee", "decision", "call in code",
                                                            "log line"), shown)
    if len(rows) > _MAX_DECISIONS:
        console.print(f"  … {len(rows) - _MAX_DECISIONS} more decisions (see --json)", highlight=False, markup=False)
    if meaning.logs_no_decisions(result):
        _debug_info_inlines(result, console)
    _table(console, "Allocation, locking and GC barriers", ("what", "routine", "slow path", "fast path"),
           [[r["kind"], r["routine"], r["slow"], r["fast"]] for r in meaning.runtime_rows(result)])
    if result.type_checks:
        failing = sorted({t.fails_to for t in result.type_checks if t.fails_to})
        line = describe.count(len(result.type_checks), "type check")
        line += f"; failing to: {', '.join(failing)}" if failing else ""
        console.print(visible(line), highlight=False, markup=False)


def _debug_info_inlines(result: Analysis, console: Console) -> None:
    """A JVMCI compilation's inlining as its debug info shows it, and that no decision data exists."""
    inlined = meaning.debug_info_inlines(result)
    console.print(visible(f"Inlining: {meaning.NO_DECISIONS}; the debug info shows "
                          f"{describe.count(len(inlined), 'inlined method')} at the scopes it prints"),
                  highlight=False, markup=False)
    _table(console, "Inlined (debug info)", ("call site", "callee"),
           [[r["site"], r["callee"]] for r in inlined[:_MAX_DECISIONS]])


def _table(console: Console, title: str, columns: tuple[str, ...], rows: list[list[str]]) -> None:
    if not rows:
        return
    table = Table(title=literal.title(title), title_justify="left")
    for column in columns:
        table.add_column(column)
    for row in rows:
        literal.add_row(table, *row)
    console.print(table)
