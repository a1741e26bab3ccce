"""Code the hex printer leaves unlabelled or that C1 rewrote: instance-method entries, padding runs, patching sites."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import run_cli

NOHSDIS = Path(__file__).parent / "data" / "nohsdis"
INST25 = NOHSDIS / "jdk25-Inst-print-nohsdis.txt"
INST17 = NOHSDIS / "jdk17-Inst-print-nohsdis.txt"


@cache
def compiled(path: Path) -> dict[int, dict[str, Any]]:
    """Every compilation of a dump as JSON, by compile id."""
    code, out, err = run_cli(str(path), "--all", "--json", "-", "-q")
    assert code == 0, err
    return {m["compile_id"]: m for m in json.loads(out)["methods"]}


def block_at(method: dict[str, Any], address: str) -> dict[str, Any]:
    return next(b for b in method["blocks"] if b["start"] == address)


@pytest.mark.parametrize(
    ("compile_id", "begin", "entry", "verified"),
    [
        # C2: `66 90`, then the check 2 bytes after [Instructions begin]: no [Entry Point] could be printed.
        (12, "0x7fa4bfec8080", "0x7fa4bfec8082", "0x7fa4bfec8090"),
        (13, "0x7fa4bfec8480", "0x7fa4bfec8482", "0x7fa4bfec8490"),
        # C1: two 9-byte `nopw`, then the check at +0x12.
        (9, "0x7fa4b8400300", "0x7fa4b8400312", "0x7fa4b8400320"),
        (10, "0x7fa4b8400600", "0x7fa4b8400612", "0x7fa4b8400620"),
    ],
)
def test_jdk25_instance_method_entry_is_found_from_the_inline_cache_check(
    compile_id: int, begin: str, entry: str, verified: str
) -> None:
    method = compiled(INST25)[compile_id]
    assert (method["entry"], method["verified_entry"]) == (entry, verified)
    check = block_at(method, entry)
    assert "entry" in check["tags"] and "ic_miss" in check["tags"]
    assert [i["mnemonic"] for i in check["instructions"]] == ["movl", "cmpl", "jne"]
    assert check["instructions"][0]["operands"] == "8(%rsi), %r10d"  # the receiver's klass
    exits = {e["to"] for e in method["edges"] if e["from"] == check["id"] and e["kind"] == "taken"}
    assert exits == {"Shared Runtime ic_miss_blob"}
    # The alignment nops before the entry are never executed: one padding block.
    leading = block_at(method, begin)
    assert leading["tags"] == ["padding"] and all(i["mnemonic"].startswith("nop") for i in leading["instructions"])


def test_static_and_c2_osr_compilations_keep_a_null_entry() -> None:
    osr = compiled(INST25)[11]  # C2 OSR of Inst::sum: no inline-cache check
    assert osr["osr_bci"] == 4 and osr["entry"] is None
    assert not any("entry" in b["tags"] for b in osr["blocks"])


def test_jdk17_prints_the_entry_label_and_the_same_check_is_tagged() -> None:
    method = compiled(INST17)[8]
    assert (method["entry"], method["verified_entry"]) == ("0x7f9638ec7ba0", "0x7f9638ec7bc0")
    check = block_at(method, "0x7f9638ec7ba0")
    assert [i["mnemonic"] for i in check["instructions"]] == ["movl", "movabsq", "addq", "cmpq", "jne"]
    assert {"entry", "ic_miss"} <= set(check["tags"])


@pytest.mark.parametrize("path", [INST25, INST17])
def test_a_run_of_padding_hlt_is_one_block(path: Path) -> None:
    for method in compiled(path).values():
        starts = {b["start"]: b for b in method["blocks"]}
        for block in method["blocks"]:
            mnemonics = [i["mnemonic"] for i in block["instructions"]]
            if mnemonics[-1] != "hlt":
                continue
            after = f"0x{int(block['instructions'][-1]['address'], 16) + 1:x}"
            # the run never goes on in the next block, unless a label or a branch target starts it there
            following = starts.get(after)
            assert following is None or following["instructions"][0]["mnemonic"] != "hlt" or following["tags"] != [
                "padding"
            ] or any(e["to"] == following["id"] for e in method["edges"]), (method["compile_id"], after)


def test_the_hlt_padding_of_a_small_c1_method_is_one_block() -> None:
    method = compiled(INST17)[6]  # C1 Inst::scaled: main code ends in 27 `f4` bytes (0x7f96314014c5-0x14e0)
    padding = block_at(method, "0x7f96314014c5")
    assert padding["tags"] == ["padding"] and padding["end"] == "0x7f96314014e0"
    assert [i["mnemonic"] for i in padding["instructions"]] == ["hlt"] * 27
    assert not any(e["to"] == padding["id"] for e in method["edges"])
    assert method["counts"]["blocks"] == 16  # was 43: one block per `hlt`
