"""The diff as JSON (schema `diff_schema` 3) and as tables on stderr."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from asmcfg import describe
from asmcfg.compare import where
from asmcfg.compare.facts import Inlined, Scope
from asmcfg.compare.gate import Failure
from asmcfg.compare.items import CallItem, CheckItem, LoopItem, Side, TrapItem
from asmcfg.compare.match import Change, Diff, Item, LoopPair
from asmcfg.model import LoopFacts
from asmcfg.render import literal
from asmcfg.render.listing import MAIN_CODE

DIFF_SCHEMA = 3
"""Version of the diff's JSON document; bumped when a field changes meaning or goes away."""
_FACT_ROWS = (
    ("compiler", "compiler"), ("compile id", "compile_id"), ("tier", "level"), ("OSR bci", "osr_bci"),
    ("JDK", "jdk"), (MAIN_CODE, "main_code_bytes"), ("instructions", "instructions"), ("blocks", "blocks"),
    ("loops", "loops"), ("uncommon traps", "uncommon_traps"),
)


def document(result: Diff, failures: list[Failure] | None = None) -> dict[str, Any]:
    """The JSON document of a diff."""
    return {
        "diff_schema": DIFF_SCHEMA,
        "old": _side(result.old),
        "new": _side(result.new),
        "loops": [_loop_pair(pair) for pair in result.loops],
        "changes": [_change(change) for change in result.changes],
        "blocks": [list(pair) for pair in result.blocks],
        "failures": None if failures is None else [{"condition": f.condition, "where": f.where} for f in failures],
    }


def _side(side: Side) -> dict[str, Any]:
    method = side.result.cfg.method
    return {**side.facts, "source": method.source, "line": method.header.line, "log": side.logged}


def _scope(chain: Scope) -> list[dict[str, Any]]:
    return [{"method": m, "bci": bci} for m, bci in chain]


def _vector(vector: LoopFacts | None) -> dict[str, Any] | None:
    if vector is None:
        return None
    return {"bits": vector.vector_bits, "element": vector.element or None, "isa": vector.vector_isa}


def _loop(loop: LoopItem | None) -> dict[str, Any] | None:
    if loop is None:
        return None
    return {
        "header": loop.header, "depth": loop.depth, "strip_mined_outer": loop.strip_mined,
        "role": loop.role or None, "unroll": loop.unroll,
        "blocks": len(loop.blocks), "instructions": loop.instructions, "range_checks": loop.range_checks,
        "null_checks": loop.null_checks, "polls": loop.polls, "calls": loop.calls,
        "vector": _vector(loop.vector), "heat": loop.heat,
    }


def _loop_pair(pair: LoopPair) -> dict[str, Any]:
    return {"status": pair.status, "matched_by": pair.how or None, "old": _loop(pair.old), "new": _loop(pair.new)}


def item_dict(item: Item | None) -> dict[str, Any] | None:
    """One trap, check, call, inlined invoke or poll as JSON."""
    if item is None:
        return None
    if isinstance(item, TrapItem):
        return {"block": item.block, "reason": item.reason, "action": item.action, "bytecode": item.bytecode,
                "scope": _scope(item.scope)}
    if isinstance(item, CheckItem):
        return {"block": item.block, "kind": item.kind, "bytecode": item.bytecode, "scope": _scope(item.scope),
                "loop": item.loop, "implicit": item.implicit}
    if isinstance(item, CallItem):
        return {"block": item.block, "kind": item.kind, "callee": item.callee, "bytecode": item.bytecode,
                "scope": _scope(item.scope), "log_inlined": item.inlined, "log_reason": item.why or None}
    if isinstance(item, Inlined):
        return {"inlined": True, "callee": item.callee, "scope": _scope(item.scope), "evidence": item.evidence,
                "log_reason": item.reason or None}
    return {"block": item.block, "scope": _scope(item.scope), "loop": item.loop}


def _change(change: Change) -> dict[str, Any]:
    return {"what": change.what, "change": change.change, "old": item_dict(change.old), "new": item_dict(change.new)}


def describe_item(item: Item | None) -> str:
    """One line for an item of either side."""
    if item is None:
        return ""
    if isinstance(item, TrapItem):
        return where.trap(item)
    if isinstance(item, CheckItem):
        return where.check(item)
    if isinstance(item, CallItem | Inlined):
        return where.call(item)
    return where.poll(item)


def write_tables(result: Diff, console: Console) -> None:
    """The compilations, the matched loops and what changed, as tables."""
    for label, side in (("old", result.old), ("new", result.new)):
        method = side.result.cfg.method
        title = literal.text(f"{label}: ", style="bold")
        title.append_text(literal.text(describe.compilation(method.header), style="bold"))
        title.append_text(literal.text(f"  {method.loc}; JDK {side.result.jdk}"))
        console.print(title)
    for shown in tables(result):
        console.print(_table(shown))
    if not result.changes:
        console.print(NO_CHANGES, highlight=False)


NO_CHANGES = "no trap, check, call or poll was added, removed or moved"
"""What the tables say when no item changed."""


def tables(result: Diff) -> list[dict[str, Any]]:
    """The tables `write_tables` prints, as `{"title", "columns", "rows"}` of plain text (the diff page shows
    them too)."""
    shown = [{"title": "Compilations", "columns": ["", "old → new", "change"], "rows": _facts_rows(result)}]
    if result.loops:
        columns, rows = _loops_rows(result)
        shown.append({"title": "Loops (old → new)", "columns": columns, "rows": rows})
    if result.changes:
        shown.append({"title": "Traps, checks, calls and polls that changed",
                      "columns": ["item", "change", "old", "new"], "rows": _changes_rows(result.changes)})
    return shown


def _table(shown: dict[str, Any]) -> Table:
    table = Table(title=shown["title"], title_justify="left")
    for column in shown["columns"]:
        table.add_column(column)
    for row in shown["rows"]:
        literal.add_row(table, *row)
    return table


def _cell(before: object, after: object) -> str:
    shown = ["-" if v is None else str(v) for v in (before, after)]
    return shown[0] if shown[0] == shown[1] else f"{shown[0]} → {shown[1]}"


_SIZES = frozenset({"main_code_bytes", "instructions", "blocks", "loops", "uncommon_traps"})
"""The compilation facts that are amounts, whose change is a percentage (a compile id, tier or JDK is a name)."""


def _facts_rows(result: Diff) -> list[list[str]]:
    rows = []
    for label, key in _FACT_ROWS:
        before, after = result.old.facts[key], result.new.facts[key]
        change = ""
        if isinstance(before, int) and isinstance(after, int) and before and before != after and key in _SIZES:
            change = f"{100.0 * (after - before) / before:+.1f}%"
        rows.append([label, _cell(before, after), change])
    return rows


def _vector_text(vector: LoopFacts | None) -> str | None:
    return None if vector is None else describe.vector_text(vector.vector_bits, vector.element, vector.vector_isa)


def _loops_rows(result: Diff) -> tuple[list[str], list[list[str]]]:
    heat = any(loop.heat is not None for p in result.loops for loop in (p.old, p.new) if loop is not None)
    columns = ["old", "new", "matched by", "ins/iter", "range chk", "null chk", "polls", "calls", "vector"]
    rows = []
    for pair in result.loops:
        o, n = pair.old, pair.new
        row = [
            where.loop(o) if o else "-", where.loop(n) if n else "-", pair.how or "-",
            *(_cell(getattr(o, f) if o else None, getattr(n, f) if n else None)
              for f in ("instructions", "range_checks", "null_checks", "polls", "calls")),
            _cell(_vector_text(o.vector) if o else None, _vector_text(n.vector) if n else None),
        ]
        if heat:
            row.append(_cell(*(None if x is None or x.heat is None else f"{x.heat:.2f}" for x in (o, n))))
        rows.append([*row, pair.status])
    return [*columns, *(["heat %"] if heat else []), "status"], rows


def _changes_rows(changes: tuple[Change, ...]) -> list[list[str]]:
    rows = []
    for change in changes:
        gone = "(none)" if change.new is None and change.change == "left_loop" else ""
        rows.append([change.what, describe.CHANGE_LABELS[change.change], describe_item(change.old),
                     describe_item(change.new) or gone])
    return rows
