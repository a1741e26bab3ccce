"""The indented JSON writer gives the text `json.dumps(value, indent=1)` gives: on generated documents (every JSON
type, subclasses of them, non-str keys, NaN and infinities, any character), on what each refuses, and on the
`--json` outputs of real dumps, perfasm output with heat, a LogCompilation log and a diff."""

from __future__ import annotations

import enum
import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from asmcfg.cli import main
from asmcfg.render.indented import dumps
from tests.corpus import DATA


class Name(str, enum.Enum):
    """A str enum, as the record vocabulary is."""

    LOOP = "loop \u2028 header"


class Size(enum.IntEnum):
    ONE = 1


SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-(10**40), max_value=10**40)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(st.characters(codec=None)) | st.just(Name.LOOP)
           | st.just(Size.ONE) | st.just(-0.0))
KEYS = st.text() | st.integers() | st.floats(allow_nan=True) | st.booleans() | st.none() | st.just(Name.LOOP)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=40,
)


@pytest.mark.slow
@settings(max_examples=500)
@given(DOCUMENTS)
def test_any_document_is_written_as_the_standard_encoder_writes_it(document: Any) -> None:
    assert dumps(document) == json.dumps(document, indent=1)


@pytest.mark.parametrize("document", [object(), [1, {"a": {1, 2}}], {(1, 2): 3}, {"a": [b"bytes"]}])
def test_what_the_encoder_refuses_is_refused_alike(document: Any) -> None:
    with pytest.raises(TypeError) as standard:
        json.dumps(document, indent=1)
    with pytest.raises(TypeError) as ours:
        dumps(document)
    assert str(ours.value) == str(standard.value)


def test_floats_keep_their_shortest_text() -> None:
    assert dumps([0.1, 1e300, math.inf, -math.inf, 5e-324]) == "[\n 0.1,\n 1e+300,\n Infinity,\n -Infinity,\n 5e-324\n]"


REAL = [
    ("hsdis/jdk17-Tensor4D-print-hsdis-att.txt.gz", []),
    ("hsdis/jdk17-aarch64-Switches-print-hsdis.txt.gz", []),
    ("perfasm/jdk17-DevBench/perfasm-console.txt", []),
    ("logc/jdk17-Tensor4D-stdout.txt.gz", ["--log", str(DATA / "logc" / "jdk17-Tensor4D.xml.gz")]),
]


@pytest.mark.parametrize(("name", "extra"), REAL, ids=[name for name, _ in REAL])
def test_a_runs_json_is_what_the_standard_encoder_writes(name: str, extra: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    done = CliRunner().invoke(main, [str(DATA / name), "--all", "--json", str(out), "-q", *extra])
    assert done.exit_code == 0, done.output
    text = out.read_text(encoding="utf-8")
    document = json.loads(text)
    assert text == json.dumps(document, indent=1) + "\n"
    assert document["methods"] and all(method["blocks"] for method in document["methods"])


def test_a_diffs_json_is_what_the_standard_encoder_writes(tmp_path: Path) -> None:
    out = tmp_path / "diff.json"
    before, after = (DATA / "diff" / f"jdk17-Ring-{side}-nohsdis.txt" for side in ("before", "after"))
    done = CliRunner().invoke(main, ["diff", str(before), str(after), "--json", str(out), "-q"])
    assert done.exit_code == 0, done.output
    text = out.read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=1) + "\n"
