"""The bundled blog example (mmpataki/tensor.benchmark realTest, JDK 24): what the post's figure shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus import json_methods, run_cli

EXAMPLE = Path(__file__).parent.parent / "examples" / "c2-compiled-realTest.S"


def _method(*extra: str) -> dict[str, Any]:
    (method,) = json_methods(str(EXAMPLE), *extra)
    return method


def _innermost(method: dict[str, Any]) -> list[dict[str, Any]]:
    loops = method["loops"]
    return [a for a in loops if not any(set(b["blocks"]) < set(a["blocks"]) for b in loops)]


def test_two_hot_loops_each_with_four_range_checks_to_range_check_traps() -> None:
    method = _method()
    assert method["name"] == "com.mpataki.Tensor4DBenchmark::realTest"
    inner = _innermost(method)
    assert len(inner) == 2
    blocks = {b["id"]: b for b in method["blocks"]}
    for loop in inner:
        members = set(loop["blocks"])
        checks = [e for e in method["edges"] if e["check"] == "range_check" and e["from"] in members]
        assert len(checks) == 4
        traps = [_trap_reached(method, blocks, e["to"]) for e in checks]
        assert [(t["reason"], t["action"], t["request"]) for t in traps] == [
            ("range_check", "make_not_entrant", "0xffffffe4")
        ] * 4
        assert sorted((t["bytecode"], t["bci"], t["line"]) for t in traps) == [
            ("aaload", 39, 25),
            ("aaload", 42, 25),
            ("aaload", 45, 25),
            ("faload", 48, 25),
        ]


def _trap_reached(method: dict[str, Any], blocks: dict[int, Any], start: int) -> dict[str, Any]:
    current = start
    for _ in range(10):
        if blocks[current]["trap"]:
            return blocks[current]["trap"]  # type: ignore[no-any-return]
        (edge,) = [e for e in method["edges"] if e["from"] == current and e["kind"] in ("fallthrough", "jump")]
        current = edge["to"]
    raise AssertionError("no trap on the failure path")


def test_twelve_range_check_branches_including_the_four_test_jbe_before_the_loops() -> None:
    method = _method()
    assert method["counts"]["range_check_branches"] == 12
    loop_blocks = {b for loop in method["loops"] for b in loop["blocks"]}
    outside = [e for e in method["edges"] if e["check"] == "range_check" and e["from"] not in loop_blocks]
    assert len(outside) == 4
    blocks = {b["id"]: b for b in method["blocks"]}
    for edge in outside:
        last = blocks[edge["from"]]["instructions"][-1]
        previous = blocks[edge["from"]]["instructions"][-2]
        assert last["mnemonic"] == "jbe" and previous["mnemonic"] == "test"


def test_jdk24_dump_decodes_the_loop_entry_trap_as_predicate_and_jdk25_table_as_age() -> None:
    method = _method()
    assert method["jdk"] == 24
    (trap,) = [b["trap"] for b in method["blocks"] if b["trap"] and b["trap"]["bci"] == 7]
    assert (trap["request"], trap["reason"], trap["line"]) == ("0xffffff76", "predicate", 20)
    forced = _method("--jdk", "25")
    (trap25,) = [b["trap"] for b in forced["blocks"] if b["trap"] and b["trap"]["bci"] == 7]
    assert trap25["reason"] == "age"
    assert forced["jdk_assumption"] == "--jdk"


def test_summary_shows_the_hot_loop_with_its_four_checks_and_the_add() -> None:
    code, _, err = run_cli(str(EXAMPLE), "--dot", "/dev/null")
    assert code == 0
    assert "Static hot path" in err
    method = _method()
    path = method["hot_path"]
    blocks = {b["id"]: b for b in method["blocks"]}
    loop = min(_innermost(method), key=lambda lp: lp["header"])
    assert set(loop["blocks"]) <= set(path)
    mnemonics = [i["mnemonic"] for b in path for i in blocks[b]["instructions"]]
    assert "vaddss" in mnemonics
    assert mnemonics.count("jae") == 4
    assert not any({"uncommon_trap", "range_check", "null_check"} & set(blocks[b]["tags"]) for b in path)



def test_the_readmes_first_command_runs_clean(tmp_path: Path) -> None:
    # binutils hsdis decodes the bytes between the constant pool and the code: `add    %al,(%rax)`, no address
    code, _, err = run_cli(str(EXAMPLE))
    assert code == 0
    assert "not understood" not in err
    text = EXAMPLE.read_text(encoding="utf-8")
    moved = tmp_path / "moved.S"
    moved.write_text(text.replace("add    %al,(%rax)\n", "", 1).replace(
        "[Verified Entry Point]\n", "[Verified Entry Point]\nadd    %al,(%rax)\n", 1), encoding="utf-8")
    code, _, err = run_cli(str(moved))
    assert code == 0 and "1 line inside the method was not understood" in err, "among the code it is not known"
