"""The optional compiled build's C record makers (`asmcfg/model/_make.c`) make and copy records exactly as the
Python makers do: every full `--jsonl` record of a sample of the copied inputs, blocks, edges, instructions and
all that the passes copied, is the same text both ways. Where they are not built, they are compiled here with the
system's C compiler."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from corpus import DATA
from native import built

from asmcfg.cfg import build as cfg_build
from asmcfg.dialects import builder
from asmcfg.model import Block, Edge, EdgeKind, Instruction, factory, make
from asmcfg.render.jsonl import record_line
from asmcfg.run import parallel

SAMPLE = [
    DATA / "hsdis" / "jdk17-ExcSyncAlloc-print-hsdis-att.txt.gz",
    DATA / "hsdis" / "jdk25-Shapes-print-hsdis-intel.txt.gz",
    DATA / "hsdis" / "jdk17-aarch64-RecOsr-print-hsdis.txt.gz",
    DATA / "logc" / "jdk17-Tensor4D.xml.gz",
    DATA / "public" / "pythonee__hsdis-lab__singleton.txt",
]
"""x86 AT&T and Intel, AArch64, LogCompilation, and binutils-style text of JDK 6-8."""


@pytest.fixture(scope="session")
def c_make(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The installed C record makers, or ones built from `_make.c` for these tests."""
    if make.COMPILED is not None:
        return make.COMPILED
    return built("asmcfg.model._make", Path(make.__file__).with_name("_make.c"), tmp_path_factory.mktemp("make"))


def records(path: Path, c_make: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every full record of `path` with records made by `c_make` (None: by the Python makers)."""
    monkeypatch.setattr(make, "COMPILED", c_make)
    monkeypatch.setattr(factory, "COMPILED", c_make)
    monkeypatch.setattr(cfg_build, "new_block", make.maker(Block))
    monkeypatch.setattr(cfg_build, "new_edge", make.maker(Edge))
    monkeypatch.setattr(builder, "new_instruction", make.maker(Instruction))
    monkeypatch.setattr(builder, "BUILD", None)
    return [line for line in parallel.analyse_file(str(path), record_line, workers=1)]  # type: ignore[arg-type]


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: p.name)
def test_records_made_in_c_give_the_same_records(path: Path, c_make: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    made_in_c = records(path, c_make, monkeypatch)
    assert type(cfg_build.new_edge).__name__ == "Maker"
    assert made_in_c and made_in_c == records(path, None, monkeypatch)


def test_a_maker_takes_every_field_and_a_copy_leaves_unknown_names(c_make: Any) -> None:
    new_edge = c_make.maker(Edge, make.field_descriptors(Edge))
    edge = new_edge(3, 7, EdgeKind.FALLTHROUGH, 12)
    assert edge == Edge(3, 7, EdgeKind.FALLTHROUGH, 12) and type(edge) is Edge
    with pytest.raises(TypeError, match="takes its 4 fields"):
        new_edge(3, 7, EdgeKind.FALLTHROUGH)
    changes = {"dst": 9, "colour": "red"}
    copy = c_make.copy(edge, make.field_descriptors(Edge), ("src", "dst", "kind", "site"), changes)
    assert copy == Edge(3, 9, EdgeKind.FALLTHROUGH, 12) and edge.dst == 7 and changes == {"colour": "red"}
