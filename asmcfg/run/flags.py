"""Which option means something in which mode: a flag given to a mode that would not use it is a usage error,
never silently ignored."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection

    from asmcfg.run.options import Options


class Mode(Enum):
    """What a run writes."""

    ONE = "one compilation"
    ALL = "--all"
    EXPORT = "--all --html DIR"
    LIST = "--list"
    JSONL = "--jsonl"
    FACTS = "--jsonl --facts"
    TIMELINE = "--timeline"


READING = frozenset(Mode) - {Mode.TIMELINE}
"""Every mode reads the input the same way (`--timeline` reads only the log's records of times)."""
ANALYSING = frozenset({Mode.ONE, Mode.ALL, Mode.EXPORT, Mode.JSONL, Mode.FACTS})
"""The modes that analyse compilations (`--list` only names them)."""
WITH_HEAT = frozenset({Mode.ONE, Mode.ALL, Mode.EXPORT, Mode.JSONL, Mode.FACTS})
TIMED = WITH_HEAT | {Mode.LIST, Mode.TIMELINE}
"""The modes that count samples, which `--from`/`--to` restrict."""
"""The modes whose output shows heat and hot paths."""


@dataclass(frozen=True, slots=True)
class Applies:
    """One option and the modes where it means something."""

    flag: str
    """The option as the user types it."""
    modes: frozenset[Mode]
    """The modes that use it."""
    use: str
    """What it does, for the message when it is given elsewhere."""


TABLE: dict[str, Applies] = {
    "strict": Applies("--strict", READING, "stops at a line not understood"),
    "syntax": Applies("--syntax", READING, "says how the input's instructions are written"),
    "input_format": Applies("--input-format", READING, "says what the input is"),
    "jdk": Applies("--jdk", ANALYSING, "chooses the trap tables of the analysis"),
    "log": Applies("--log", ANALYSING, "puts the log's trap records and inlining decisions on the analysis"),
    "profile": Applies("--profile", WITH_HEAT, "puts measured heat on the graph and its hot paths"),
    "paths": Applies("--paths", WITH_HEAT, "ranks measured hot paths"),
    "skid": Applies("--skid", WITH_HEAT, "moves measured heat onto the instruction before"),
    "bucket": Applies("--bucket", frozenset({Mode.TIMELINE}), "sizes the timeline's buckets"),
    "from_ms": Applies("--from", TIMED, "restricts the samples to a stretch of the run"),
    "to_ms": Applies("--to", TIMED, "restricts the samples to a stretch of the run"),
    "top": Applies("--top", frozenset({Mode.EXPORT}), "keeps the N hottest or largest compilations of the folder"),
}
"""Options keyed by their parameter name; the output flags are checked by `outputs.ignored`."""
GRAPH_FLAGS = {"no_fold": "--no-fold", "renderer": "--renderer", "render_timeout": "--render-timeout"}
"""Options that shape the drawn graph: they need an output that draws one."""


def mode(options: Options) -> Mode:
    """The mode the options choose."""
    if options.timeline:
        return Mode.TIMELINE
    if options.list:
        return Mode.LIST
    if options.jsonl is not None:
        return Mode.FACTS if options.facts else Mode.JSONL
    if options.all:
        from asmcfg.run.outputs import html_folder

        return Mode.EXPORT if html_folder(options) else Mode.ALL
    return Mode.ONE


def unused(options: Options, given: Collection[str]) -> str | None:
    """The usage error for the first option in `given` (parameter names the user typed) that the options' mode
    would not use, else None."""
    chosen = mode(options)
    for name in given:
        applies = TABLE.get(name)
        if applies is not None and chosen not in applies.modes:
            return f"{applies.flag} {applies.use}, which {chosen.value} does not do: drop {applies.flag}"
    for name, flag in GRAPH_FLAGS.items():
        if name in given and not _draws(options, chosen, dot_counts=name == "no_fold"):
            return f"{flag} shapes the drawn graph, which this run does not write: drop {flag}"
    return None


def _draws(options: Options, chosen: Mode, dot_counts: bool) -> bool:
    """True when the run renders a graph (SVG or the HTML page) or, with `dot_counts`, writes DOT text (the
    default output of one compilation)."""
    if chosen not in (Mode.ONE, Mode.ALL, Mode.EXPORT):
        return False
    rendered = options.svg is not None or options.html is not None
    dot = options.dot is not None or not (options.json or rendered)
    return rendered or (dot_counts and dot)
