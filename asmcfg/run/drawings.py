"""How a run draws its compilations for `--svg` and `--html`: the renderers to try, and what it says of those
Graphviz could not draw as asked. A run of many compilations goes on (exit 0); a run of the one compilation the
user selected that nothing could draw ends with exit 3 once every output is written."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from asmcfg import describe
from asmcfg.errors import RenderError
from asmcfg.model import Analysis, Drawn
from asmcfg.terminal import visible

if TYPE_CHECKING:
    from asmcfg.render.drawing import Drawing
    from asmcfg.render.svg import Render, Renderer


def renderers(choice: str, timeout: float) -> tuple[Render, tuple[Renderer, ...]]:
    """The renderer `--renderer` names (RenderError when it is not installed) and the one tried after it."""
    from asmcfg.render.svg import renderers as found

    first, *others = found(choice, timeout)
    return first.render, tuple(others)


@dataclass(slots=True)
class Told:
    """The compilations of one output not drawn as asked, in the order they were drawn."""

    output: str
    """The option that asked for the drawing (`--html`, `--svg`)."""
    seen: list[tuple[Analysis, Drawing]] = field(default_factory=list)
    """Each with how it was drawn."""

    def __call__(self, result: Analysis, drawing: Drawing) -> None:
        if drawing.how is not Drawn.AS_ASKED:
            self.seen.append((result, drawing))


def say(told: Told) -> None:
    """One line on stderr per compilation not drawn as asked (shown with --quiet too: the output is not what was
    asked for), then a count when there are several."""
    if not told.seen:
        return
    from asmcfg.render.summary import stderr_console

    err = stderr_console()
    for result, drawing in told.seen:
        what = describe.compilation(result.cfg.method.header)
        err.print(visible(f"{told.output}: {what}: {drawing.note}"), highlight=False, markup=False, soft_wrap=True)
    if len(told.seen) > 1:
        counts = {how: sum(1 for _, d in told.seen if d.how is how) for how in Drawn if how is not Drawn.AS_ASKED}
        parts = [f"{n} {describe.DRAWN_COUNTS[how]}" for how, n in counts.items() if n]
        err.print(f"{told.output}: {describe.count(len(told.seen), 'compilation')} not drawn as asked: "
                  + ", ".join(parts), highlight=False, markup=False, soft_wrap=True)


def finish(told: Told, selected: bool) -> None:
    """Say what was not drawn as asked; RenderError (exit 3) when nothing could draw a compilation the user
    `selected` (one, or a diff's side: not one of --all)."""
    for result, drawing in told.seen:
        if drawing.how is Drawn.NOT_DRAWN and selected:
            what = describe.compilation(result.cfg.method.header)
            raise RenderError(f"{told.output}: cannot draw {what}: {describe.failures_text(drawing.failures)}")
    say(told)
