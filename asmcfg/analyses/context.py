"""What every pass may read about a graph: the ISA table, per-instruction flow, and adjacency."""

from __future__ import annotations

from dataclasses import dataclass, replace

from asmcfg import isa
from asmcfg.cfg.build import Layout, layout
from asmcfg.isa.base import Isa
from asmcfg.model import Analysis, Block, Cfg, Edge, EdgeKind, Tag


@dataclass(frozen=True, slots=True)
class Context:
    """Read-only facts about one graph, computed once for all passes."""

    cfg: Cfg
    """The graph."""
    table: Isa
    """The method's ISA table."""
    layout: Layout
    """Flow kind of each instruction."""
    successors: dict[int, tuple[Edge, ...]]
    """Outgoing edges per block id."""
    predecessors: dict[int, tuple[Edge, ...]]
    """Incoming edges per block id (edges between blocks only)."""
    jdk: int | None
    """JDK version forced with --jdk."""
    paths: int = 3
    """How many measured hot paths to rank (--paths)."""

    def block(self, block_id: int) -> Block:
        """The block with that id."""
        return self.cfg.blocks[block_id]

    def fallthrough_pred(self, block_id: int) -> int | None:
        """The block that falls into this one when that is its only way in."""
        preds = self.predecessors.get(block_id, ())
        if len(preds) == 1 and preds[0].kind is EdgeKind.FALLTHROUGH:
            return preds[0].src
        return None


def make_context(cfg: Cfg, jdk: int | None, paths: int = 3, lay: Layout | None = None) -> Context:
    """Build the shared context for `cfg` (`lay`: the method's layout, when the caller has it already)."""
    succ: dict[int, list[Edge]] = {}
    pred: dict[int, list[Edge]] = {}
    for edge in cfg.edges:
        succ.setdefault(edge.src, []).append(edge)
        if isinstance(edge.dst, int):
            pred.setdefault(edge.dst, []).append(edge)
    table = isa.for_name(cfg.method.isa)
    return Context(
        cfg,
        table,
        lay or layout(cfg.method, table),
        {k: tuple(v) for k, v in succ.items()},
        {k: tuple(v) for k, v in pred.items()},
        jdk,
        paths,
    )


def add_tags(result: Analysis, tags: dict[int, set[Tag]]) -> Analysis:
    """A copy of `result` with `tags` merged in."""
    merged = dict(result.tags)
    empty: frozenset[Tag] = frozenset()
    for block, names in tags.items():
        if names:
            merged[block] = merged.get(block, empty).union(names)
    return replace(result, tags=merged)
