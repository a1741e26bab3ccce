"""A perfasm run while it is read: its regions, each cut into pieces of code, and their instruction rows."""

from __future__ import annotations

from dataclasses import dataclass, field

from asmcfg.dialects.builder import Skipped
from asmcfg.dialects.perfasm.text import Title


@dataclass(slots=True)
class Row:
    """An instruction line while its region is read."""

    address: int
    body: str
    line: int
    values: dict[int, float]
    index: int
    previous: int | None
    markers: list[str]
    comments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Piece:
    """The part of a region that belongs to one piece of code (the titled method, or code it spills into)."""

    title: Title
    rows: list[Row] = field(default_factory=list)
    constants: list[tuple[int, int]] = field(default_factory=list)
    skipped: Skipped = field(default_factory=Skipped)
    owner: bool = False
    key: str = ""


@dataclass(slots=True)
class Draft:
    """A region while it is read."""

    number: int
    line: int
    title: str = ""
    pieces: list[Piece] = field(default_factory=list)
    printed: int = 0
    markers: list[str] = field(default_factory=list)
    gap: bool = False
    too_big: tuple[int, int] | None = None
    misdecoded: int = 0


@dataclass(slots=True)
class Run:
    """One perfasm result section while it is read."""

    number: int
    benchmark: str = ""
    parameters: str = ""
    events: dict[int, str] = field(default_factory=dict)
    counts: dict[int, int] = field(default_factory=dict)
    regions: list[Draft] = field(default_factory=list)
    totals: dict[int, dict[int, float]] = field(default_factory=dict)
    shares: dict[str, dict[int, float]] = field(default_factory=dict)
    id_shares: dict[int, dict[int, float]] = field(default_factory=dict)
    width: int = 1
