"""Put input text into rich tables and lines literally: names and comments may hold `[...]` markup."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text


def add_row(table: Table, *cells: str) -> None:
    """Add a row whose cells are shown exactly as given."""
    table.add_row(*(Text(cell) for cell in cells))


def title(text: str) -> Text:
    """A table title shown exactly as given."""
    return Text(text)
