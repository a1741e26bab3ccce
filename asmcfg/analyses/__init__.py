"""Analysis passes, pure functions composed in order: each reads the graph and the results so far."""

from __future__ import annotations

from collections.abc import Callable

from asmcfg.analyses import (
    calls,
    checks,
    copies,
    heat,
    hotness,
    loops,
    runtime_paths,
    safepoints,
    sections,
    traplog,
    traps,
    typechecks,
    vectors,
)
from asmcfg.analyses.context import Context, make_context
from asmcfg.cfg.build import Layout
from asmcfg.model import Analysis, Cfg

Pass = Callable[[Context, Analysis], Analysis]

PASSES: tuple[tuple[str, Pass], ...] = (
    ("sections", sections.run),
    ("traps", traps.run),
    ("traplog", traplog.run),
    ("checks", checks.run),
    ("safepoints", safepoints.run),
    ("loops", loops.run),
    ("calls", calls.run),
    ("runtime_paths", runtime_paths.run),
    ("typechecks", typechecks.run),
    ("vectors", vectors.run),
    ("copies", copies.run),
    ("hotness", hotness.run),
    ("heat", heat.run),
)
"""The passes, in the order they run; later passes read what earlier ones found."""


def analyse(
    cfg: Cfg, jdk: int | None = None, passes: tuple[tuple[str, Pass], ...] = PASSES, paths: int = 3,
    lay: Layout | None = None,
) -> Analysis:
    """Run `passes` over `cfg`; `jdk` forces the reason table; `lay` is the method's layout if already made."""
    ctx = make_context(cfg, jdk, paths, lay)
    result = Analysis(cfg=cfg, jdk=jdk or 17, jdk_why="--jdk" if jdk else "default")
    for _, run in passes:
        result = run(ctx, result)
    return result
