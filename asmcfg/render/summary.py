"""The hot-path summary on stderr: the compilation, its loops, the static hot path, the traps."""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from asmcfg import describe
from asmcfg.facts import report
from asmcfg.facts.counts import counts
from asmcfg.model import Analysis, LoopRole
from asmcfg.render import literal
from asmcfg.render.heat_summary import write_heat
from asmcfg.render.meaning_summary import write_meaning
from asmcfg.terminal import visible

_MAX_SKIPPED_SHOWN = 5
_MAX_WHERE = 6


def stderr_console() -> Console:
    """The console for the summary: colour only on a terminal and without NO_COLOR; lines kept whole (never
    wrapped at any width) when stderr is not a terminal, so a log or a pipe gets each line as one line."""
    terminal = sys.stderr.isatty()
    # markup=False, emoji=False: method names, comments and frames come from the input and may hold `[...]` or
    # `:name:`; what is printed passes through `visible` (or `literal`) for the control characters they may hold.
    return Console(
        stderr=True, width=None if terminal else _UNWRAPPED, soft_wrap=not terminal,
        no_color=bool(os.environ.get("NO_COLOR")), markup=False, emoji=False,
    )


_UNWRAPPED = 100_000
"""Width given to a console that is not a terminal: wide enough that no line of the summary wraps."""


def write_summary(result: Analysis, console: Console) -> None:
    """Print the summary of one analysed method."""
    method = result.cfg.method
    numbers = counts(result)
    title = literal.text(describe.compilation(method.header), style="bold")
    title.append(visible(
        f"  {method.loc}  "
        f"{describe.count(numbers['instructions'], 'instruction')}, {describe.count(numbers['blocks'], 'block')}, "
        f"{describe.count(len(result.loops), 'loop')}; "
        f"{method.isa} {method.syntax}; JDK {result.jdk} ({result.jdk_why})"
    ), style="")
    console.print(title, highlight=False)
    if result.loops:
        console.print(_loop_table(result))
    if result.cfg.method.profile is not None:
        write_heat(result, console)
    if result.hot_path and not result.hot_paths:
        console.print(_hot_path_table(result))
    if result.traps:
        console.print(_trap_table(result))
    _trap_log(result, console)
    write_meaning(result, console)
    _skipped(result, console)


def _loop_table(result: Analysis) -> Table:
    table = Table(title=literal.title("Loops"), title_justify="left")
    for column in ("header", "copy", "vector", "depth", "blocks", "ins/iter", "polls", "range chk", "null chk",
                   "calls"):
        table.add_column(column)
    for loop in result.loops:
        info: dict[str, Any] = report.loop_dict(result, loop)
        calls = ", ".join(sorted(set(info["calls"]))) or "-"
        role = describe.ROLE_LABELS.get(LoopRole(info["role"] or ""), "")
        if info["strip_mined_outer"] and not role:
            role = describe.ROLE_LABELS[LoopRole.STRIP_MINED_OUTER]
        copy = (role + (f" x{info['unroll']}" if (info["unroll"] or 1) > 1 else "")) or "-"
        vector = describe.vector_text(info["vector_bits"], info["vector_element"] or "", info["vector_isa"] or "")
        literal.add_row(
            table,
            f"B{loop.header}",
            copy,
            vector or "-",
            str(loop.depth),
            str(len(loop.blocks)),
            str(info["instructions"]),
            str(info["polls"]),
            str(info["range_checks"]),
            str(info["null_checks"]),
            calls,
        )
    return table


def _hot_path_table(result: Analysis) -> Table:
    loops = {loop.header for loop in result.loops}
    title = "Static hot path (entry → innermost loop along likely successors)"
    if result.cfg.method.profile is None:
        title = title.replace("(", "(no profile: ")
    table = Table(title=literal.title(title), title_justify="left")
    for column in ("block", "address", "ins", "source", "tags"):
        table.add_column(column)
    method = result.cfg.method
    for block_id in result.hot_path:
        block = result.cfg.blocks[block_id]
        source = report.block_source(result, block)
        where = f"{source['method']} line {source['line']}" if source else ""
        tags = describe.ordered_tags(result.block_tags(block_id))
        name = f"B{block_id}" + (" ⟲" if block_id in loops else "")
        literal.add_row(
            table,
            name,
            f"0x{method.instructions[block.start].address:x}",
            str(block.end - block.start),
            where,
            ", ".join(tags),
        )
    return table


def _trap_table(result: Analysis) -> Table:
    table = Table(title=literal.title("Traps"), title_justify="left")
    for column in ("reason", "action", "count", "bytecode@bci line"):
        table.add_column(column)
    for row in report.trap_table(result):
        where = row["where"]
        shown = ", ".join(where[:_MAX_WHERE]) + (
            f", … ({len(where) - _MAX_WHERE} more)" if len(where) > _MAX_WHERE else ""
        )
        literal.add_row(table, row["reason"], row["action"], str(row["count"]), shown)
    return table


def _trap_log(result: Analysis, console: Console) -> None:
    found = report.trap_log_counts(result)
    if found is None:
        return
    if not found["records"] and not found["fired"]:
        console.print("LogCompilation: the log holds no trap records for this compilation", highlight=False)
        return
    elsewhere = len(found["fired_elsewhere"])
    if "no_records" in found:
        credited = sum(e.fired for e in result.trap_log.values())
        console.print(
            f"LogCompilation: the JVMCI compiler logs no trap records; {found['fired']} fired at run time, "
            f"{credited} credited to their trap" + (f", {elsewhere} where no trap call is" if elsewhere else ""),
            highlight=False, markup=False,
        )
        return
    console.print(
        f"LogCompilation: {found['records']} trap records of the compiler; of the decoded traps {found['agrees']} "
        f"agree, {found['differs']} differ, {found['unlogged']} unlogged; {found['fired']} fired at run time"
        + (f" ({elsewhere} where no trap call is, e.g. an implicit null check)" if elsewhere else ""),
        highlight=False, markup=False,
    )
    rows = report.trap_log_disagreements(result)
    if not rows:
        return
    table = Table(title=literal.title("Traps the log disagrees with"), title_justify="left")
    for column in ("block", "code says", "log says (parse)", "scope@bci", "log lines"):
        table.add_column(column)
    for row in rows:
        literal.add_row(table, f"B{row['block']}", row["code"], ", ".join(row["log"]), row["where"],
                        ", ".join(map(str, row["log_lines"])) or "-")
    console.print(table)


def _skipped(result: Analysis, console: Console) -> None:
    method = result.cfg.method
    skipped, total = method.skipped, method.skipped_total
    if not skipped:
        return
    kept = f" (only the first {len(skipped)} are kept)" if total > len(skipped) else ""
    console.print(
        f"{describe.count(total, 'line')} inside the method {'was' if total == 1 else 'were'} not "
        f"understood and skipped{kept}:", highlight=False, markup=False
    )
    for number, text in skipped[:_MAX_SKIPPED_SHOWN]:
        console.print(visible(f"  {result.cfg.method.at(number)}: {text[:100]!r}"), highlight=False, markup=False)
