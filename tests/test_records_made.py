"""Records are made one way, by calling their class, and copied with `dataclasses.replace`: the hot records'
quick `__init__` (`model/make.py`) gives the record the dataclass's own `__init__` gives, with the same fields,
defaults and keywords, still frozen, and pickles as it is."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path
from typing import Any

import pytest

from asmcfg.analyses import analyse
from asmcfg.cfg.build import build_cfg
from asmcfg.dialects.annotations import Notes
from asmcfg.model import Block, Edge, EdgeKind, Instruction, Method
from asmcfg.model.make import quick
from asmcfg.run.pipeline import open_input

SNIPPET = Path(__file__).parent / "data" / "snippets" / "jdk17-x86-Shapes-total-osr-c2.txt"
"""C2 compile 15, `Shapes::total` OSR at bci 11, hsdis AT&T, JDK 17."""


def _method() -> Method:
    (method,) = list(open_input(str(SNIPPET)).methods)
    return method


def _dataclass_init(cls: type) -> Any:
    """The `__init__` the dataclass itself writes for `cls`'s fields, on a twin class that keeps it."""
    twin = dataclasses.make_dataclass(cls.__name__, [(f.name, f.type, f) for f in dataclasses.fields(cls)],
                                      frozen=True, slots=True)
    return twin


def test_the_hot_records_have_the_quick_init() -> None:
    for cls in (Instruction, Block, Edge, Notes):
        assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
        assert "_set_" in cls.__init__.__code__.co_freevars[0]


def test_an_instruction_made_quick_equals_the_dataclass_one() -> None:
    method = _method()
    assert [ins for ins in method.instructions if ins.frames and ins.relocs], "instructions with scopes and relocs"
    twin = _dataclass_init(Instruction)
    for ins in method.instructions:
        values = tuple(getattr(ins, f.name) for f in dataclasses.fields(Instruction))
        made = Instruction(*values)
        assert made == ins and repr(made) == repr(ins) and hash(made) == hash(ins)
        assert dataclasses.astuple(twin(*values)) == dataclasses.astuple(made)
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.address = 0  # type: ignore[misc]


def test_defaults_and_keywords_are_the_dataclass_ones() -> None:
    made = Instruction(address=16, mnemonic="ret", operands="", line=3)
    assert (made.comment, made.relocs, made.frames, made.size, made.patching_stub) == ("", (), (), None, None)
    assert Edge(1, 2, EdgeKind.JUMP, site=4) == Edge(src=1, dst=2, kind=EdgeKind.JUMP, site=4)
    with pytest.raises(TypeError):
        Instruction(16, "ret")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Block(1, 2, 3, 4)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Edge(1, 2, EdgeKind.JUMP, 0, nothing=1)  # type: ignore[call-arg]


def test_copies_and_pickles_of_analysed_records_are_equal() -> None:
    result = analyse(build_cfg(_method()))
    assert result.traps and result.loops, "a method with traps and a loop"
    for record in (*result.cfg.blocks[:5], *result.cfg.edges[:5], *result.cfg.method.instructions[:5]):
        assert pickle.loads(pickle.dumps(record)) == record
        assert dataclasses.replace(record) == record
    ins = result.cfg.method.instructions[0]
    assert dataclasses.replace(ins, line=7) == Instruction(*(7 if f.name == "line" else getattr(ins, f.name)
                                                             for f in dataclasses.fields(ins)))
    assert pickle.loads(pickle.dumps(result)) == result


def test_a_class_the_quick_init_cannot_fill_is_left_as_it_is() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Listed:
        items: list[int] = dataclasses.field(default_factory=list)

    init = Listed.__init__
    assert quick(Listed) is Listed and Listed.__init__ is init
