"""Put input text into rich tables and lines literally: names and comments may hold `[...]` markup and control
characters, which are shown, never interpreted (by rich or by the terminal)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from asmcfg.terminal import visible


def add_row(table: Table, *cells: str) -> None:
    """Add a row whose cells are shown exactly as given, control characters made visible."""
    table.add_row(*(Text(visible(cell)) for cell in cells))


def title(text: str) -> Text:
    """A table title shown exactly as given, control characters made visible."""
    return Text(visible(text))


def text(line: str, style: str = "") -> Text:
    """A line (or part of one) shown exactly as given, control characters made visible."""
    return Text(visible(line), style=style)
