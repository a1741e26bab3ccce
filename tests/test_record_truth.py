"""Samples of real `perf` recordings binned to compilations exactly as an independent counter binned them.

Each folder of `tests/data/record/` is a run of `../shared/corpus/record/runs/` (a Java program recorded under
`perf record -e cpu-clock -k CLOCK_REALTIME` with a LogCompilation log holding its `[MachCode]` hex), and its
`truth.json.xz` what the corpus's own binning script counted: samples per compilation and per instruction
address, per place (compiled code, other JIT-made code, libjvm.so, kernel, libraries) and per thread. The
JavacLoop run has 1,563 pairs of compilations that held the same addresses at different times.
"""

from __future__ import annotations

import json
import lzma
from pathlib import Path
from typing import Any

import pytest

from asmcfg.cli import main
from asmcfg.dialects.perfscript.heat import PerfHeat, read_perf_heat

RECORD = Path(__file__).parent / "data" / "record"
RUNS = sorted(p.parent.name for p in RECORD.glob("*/truth.json.xz"))
BY_RUN = [pytest.param(run, marks=pytest.mark.slow if "Javac" in run else ()) for run in RUNS]
"""The runs, the javac one (seconds each) among the slow tests."""
"""The folders copied from the corpus, each with its truth (the others are recordings tested on their own)."""


def _truth(run: str) -> dict[str, Any]:
    with lzma.open(RECORD / run / "truth.json.xz") as f:
        data: dict[str, Any] = json.load(f)
    return data


def _heat(run: str) -> PerfHeat:
    folder = RECORD / run
    (log,) = folder.glob("jvmpid*.xml.xz")
    return read_perf_heat(str(folder / "perf-script.txt.xz"), str(log))


def _ips(entry: dict[str, Any]) -> dict[int, int]:
    return {int(address, 16): count for address, count in entry["ips"].items()}


def test_four_runs_are_here() -> None:
    assert RUNS == ["jdk17-HotLoop", "jdk17-JavacLoop-c2print", "jdk17-Recompile", "jdk25-HotLoop"]


@pytest.mark.parametrize("run", BY_RUN)
def test_samples_per_compilation_and_instruction(run: str) -> None:
    truth, heat = _truth(run), _heat(run)
    mine = heat.found.compilations
    assert sorted(mine) == sorted(n["compile_id"] for n in truth["nmethods"])
    for entry in truth["nmethods"]:
        taken = mine[entry["compile_id"]]
        assert taken.total == entry["samples"], entry["compile_id"]
        assert {ip: sum(c.values()) for ip, c in taken.ips.items()} == _ips(entry), entry["compile_id"]
        assert taken.compiled.record.compiler.value == entry["compiler"] or entry["compiler"] == ""


@pytest.mark.parametrize("run", BY_RUN)
def test_every_other_sample_is_counted_by_place_and_thread(run: str) -> None:
    truth, heat = _truth(run), _heat(run)
    found = heat.found
    assert found.pid == truth["log"]["pid"]
    assert found.total == truth["perf"]["samples_of_process"]
    assert dict(found.process) == truth["perf"]["events"]
    assert dict(found.places) == truth["categories"]
    assert dict(found.code_cache) == truth["code_cache_not_nmethod"]
    assert {(t["tid"], t["comm"]): t["samples"] for t in truth["threads"]} == {
        key: sum(thread.places.values()) for key, thread in found.threads.items()
    }
    assert found.reused == truth["address_reuse"]["samples_in_reused_ranges"]
    assert heat.unparsed == truth["perf"]["unparsed_lines"]


@pytest.mark.slow
def test_reused_addresses_go_to_the_compilation_of_their_time() -> None:
    """In JavacLoop, code freed after `make_not_entrant` was reused: where both the older and the newer occupant
    of a range took samples inside it, each keeps the samples of its own time, as the truth counts them."""
    truth, heat = _truth("jdk17-JavacLoop-c2print"), _heat("jdk17-JavacLoop-c2print")
    pairs = truth["address_reuse"]["overlapping_pairs"]
    assert len(pairs) == 1563
    expected = {n["compile_id"]: _ips(n) for n in truth["nmethods"]}
    split = 0
    for pair in pairs:
        low = max(int(pair["older_range"][0], 16), int(pair["newer_range"][0], 16))
        high = min(int(pair["older_range"][1], 16), int(pair["newer_range"][1], 16))
        inside = [
            {ip: sum(c.values()) for ip, c in heat.found.compilations[cid].ips.items() if low <= ip < high}
            for cid in (pair["older"], pair["newer"]) if cid in heat.found.compilations
        ]
        if len(inside) == 2 and all(inside):
            split += 1
            for cid, mine in zip((pair["older"], pair["newer"]), inside, strict=True):
                assert mine == {ip: n for ip, n in expected[cid].items() if low <= ip < high}
    assert split >= 1


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS)
def test_the_folder_read_as_input_shows_the_same_samples(run: str, tmp_path: Path) -> None:
    """`asmcfg DIR --jsonl`: every printed compilation that took samples carries them, per instruction, and every
    sampled address is the start of an instruction asmcfg decoded."""
    out = tmp_path / "all.jsonl"
    with pytest.raises(SystemExit) as done:
        main([str(RECORD / run), "--jsonl", str(out), "-q"])
    assert done.value.code == 0
    truth = {n["compile_id"]: n for n in _truth(run)["nmethods"]}
    shown = 0
    for line in out.read_text().splitlines():
        method = json.loads(line)
        cid = method["compile_id"]
        if cid not in truth or not truth[cid]["printed"]:
            assert "profile" not in method or method["profile"] is None
            continue
        shown += 1
        assert method["profile"]["samples"] == truth[cid]["samples"]
        counted = {int(i["address"], 16): i["samples"] for b in method["blocks"] for i in b["instructions"]
                   if "samples" in i}
        assert counted == _ips(truth[cid])
    assert shown == sum(1 for n in truth.values() if n["printed"])
