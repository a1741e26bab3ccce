"""The words for a compilation Graphviz could not draw as asked: the page's note and the line on stderr."""

from __future__ import annotations

from collections.abc import Sequence

from asmcfg.model import Drawn

NOT_DRAWN_LISTING = "Its blocks are listed below in address order; click one for its panel."
"""What the page adds to the note of a compilation no renderer drew."""

DRAWN_COUNTS: dict[Drawn, str] = {
    Drawn.WITHOUT_CLUSTERS: "drawn without loop clusters",
    Drawn.OTHER_RENDERER: "drawn with the other renderer",
    Drawn.NOT_DRAWN: "not drawn (blocks listed)",
}
"""How the closing count of a run names each way of drawing other than as asked."""


def failures_text(failures: Sequence[tuple[str, bool]]) -> str:
    """What each failed attempt said, given with whether the loops were clusters then; a renderer that failed the
    same way with and without them is named once."""
    parts: list[str] = []
    for n, (error, clusters) in enumerate(failures):
        if not clusters and n and failures[n - 1] == (error, True):
            parts[-1] = f"{error} (with and without loop clusters)"
        else:
            parts.append(error if clusters else f"{error} (without loop clusters)")
    return "; ".join(parts)


def drawing_note(how: Drawn, renderer: str, clusters: bool, failures: Sequence[tuple[str, bool]]) -> str:
    """`drawn without loop clusters (dot failed: …)`: how a compilation was drawn and why not as asked."""
    why = failures_text(failures)
    if how is Drawn.NOT_DRAWN:
        return f"not drawn: {why}"
    where = f"drawn with {renderer}" if how is Drawn.OTHER_RENDERER else "drawn"
    shape = "" if clusters else " without loop clusters"
    return f"{where}{shape} ({why})"
