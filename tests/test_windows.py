"""Windows hsdis output (JDK 7): MASM-style Intel syntax, `25b4d0ah` numbers and branch targets without `0x`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import run_cli

PUBLIC = Path(__file__).parent / "data" / "public"
POST = "hushi55__hushi55.github.io___posts__code__2015-01-05-volatile-assembly.md"


def method(name: str) -> dict[str, Any]:
    code, out, err = run_cli(str(PUBLIC / f"{POST}--{name}.txt"), "--json", "-", "-q")
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)["methods"][0]
    return document


def block_at(doc: dict[str, Any], address: str) -> dict[str, Any]:
    return next(b for b in doc["blocks"] if b["start"] == address)


@pytest.mark.parametrize(
    ("name", "isa", "entry", "verified", "header", "back_edge_from"),
    [
        # `jmp 25b4cffh` closes the spin loop on the non-volatile `stop` (the read was hoisted out of it)
        ("amd64-plain", "x86_64", "0x25b4cc0", "0x25b4ce0", "0x25b4cff", "0x25b4d08"),
        # `je 25e5880h` closes the loop that re-reads the volatile `stop` every iteration
        ("amd64-volatile", "x86_64", "0x25e5840", "0x25e5860", "0x25e5880", "0x25e5891"),
        ("i386-plain", "x86_32", "0x193bf80", "0x193bf8c", "0x193bfa6", "0x193bfad"),
    ],
)
def test_masm_branches_resolve_and_the_loop_is_found(
    name: str, isa: str, entry: str, verified: str, header: str, back_edge_from: str
) -> None:
    doc = method(name)
    assert (doc["isa"], doc["syntax"]) == (isa, "intel") and doc["name"].endswith(".VisibilityTest::run")
    assert (doc["entry"], doc["verified_entry"]) == (entry, verified)
    [loop] = doc["loops"]
    head = block_at(doc, header)
    assert loop["header"] == head["id"] and loop["has_poll"] and "loop_header" in head["tags"]
    [latch] = [b for b in doc["blocks"] if b["id"] in loop["back_edges"]]
    assert latch["instructions"][-1]["address"] == back_edge_from
    back = [e for e in doc["edges"] if e["from"] == latch["id"] and e["to"] == head["id"]]
    assert back and back[0]["kind"] in ("jump", "taken")
    # every branch inside the method reaches a block; none ends at an `unresolved jump table`
    assert not [e for e in doc["edges"] if e["to"] == "unresolved jump table"]
    # the JDK 7 header line `Argument 0 is unknown.RIP: 0x… Code size: 0x…` is understood
    assert not [s for s in doc["skipped_lines"] if "Argument 0" in s["text"]]


def test_masm_exit_check_branches_to_the_printing_code() -> None:
    doc = method("amd64-plain")
    check = block_at(doc, "0x25b4ce0")
    taken = [e["to"] for e in doc["edges"] if e["from"] == check["id"] and e["kind"] == "taken"]
    assert taken == [block_at(doc, "0x25b4d0a")["id"]]  # `jne 25b4d0ah`: `stop` already set
    ic = [e["to"] for e in doc["edges"] if e["from"] == block_at(doc, "0x25b4cc0")["id"] and e["kind"] == "taken"]
    assert ic == ["runtime_call"]  # `jne 2587a60h ; {runtime_call}`: out of the method, to the ic-miss stub
