"""The `--list` table: one row per compilation in the input."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.table import Table

from asmcfg.model import Method
from asmcfg.render import literal


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def write_listing(methods: Iterable[Method], console: Console) -> int:
    """Print the table and return how many rows it has."""
    table = Table(title=None, box=None, pad_edge=False)
    for column in (
        "compiler",
        "id",
        "tier",
        "osr",
        "flags",
        "method",
        "bytecode",
        "code bytes",
        "instructions",
        "line",
    ):
        table.add_column(column, justify="right" if column not in ("compiler", "method", "flags") else "left")
    rows = 0
    for method in methods:
        header = method.header
        size = method.code_end - method.code_begin if method.code_end and method.code_begin else None
        literal.add_row(
            table,
            header.compiler,
            _cell(header.compile_id),
            _cell(header.level),
            _cell(header.osr_bci),
            header.flags,
            header.name,
            _cell(header.bytecode_size),
            _cell(size),
            str(len(method.instructions)),
            _cell(header.line),
        )
        rows += 1
    console.print(table)
    return rows
