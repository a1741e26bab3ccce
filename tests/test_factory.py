"""The fast record makers give the records the dataclasses would: equal, with the same fields, on a real method."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from asmcfg.analyses import analyse
from asmcfg.cfg.build import build_cfg
from asmcfg.model import Analysis, Instruction, Method
from asmcfg.model.factory import new_instruction, replace
from asmcfg.model.make import maker
from asmcfg.run.pipeline import open_input

SNIPPET = Path(__file__).parent / "data" / "snippets" / "jdk17-x86-Shapes-total-osr-c2.txt"
"""C2 compile 15, `Shapes::total` OSR at bci 11, hsdis AT&T, JDK 17."""


def _method() -> Method:
    (method,) = list(open_input(str(SNIPPET)).methods)
    return method


def test_new_instruction_equals_the_class_called_with_the_same_fields() -> None:
    method = _method()
    noted = [ins for ins in method.instructions if ins.frames and ins.relocs]
    assert noted, "the sample has instructions with a scope and a relocation"
    for ins in method.instructions:
        values = tuple(getattr(ins, f.name) for f in dataclasses.fields(Instruction))
        made = new_instruction(*values)
        assert made == Instruction(*values) == ins
        assert repr(made) == repr(ins) and hash(made) == hash(ins)
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.address = 0  # type: ignore[misc]


def test_replace_copies_like_dataclasses_replace() -> None:
    method = _method()
    result = analyse(build_cfg(method))
    assert result.traps and result.loops, "a method with traps and a loop"
    for record, changes in (
        (result, {"hot_path": (0,), "jdk": 25}),
        (method, {"code_begin": 1, "features": frozenset()}),
        (method.instructions[0], {"line": 7}),
    ):
        assert replace(record, **changes) == dataclasses.replace(record, **changes)
    copy = replace(result)
    assert copy == result and copy is not result and isinstance(copy, Analysis)
    with pytest.raises(TypeError, match="no field"):
        replace(result, no_such_field=1)


def test_maker_builds_what_the_class_builds() -> None:
    result = analyse(build_cfg(_method()))
    for record in (*result.cfg.blocks[:5], *result.cfg.edges[:5], *result.traps.values()):
        cls = type(record)
        values = tuple(getattr(record, f.name) for f in dataclasses.fields(record))
        made = maker(cls)(*values)
        assert type(made) is cls and made == cls(*values) == record and repr(made) == repr(record)
