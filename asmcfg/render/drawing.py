"""Drawing one compilation for `--svg` and `--html`: Graphviz as asked; when it fails or times out, again without
the loop clusters, then with the other renderer (system `dot` or graphviz-pure). A compilation none of them can
draw is told to the caller, which lists its blocks instead: one such compilation never ends a run of many."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from asmcfg import describe
from asmcfg.errors import RenderError
from asmcfg.model import Analysis, Drawn
from asmcfg.render import dot
from asmcfg.render.svg import Render, Renderer, budget
from asmcfg.render.tangle import too_tangled


@dataclass(frozen=True, slots=True)
class Drawing:
    """How one compilation was drawn, or why it was not."""

    svg: bytes | None
    """Graphviz's SVG; None when no renderer drew it."""
    how: Drawn
    """As asked, without loop clusters, with the other renderer, or not at all."""
    renderer: str = ""
    """The renderer that drew it when it is not the one asked for."""
    clusters: bool = True
    """Whether its loops are drawn as clusters."""
    failures: tuple[tuple[str, bool], ...] = ()
    """What each attempt before the one that drew it said (`dot failed: …`) and whether the loops were clusters
    then, in order."""

    @property
    def note(self) -> str | None:
        """`drawn without loop clusters (dot failed: …)`; None when it was drawn as asked."""
        if self.how is Drawn.AS_ASKED:
            return None
        return describe.drawing_note(self.how, self.renderer, self.clusters, self.failures)


def draw(
    result: Analysis, render: Render, others: Sequence[Renderer] = (), fold: bool = True, legend: bool = True,
    run_heat: bool = False,
) -> Drawing:
    """`result` drawn by `render`, else by it without loop clusters, else by each of `others` the same way: all the
    tries within one renderer's timeout (or the page's, `svg.budget`); none when the graph is too tangled."""
    texts = {True: _dot(result, fold, legend, True, run_heat)}
    tangled = too_tangled(texts[True])
    if tangled is not None:
        return Drawing(None, Drawn.NOT_DRAWN, "", False, ((tangled, True),))
    with budget():
        return _tries(result, texts, render, others, fold, legend, run_heat)


def _tries(result: Analysis, texts: dict[bool, str], render: Render, others: Sequence[Renderer], fold: bool,
           legend: bool, run_heat: bool) -> Drawing:
    failures: list[tuple[str, bool]] = []
    for n, renderer in enumerate([Renderer("", render), *others]):
        for clusters in (True, False):
            if clusters not in texts:
                texts[False] = _dot(result, fold, legend, False, run_heat)
            if not clusters and texts[False] == texts[True]:
                continue  # no loop was a cluster: the same text again would fail the same way
            try:
                svg = renderer.render(texts[clusters])
            except RenderError as exc:
                failures.append((str(exc), clusters))
                continue
            how = Drawn.OTHER_RENDERER if n else Drawn.AS_ASKED if clusters else Drawn.WITHOUT_CLUSTERS
            return Drawing(svg, how, renderer.name, clusters, tuple(failures))
    return Drawing(None, Drawn.NOT_DRAWN, "", False, tuple(failures))


def _dot(result: Analysis, fold: bool, legend: bool, clusters: bool, run_heat: bool) -> str:
    text = io.StringIO()
    dot.write_dot(result, text, fold, legend=legend, clusters=clusters, run_heat=run_heat)
    return text.getvalue()
