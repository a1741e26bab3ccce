"""Read the comments HotSpot prints beside an instruction: relocations, scopes, implicit exceptions."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from asmcfg.model import Frame
from asmcfg.model.make import compiled, field_descriptors, quick
from asmcfg.sources.numbers import DIGITS, HEX

_IMPLICIT = re.compile(rf"implicit exception: dispatches to ({HEX})")
_FRAME = re.compile(rf"^-\s+(?:\(reexecute\)\s+)?(\S+?)@(-?{DIGITS})(?:\s+\(line ({DIGITS})\))?")
"""A scope line; a bci or line number of more digits than HotSpot prints is not read (`_build.c` alike)."""
_RELOC = re.compile(r"^\{(.*)\}$")
_SEGMENT = re.compile(r"(?:^|(?<=\s));")


@dataclass(frozen=True, slots=True)
class Notes:
    """What a comment says, ready to put on an Instruction."""

    relocs: tuple[str, ...]
    """Relocation texts."""
    bytecode: str
    """Bytecode of the scope, if any."""
    frames: tuple[Frame, ...]
    """Inlining chain, innermost first."""
    implicit_target: int | None
    """Implicit exception handler address."""


quick(Notes)  # a call, not a decorator: mypyc keeps a decorated class out of C

ReadNotes = Callable[[str, type, tuple[Any, ...]], "tuple[tuple[str, ...], str, tuple[Frame, ...], int | None] | None"]
"""`_build.notes(comment, Frame, frame_fields)`: `read_notes`'s fields in C, or None for a comment it leaves to
Python (one with a character outside printable ASCII, tab and newline, or a number of over 60 digits)."""
NOTES: ReadNotes | None = compiled("asmcfg.dialects._build", "notes")
"""The comment reader `read_notes` uses first, or None: then it reads every comment in Python."""
FRAME_FIELDS = field_descriptors(Frame)
"""The descriptors of Frame's fields, in order, which `NOTES` sets."""


def _bytecode(segment: str) -> str:
    text = segment[1:].split("{reexecute", 1)[0].strip()
    return text


@functools.lru_cache(maxsize=1024)
def read_notes(comment: str) -> Notes:
    """Split a comment (lines joined by newlines) into relocations, scope and handler.

    Cached: the instructions of one bytecode print the same comment, and Notes are immutable."""
    read = NOTES
    found = None if read is None else read(comment, Frame, FRAME_FIELDS)
    return _read_notes(comment) if found is None else Notes(*found)


def _read_notes(comment: str) -> Notes:
    """`read_notes` in Python."""
    relocs: list[str] = []
    frames: list[Frame] = []
    bytecode = ""
    implicit: int | None = None
    for segment in _segments(comment):
        if segment.startswith("{"):
            match = _RELOC.match(segment)
            if match:
                relocs.append(match.group(1).strip())
        elif segment.startswith("*"):
            bytecode = bytecode or _bytecode(segment)
        elif segment.startswith("-"):
            frame = _FRAME.match(segment)
            if frame:
                line = int(frame.group(3)) if frame.group(3) else None
                frames.append(Frame(frame.group(1), int(frame.group(2)), line))
        elif implicit is None:
            found = _IMPLICIT.search(segment)
            if found:
                implicit = int(found.group(1), 16)
    return Notes(tuple(relocs), bytecode, tuple(frames), implicit)


def _segments(comment: str) -> list[str]:
    parts: list[str] = []
    for line in comment.split("\n"):
        for piece in _SEGMENT.split(line) if ";" in line else (line,):
            piece = piece.strip()
            if piece:
                parts.append(piece)
    return parts
