from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")

def maker(record: type[R], fields: tuple[Any, ...]) -> Callable[..., R]:
    """A callable that makes a `record` from every field given positionally, in order."""

def copy(record: R, fields: tuple[Any, ...], names: tuple[str, ...], changes: dict[str, Any]) -> R:
    """A copy of `record` with the fields `changes` names replaced; the names used leave `changes`."""
