"""The loops pass's own dominators give networkx's answer on every method of the real dumps."""

from __future__ import annotations

import networkx as nx
import pytest

from asmcfg.analyses import loops
from asmcfg.analyses.context import make_context
from asmcfg.analyses.dominators import immediate_dominators, postorder
from asmcfg.cfg.build import build_cfg
from asmcfg.run.pipeline import open_input
from tests.conftest import DATA

DUMPS = [
    DATA / "hsdis" / "jdk17-BigMethod-print-hsdis-att.txt.gz",
    DATA / "hsdis" / "jdk17-Switches-printassembly-full.txt.gz",
    DATA / "hsdis" / "jdk17-aarch64-Tensor4D-print-hsdis.txt.gz",
    DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt",
    DATA / "logc" / "javac-jdk17-excerpt.xml.gz",
]


@pytest.mark.parametrize("path", DUMPS, ids=lambda p: p.name)
def test_immediate_dominators_are_networkx_s(path: object) -> None:
    compared = 0
    for method in open_input(str(path)).methods:
        succ, pred = loops.block_graph(make_context(build_cfg(method), None))
        graph = nx.DiGraph()
        graph.add_nodes_from(succ)
        graph.add_edges_from((src, dst) for src, targets in succ.items() for dst in targets)
        theirs = {n: d for n, d in nx.immediate_dominators(graph, -1).items() if n != -1}
        ours = immediate_dominators(succ, pred, -1)
        assert ours.pop(-1) == -1
        assert ours == theirs, method.header
        assert sorted(postorder(succ, -1)) == sorted(nx.descendants(graph, -1) | {-1})
        compared += 1
    assert compared >= 3
