"""Code the hex printer leaves unlabelled or that C1 rewrote: instance-method entries, padding runs, patching sites."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from asmcfg.cfg.build import MID_INSTRUCTION
from asmcfg.dialects.machcode import c1patch
from asmcfg.run.pipeline import analyse_method, open_input
from tests.corpus import run_cli

NOHSDIS = Path(__file__).parent / "data" / "nohsdis"
INST25 = NOHSDIS / "jdk25-Inst-nohsdis.txt"
INST17 = NOHSDIS / "jdk17-Inst-nohsdis.txt"


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


PATCH17 = NOHSDIS / "jdk17-Patch-nohsdis.txt"
PATCH25 = NOHSDIS / "jdk25-Patch-nohsdis.txt"


def listing(method: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["address"]: i for b in method["blocks"] for i in b["instructions"]}


def test_c1_patching_sites_are_decoded_as_their_instructions_and_the_code_after_them_is_real() -> None:
    method = compiled(PATCH17)[5]  # C1 Patch::run: `new Late`, `late.x`, `Late.COUNT`, `instanceof/checkcast Later`
    code = listing(method)
    # `new Late`: a 10-byte `movabs $klass, %rdx` whose first 5 bytes are `jmp` to the load_klass_patching stub;
    # the real instructions after it: the jmp to the allocation slow path, then the moves before <init>.
    site = code["0x7f00b8efdc00"]
    assert (site["mnemonic"], site["operands"], site["patching_stub"]) == ("movabsq", "$0, %rdx", "0x7f00b8efdd79")
    after = [code[a]["mnemonic"] for a in ("0x7f00b8efdc0a", "0x7f00b8efdc0f", "0x7f00b8efdc12", "0x7f00b8efdc17")]
    assert after == ["jmp", "movq", "movq", "callq"]
    # `late.x`: the 6-byte field load the access_field_patching stub copied, with its implicit null check
    field = code["0x7f00b8efdc28"]
    assert (field["mnemonic"], field["operands"]) == ("movl", "(%rax), %esi")
    assert field["implicit_exception"] == "0x7f00b8efdd90"
    assert code["0x7f00b8efdc2e"]["mnemonic"] == "nop"
    # `Late.COUNT`: the mirror load (movabs) and then the alignment nop and the static field load after it
    assert [code[a]["mnemonic"] for a in ("0x7f00b8efdc30", "0x7f00b8efdc3a", "0x7f00b8efdc40")] == [
        "movabsq", "nopw", "movl"]
    assert sum(1 for i in code.values() if "patching_stub" in i) == 7


@pytest.mark.parametrize(("path", "compile_id"), [(PATCH17, 5), (PATCH25, 7)])
def test_c1_patching_makes_no_phantom_code_branches_or_loops(path: Path, compile_id: int) -> None:
    method = compiled(path)[compile_id]
    code = listing(method)
    # decoding straight through the dead bytes gave `addb %al,(%rax)` runs, branches into the middle of
    # instructions and a loop from a patching stub's jump back to its site
    assert not [a for a, i in code.items() if i["mnemonic"] in ("addb", ".byte")]
    assert not [e for e in method["edges"] if isinstance(e["to"], str) and e["to"].startswith(("0x", "into"))]
    assert method["loops"] == []
    # every stub jumps back to its site, which is a real block start
    starts = {b["start"] for b in method["blocks"]}
    assert {a for a, i in code.items() if "patching_stub" in i} <= starts


def test_jdk25_c1_patching_sites() -> None:
    code = listing(compiled(PATCH25)[7])
    sites = {a: (i["mnemonic"], i["operands"]) for a, i in code.items() if "patching_stub" in i}
    assert sites == {
        "0x7fc57451ce30": ("movabsq", "$0, %rdx"),  # new Late
        "0x7fc57451ce60": ("movl", "(%rax), %esi"),  # late.x
        "0x7fc57451ce68": ("movabsq", "$0, %rax"),  # Late's mirror
        "0x7fc57451ce78": ("movl", "(%rax), %eax"),  # Late.COUNT
        "0x7fc57451ce90": ("movabsq", "$0, %rcx"),  # instanceof Later
        "0x7fc57451cef8": ("movabsq", "$0, %rcx"),  # checkcast Later
        "0x7fc57451cf50": ("movl", "(%rax), %edi"),  # ((Later) o).y
    }


def test_a_branch_into_the_middle_of_an_instruction_is_named_so(monkeypatch: pytest.MonkeyPatch) -> None:
    # Decoded straight through its patching sites (no resynchronisation), the JDK 25 Patch::run hex has a
    # phantom `je` from dead bytes into the middle of the real `jmp` that follows the `new Late` site.
    monkeypatch.setattr(c1patch, "sites", lambda regions: {})
    method = next(iter(open_input(str(PATCH25)).methods))
    result = analyse_method(method)
    named = [e.dst for e in result.cfg.edges if isinstance(e.dst, str) and e.dst.startswith(MID_INSTRUCTION)]
    assert named and all(re.fullmatch(r".* 0x[0-9a-f]+ \(byte \d+ of 0x[0-9a-f]+\)", n) for n in named)
    assert not [e.dst for e in result.cfg.edges if isinstance(e.dst, str) and e.dst.startswith("0x")]
