"""The vocabularies as types: a member IS its text for hashing, equality, str(), format() and JSON.

A plain `(str, Enum)` member formats as `Tag.LOOP_HEADER` in an f-string (and, before Python 3.12, may hash by
its name), so a renderer writing `f"{tag}"` or a test asking `"loop_header" in tags` would change silently.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from asmcfg.analyses import analyse
from asmcfg.cfg.build import build_cfg
from asmcfg.model import (
    CallKind,
    Check,
    Compiler,
    DialectName,
    EdgeKind,
    Feature,
    Flow,
    IsaName,
    LoopRole,
    PathKind,
    Syntax,
    Tag,
    TrapKind,
    TrapOrigin,
    Verdict,
    Word,
)
from asmcfg.render.json import method_dict
from asmcfg.run.pipeline import open_input

VOCABULARIES = (CallKind, Check, Compiler, DialectName, EdgeKind, Feature, Flow, IsaName, LoopRole, PathKind, Syntax,
                Tag, TrapKind, TrapOrigin, Verdict)
SNIPPET = Path(__file__).parent / "data" / "snippets" / "jdk17-x86-Shapes-total-osr-c2.txt"
"""C2 compile 15, `Shapes::total` OSR at bci 11, hsdis AT&T, JDK 17."""


@pytest.mark.parametrize("vocabulary", VOCABULARIES, ids=lambda v: v.__name__)
def test_a_member_is_its_text(vocabulary: type[Word]) -> None:
    for member in vocabulary:
        text = member.value
        assert issubclass(vocabulary, Word)
        assert member == text and hash(member) == hash(text)
        assert text in {member} and member in {text} and {text: 1}[member] == 1
        assert (str(member), f"{member}", format(member), f"{member:>20}") == (text, text, text, f"{text:>20}")
        assert json.dumps({member: [member]}) == json.dumps({text: [text]})
        assert pickle.loads(pickle.dumps(member)) is member


def test_vocabulary_helpers() -> None:
    assert Compiler.named(" C2 ") is Compiler.C2 and Compiler.named("nm") is Compiler.NATIVE
    assert Compiler.named("no such compiler") is Compiler.UNKNOWN
    assert Check.RANGE.tag is Tag.RANGE_CHECK
    assert (PathKind.LOCK.fast_tag, PathKind.LOCK.slow_tag) == (Tag.LOCK, Tag.LOCK_SLOW)
    assert [k for k in CallKind if k.java] == [CallKind.STATIC, CallKind.OPTIMIZED_VIRTUAL, CallKind.VIRTUAL,
                                               CallKind.INTERFACE]
    assert not LoopRole.NONE and f"{LoopRole.NONE}" == ""


def test_a_real_analysis_speaks_the_vocabulary() -> None:
    (method,) = list(open_input(str(SNIPPET)).methods)
    assert (method.dialect, method.isa, method.syntax, method.header.compiler) == ("hsdis", "x86_64", "att", "c2")
    assert method.dialect is DialectName.HSDIS and method.header.compiler is Compiler.C2
    result = analyse(build_cfg(method))
    tags = {tag for block in result.tags.values() for tag in block}
    assert all(type(tag) is Tag for tag in tags)
    # the OSR entry and the loop are tagged, and a plain string finds them in a block's tag set
    assert {"osr_entry", "verified_entry", "loop_header"} <= {str(tag) for tag in tags}
    header = result.loops[0].header
    assert "loop_header" in result.block_tags(header)
    assert all(type(check) is Check for check in result.checks.values())
    blocks = method_dict(result)["blocks"]
    assert "loop_header" in blocks[header]["tags"]
    assert all(type(tag) is str or isinstance(tag, Word) for block in blocks for tag in block["tags"])


def test_the_cli_takes_and_shows_the_words_as_text() -> None:
    # click would show (and expect) an enum member's NAME: the choices are given to it as plain strings
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "NO_COLOR": "1"}
    args = [sys.executable, "-m", "asmcfg", str(SNIPPET), "--input-format", "hsdis", "--compiler", "c2", "--syntax",
            "intel", "--list"]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    row = done.stdout.splitlines()[1].split()
    assert row[:4] == ["c2", "15", "4", "11"] and "Shapes::total" in row
    shown = subprocess.run([*args[:3], "--help"], capture_output=True, text=True, env=env, timeout=120).stdout
    assert "[auto|hsdis|machcode|logcompilation|perfasm]" in shown and "[c1|c2|jvmci]" in shown
