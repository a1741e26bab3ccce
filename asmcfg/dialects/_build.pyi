from collections.abc import Callable
from typing import Any

def instructions(
    rows: list[tuple[int, str, str, int]], comments: dict[int, list[str]], record: type, fields: tuple[Any, ...],
    notes: Callable[[str], Any], frame: type, frame_fields: tuple[Any, ...],
) -> tuple[Any, ...]:
    """The Instructions of a method's rows and comment lines, as `MethodBuilder.build` makes them."""

def notes(
    comment: str, frame: type, frame_fields: tuple[Any, ...]
) -> tuple[tuple[str, ...], str, tuple[Any, ...], int | None] | None:
    """A comment's relocations, bytecode, frames and implicit-exception target, or None when Python reads it."""
