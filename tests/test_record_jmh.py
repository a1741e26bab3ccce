"""A JMH run recorded through its forks: each fork's JVM is its own recording in the folder, chosen with `--pid`.

tests/data/record/jmh-fork holds the two forks of one recording of tests/data/jmh (`SumBench.sumPositive`, JMH 1.37,
`-f 2`; see SOURCES.md): their LogCompilation logs and perf maps, and the run's whole `perf script` text. JMH
force-inlines the benchmark into its generated stub, whose C2 compilation holds the loop. The expected figures come
from benchmarks/perf_count.py (an independent counter, equal to the corpus's truth.json on its record runs) and
from reading the decoded code: the hottest block loads `a[i+3]` (`movl 0x1c(%r11,%rcx,4)`), tests its sign and
branches (`jle`), the last of the four elements of C2's x4-unrolled main loop, whose header loads `a[i]`.
"""

from __future__ import annotations

from typing import Any

import pytest
from corpus import DATA, json_methods, run_cli

FOLDER = DATA / "record" / "jmh-fork"
STUB = "asmcfg.jmh.jmh_generated.SumBench_sumPositive_jmhTest::sumPositive_avgt_jmhStub"
FORKS = {
    # pid: (the fork's samples, compile id of the stub's C2 compilation, its samples, those of its hottest block,
    #       first address of that block, first address of the header of the innermost loop holding it)
    2892: (3844, 499, 1993, 443, "0x7f97d4ef85be", "0x7f97d4ef8561"),
    3118: (3903, 535, 1886, 409, "0x7f61b0ef84be", "0x7f61b0ef8461"),
}


def block_samples(block: dict[str, Any]) -> int:
    """The samples of a block's instructions."""
    return sum(int(i.get("samples", 0)) for i in block["instructions"])


@pytest.mark.parametrize("pid", sorted(FORKS))
def test_each_fork_opens_on_the_benchmark_and_its_hottest_block_is_the_benchmark_loop(pid: int) -> None:
    total, compile_id, samples, hot_samples, hot_block, header = FORKS[pid]
    (method,) = json_methods(str(FOLDER), "--pid", str(pid))  # no selector: the fork's hottest compilation
    assert (method["compile_id"], method["name"]) == (compile_id, STUB)
    profile = method["profile"]
    assert profile["events"] == ["cpu-clock"] and profile["samples"] == samples
    assert round(profile["method_share"]["cpu-clock"], 2) == round(100 * samples / total, 2)
    blocks = {b["id"]: b for b in method["blocks"]}
    hottest = max(blocks.values(), key=lambda b: b["heat"]["cpu-clock"])
    assert hottest["start"] == hot_block and block_samples(hottest) == hot_samples
    assert round(hottest["heat"]["cpu-clock"], 2) == round(100 * hot_samples / total, 2)
    assert hottest["source"]["method"] == "asmcfg.jmh.SumBench::sumPositive"
    innermost = max((lp for lp in method["loops"] if hottest["id"] in lp["blocks"]), key=lambda lp: lp["depth"])
    assert blocks[innermost["header"]]["start"] == header
    assert "loop_header" in blocks[innermost["header"]]["tags"]
    assert (innermost["role"], innermost["unroll"], innermost["strip_mined_outer"]) == ("main", 4, False)


def test_without_pid_the_folder_reads_the_fork_with_the_most_samples_in_jit_code_and_says_so() -> None:
    code, _, err = run_cli(str(FOLDER), "--json", "-")
    assert code == 0, err
    assert "2 JVMs recorded (pids 2892, 3118): reading pid 2892" in err and "--pid chooses another" in err


def test_the_host_jvm_is_not_in_the_folder() -> None:
    code, _, err = run_cli(str(FOLDER), "--pid", "2784", "--json", "-", "--quiet")
    assert code != 0
    assert "--pid 2784: no such JVM here; the folder holds pids 2892, 3118" in err
