"""Graph invariants on every method of every copied corpus file."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from corpus import DATA

from asmcfg import isa
from asmcfg.cfg.build import build_cfg
from asmcfg.model import Cfg, EdgeKind, Flow
from asmcfg.run.pipeline import open_input

EXAMPLE = Path(__file__).parent.parent / "examples" / "c2-compiled-realTest.S"
FILES = [*sorted(p for folder in ("hsdis", "public") for p in (DATA / folder).iterdir()), EXAMPLE]


def check_invariants(cfg: Cfg) -> None:
    """Partition, edge ends, no fall-through after jmp/ret, branch targets start blocks."""
    method = cfg.method
    table = isa.for_name(method.isa)
    bounds = [(b.start, b.end) for b in cfg.blocks]
    assert bounds[0][0] == 0 and bounds[-1][1] == len(method.instructions)
    assert all(a[1] == b[0] and a[0] < a[1] for a, b in itertools.pairwise(bounds))
    ids = {b.id for b in cfg.blocks}
    starts = {method.instructions[b.start].address for b in cfg.blocks}
    addresses = {i.address for i in method.instructions}
    for edge in cfg.edges:
        assert edge.src in ids
        assert edge.dst in ids or (isinstance(edge.dst, str) and edge.dst)
    for block in cfg.blocks:
        last = method.instructions[block.end - 1]
        flow = table.flow(last)
        kinds = {e.kind for e in cfg.edges if e.src == block.id}
        if flow in (Flow.JUMP, Flow.RETURN, Flow.INDIRECT, Flow.HALT):
            assert EdgeKind.FALLTHROUGH not in kinds, f"fall-through after {last.mnemonic} at {last.address:#x}"
    for ins in method.instructions:
        if table.flow(ins) in (Flow.COND, Flow.JUMP):
            target = table.target(ins)
            if target in addresses:
                assert target in starts, f"branch target {target:#x} does not start a block"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_invariants_hold_for_every_method(path: Path) -> None:
    stream = open_input(str(path))
    count = 0
    for method in stream.methods:
        check_invariants(build_cfg(method))
        count += 1
    # The JMH console output without assembly is the one negative sample: no method in it.
    assert (count == 0) == ("benchmark_output" in path.name)
