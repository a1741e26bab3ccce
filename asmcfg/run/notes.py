"""What a mode says of the `Log` it opened: its notes, on stderr, each once, as soon as the run reaches a point to
say them."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from asmcfg.model import NoteKind
from asmcfg.terminal import visible

if TYPE_CHECKING:
    from asmcfg.run.log import Log


def say_notes(log: Log, quiet: bool) -> None:
    """The log's notes not said yet, on stderr (none when `quiet`)."""
    for note in log.news():
        if quiet:
            continue
        if note.kind is NoteKind.JVM_CHOSEN:
            sys.stderr.write(visible(note.text) + "\n")
        else:
            from asmcfg.render.summary import stderr_console

            stderr_console().print(visible(note.text), highlight=False, markup=False, soft_wrap=True)
