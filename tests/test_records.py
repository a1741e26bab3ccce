"""Records serialise themselves: the JSON writer's objects are the records' `as_dict()`, and a method names
where it was printed with a SourceLoc."""

from __future__ import annotations

from pathlib import Path

from asmcfg.analyses import analyse
from asmcfg.cfg.build import build_cfg
from asmcfg.model import SourceLoc
from asmcfg.render.json import method_dict
from asmcfg.run.pipeline import open_input

SNIPPET = Path(__file__).parent / "data" / "snippets" / "jdk17-x86-Shapes-total-osr-c2.txt"
"""C2 compile 15, `Shapes::total` OSR at bci 11, hsdis AT&T, JDK 17."""


def test_the_json_objects_are_the_records() -> None:
    (method,) = list(open_input(str(SNIPPET)).methods)
    result = analyse(build_cfg(method))
    doc = method_dict(result)
    assert method.loc == SourceLoc(str(SNIPPET), method.header.line)
    assert (doc["source"], doc["line"]) == (str(SNIPPET), method.header.line) and str(method.loc).endswith(
        f".txt:{method.header.line}")
    first = method.instructions[0]
    assert doc["blocks"][0]["instructions"][0] == first.as_dict()
    assert first.as_dict()["address"] == f"0x{first.address:x}" and first.as_dict()["line"] == first.line
    assert doc["edges"] == [e.as_dict(result.checks.get(e)) for e in result.cfg.edges]
    checked = [e for e in doc["edges"] if e["check"]]
    assert checked and {e["check"] for e in checked} <= {"range_check", "null_check"}
    traps = {b: t for b, t in result.traps.items()}
    assert traps and all(doc["blocks"][b]["trap"] == t.as_dict() for b, t in traps.items())
    assert all(doc["blocks"][b]["trap"]["reason"] == t.reason for b, t in traps.items())
    loop = result.loops[0]
    assert {k: doc["loops"][0][k] for k in ("header", "blocks", "depth", "back_edges")} == {
        "header": loop.header, "blocks": list(loop.blocks), "depth": loop.depth, "back_edges": list(loop.back_edges)}
    assert doc["calls"] == [c.as_dict(method.instructions[c.site].address) for c in result.calls]
