"""Every perfasm sample accounted for: unattributed shares, unprinted regions, saveLog percentages, ranking and
which compilation is shown, on real JMH 1.37 output (JDK 17 on an AVX-512 machine, JDK 25 DevBench)."""

from __future__ import annotations

import json
import lzma
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, json_methods, run_cli

from asmcfg.dialects.perfasm import reader as perfasm
from asmcfg.facts import heat_report
from asmcfg.run.pipeline import analyse_method
from asmcfg.sources.lines import read_lines

EDGE = DATA / "perfasm" / "jdk17-PerfasmEdge"
EVEX = EDGE / "evex-perfasm-console.txt"
TOOBIG = EDGE / "toobig-perfasm-console.txt"
TOOBIG_SAVELOG = EDGE / "toobig-perfasm-savelog-run.log.xz"
DEVBENCH = DATA / "perfasm" / "jdk25-DevBench"
CONSOLE25 = DEVBENCH / "perfasm-console.txt"
SAVELOG25 = DEVBENCH / "perfasm-savelog-switchRun.log.xz"
SLICE568 = DEVBENCH / "perfasm-savelog-switchRun-compile568.log"
CONSOLES = [EVEX, CONSOLE25, DATA / "perfasm" / "jdk17-DevBench" / "perfasm-console.txt",
            *sorted(p for p in (DATA / "perfasm" / "public").rglob("*") if p.is_file())]
_LINE = re.compile(r"^\s*(\d+\.\d\d)%\s+.*0x[0-9a-f]+:")


def printed_in_region(path: Path, number: int) -> tuple[float, float]:
    """(sum of the leading percentages of the region's lines, its printed total), read straight from the text."""
    inside, found, total = False, 0.0, 0.0
    for text in path.read_text().splitlines():
        if f"[Hottest Region {number}]" in text:
            inside = True
        elif inside and f"<total for region {number}>" in text:
            total = float(text.split("%")[0])
            break
        elif inside and (match := _LINE.match(text)):
            found += float(match.group(1))
    return found, total


def test_evex_misdecode_leaves_samples_on_no_line_and_names_the_cause() -> None:
    """Region 1 totals 92.01% but its lines print 31.84%: the rest is unattributed, blamed on EVEX."""
    lines, total = printed_in_region(EVEX, 1)
    assert total == 92.01 and lines == pytest.approx(31.84, abs=1e-6)
    (method,) = json_methods(str(EVEX))
    assert method["compile_id"] == 501
    missing = method["unattributed"]
    [region] = missing["regions"]
    assert region["region"] == 1 and region["total"] == {"cpu-clock": 92.01}
    # printed lines are read back to sample counts (1916 events): within half a sample per line of the print
    assert region["printed"]["cpu-clock"] == pytest.approx(lines, abs=15 * 100 / 1916 / 2)
    assert missing["share"]["cpu-clock"] == pytest.approx(total - lines, abs=0.3)
    assert missing["cause"] == "evex_misdecoded" and "capstone" in missing["advice"]
    blocks = sum(b["heat"]["cpu-clock"] for b in method["blocks"])
    assert missing["margins"] == {"cpu-clock": 0.0}
    assert blocks + missing["share"]["cpu-clock"] == pytest.approx(total, abs=1e-6)
    code, _, err = run_cli(str(EVEX), "--dot", os.devnull)
    assert code == 0
    assert "samples on no printed line (region totals minus the printed lines): 60." in err
    assert "likely cause: hsdis mis-decoded EVEX (AVX-512) instructions (4 `.byte 0x62` lines" in err


@pytest.mark.parametrize("path", CONSOLES, ids=lambda p: p.name)
def test_block_heat_plus_unattributed_equals_region_totals(path: Path) -> None:
    """For every compilation: heat of its blocks + its unattributed share = the sum of its region totals."""
    reader = perfasm.Reader(str(path))
    checked = 0
    for method in reader.methods(read_lines(str(path))):
        profile = method.profile
        assert profile is not None
        if not profile.regions:
            continue
        result = analyse_method(method)
        found = heat_report.unattributed(result)
        assert found is not None
        for event in range(len(profile.events)):
            totals = sum(r.total[event] for r in profile.regions)
            blocks = sum(h[event] for h in result.block_heat.values())
            rounding = 0.005 * (len(profile.heat) + len(profile.regions)) + 1e-6
            spilled = sum(r.spilled[event] for r in profile.regions)
            # old JMH (gpanther's runs) can print overlapping regions: lines inside a region's range whose samples
            # another region's total counts; they show as printed lines above the total
            over = sum(max(0.0, r.printed[event] + r.spilled[event] - r.total[event] - 0.005) for r in profile.regions)
            assert blocks + spilled + found.heat[event] - found.margins[event] - over == pytest.approx(
                totals, abs=rounding)
            for region, share in found.regions:
                assert share[event] >= 0
                assert share[event] == 0 or share[event] == pytest.approx(
                    region.total[event] - region.printed[event] - region.spilled[event])
        checked += 1
    assert checked or path.parent.name == "richardstartin__perfasm-visualiser"


def test_region_too_big_is_listed_with_its_share_and_how_to_get_it() -> None:
    code, out, _ = run_cli(str(TOOBIG), "--list")
    assert code == 0
    [row] = [line for line in out.splitlines() if "bench.BigBench::mix" in line]
    assert row.split()[:3] == ["c2", "485", "4"] and "not printed (1812 lines > 1000)" in row and "93.55%" in row
    code, _, err = run_cli(str(TOOBIG))
    assert code == 1 and err.count("\n") == 1
    assert "c2 id 485 tier 4 bench.BigBench::mix: not printed by perfasm" in err and "93.55% of the run" in err
    assert "tooBigThreshold=1813" in err and "saveLog" in err and "--compile-id 485" in err


def test_too_big_region_beside_a_printed_one(tmp_path: Path) -> None:
    """One console with two benchmarks (as JMH prints a run of several): the printed compilation is shown, the
    unprinted one is named in the summary and the JSON with its share."""
    both = tmp_path / "two-benchmarks.txt"
    both.write_text(TOOBIG.read_text() + EVEX.read_text())
    code, out, err = run_cli(str(both), "--json", "-")
    assert code == 0
    document = json.loads(out)
    assert [m["compile_id"] for m in document["methods"]] == [501]
    [missing] = document["not_printed"]
    assert missing["compile_id"] == 485 and missing["share"] == {"cpu-clock": 93.55}
    assert missing["lines"] == 1812 and missing["threshold"] == 1000 and "tooBigThreshold" in missing["advice"]
    assert "c2 id 485 tier 4 bench.BigBench::mix: not printed by perfasm" in err


@pytest.mark.slow
def test_too_big_compilation_from_its_savelog_with_the_profile() -> None:
    """`--profile` with the saveLog: the run's hottest compilation, heat from the saveLog's own lines."""
    code, _, err = run_cli(str(TOOBIG_SAVELOG), "--profile", str(TOOBIG), "--dot", os.devnull)
    assert code == 0 and "perfasm printed no line of compile id 485 (region too big: 1812 lines)" in err
    (method,) = json_methods(str(TOOBIG_SAVELOG), "--profile", str(TOOBIG))
    assert method["compile_id"] == 485 and method["counts"]["instructions"] == 1360
    assert method["profile"]["events"] == ["cpu-clock"] and method["profile"]["method_share"] == {"cpu-clock": 93.55}
    sampled = 0.0
    with lzma.open(TOOBIG_SAVELOG, "rt") as text:
        inside = False
        for line in text:
            inside = inside or "<print_nmethod compile_id='485'" in line
            if inside and (match := _LINE.match(line)):
                sampled += float(match.group(1))
            if inside and "</print_nmethod>" in line:
                break
    blocks = sum(b["heat"]["cpu-clock"] for b in method["blocks"])
    assert blocks == pytest.approx(sampled, abs=1e-6)
    assert blocks + method["unattributed"]["share"]["cpu-clock"] == pytest.approx(93.55, abs=1e-6)


@pytest.mark.slow
def test_savelog_percentages_are_heat_without_profile() -> None:
    """Compile 568 of the JDK 25 DevBench saveLog: 369 instructions and 5 loops; the printed percentages are heat."""
    (method,) = json_methods(str(SAVELOG25), "--compile-id", "568")
    assert method["counts"]["instructions"] == 369 and len(method["loops"]) == 5
    assert method["skipped_lines"] == []
    printed = {int(m.group(2), 16): float(m.group(1)) for text in SLICE568.read_text().splitlines()
               if (m := re.match(r"^\s*(\d+\.\d\d)%\s+(0x[0-9a-f]+):", text))}
    assert len(printed) == 68
    heat = {int(i["address"], 16): i["heat"]["column 1"] for b in method["blocks"] for i in b["instructions"]
            if "heat" in i}
    assert heat == printed
    assert method["hot_paths"] and method["hot_paths"][0]["first"] == "loop"


def test_hot_paths_first_goes_round_the_loop_then_by_share() -> None:
    methods = json_methods(str(CONSOLE25), "--all", "--paths", "4")
    for method in methods:
        paths = method["hot_paths"]
        assert paths[0]["first"] in ("loop", "entry") and all(p["first"] is None for p in paths[1:])
        shares = [p["share"]["cpu-clock"] for p in paths[1:]]
        assert shares == sorted(shares, reverse=True)
    _, _, err = run_cli(str(CONSOLE25), "--method", "vecAddF*", "--dot", os.devnull)
    assert "1 goes round the hottest loop" in err and "│ 1 loop │ 89.68% │ B5 B6 B7 " in err


def test_perfasm_default_is_the_hottest_and_list_shows_shares() -> None:
    code, out, err = run_cli(str(CONSOLE25), "--dot", os.devnull)
    assert code == 0 and "chose the hottest (97.09% of its run) of 3 compilations in the input" in err
    assert "c2 id 542 tier 4 bench.jmh_generated.DevBench_tensorSum4_jmhTest::tensorSum4_avgt_jmhStub" in err
    _, out, _ = run_cli(str(CONSOLE25), "--list")
    rows = {line.split()[1]: line.split()[-3] for line in out.splitlines()[1:]}  # share, run, method
    assert rows == {"568": "89.29%", "542": "97.09%", "566": "94.80%"}


def test_selector_matches_inlined_methods_and_suggests_by_substring() -> None:
    (method,) = json_methods(str(CONSOLE25), "--method", "switchRun")
    assert method["compile_id"] == 568
    _, _, err = run_cli(str(CONSOLE25), "--method", "switchRun", "--dot", os.devnull)
    assert "no compilation is named 'switchRun': chose among those that inline bench.DevBench::switchRun" in err
    _, out, _ = run_cli(str(CONSOLE25), "--method", "switchRun", "--list")
    assert "switchRun_avgt_jmhStub (inlines bench.DevBench::switchRun)" in out and len(out.splitlines()) == 2
    code, _, err = run_cli(str(CONSOLE25), "--method", "switchRu")
    assert code == 1 and "3 compilations in input" in err
    assert "did you mean 'bench.jmh_generated.DevBench_switchRun_jmhTest::switchRun_avgt_jmhStub'" in err


def test_glob_over_two_methods_says_so_and_the_readme_example_renders_sum4(tmp_path: Path) -> None:
    tensor = DATA / "hsdis" / "jdk17-Tensor4D-print-hsdis-att.txt.gz"
    _, _, err = run_cli(str(tensor), "--method", "Tensor4D::sum*", "--dot", os.devnull)
    assert "chose the last C2 of 6 matching compilations (of 2 methods: Tensor4D::sum4, Tensor4D::sumDiag" in err
    svg = tmp_path / "sum4.svg"
    code, _, err = run_cli(str(tensor), "--method", "Tensor4D::sum4", "--svg", str(svg))
    assert code == 0 and svg.stat().st_size > 0
    assert "chose the last C2 of 4 matching compilations; 2 other compilations in the input" in err
    assert f"wrote {svg}: c2 id 9 tier 4 Tensor4D::sum4 (97 bytes), 49 blocks" in err


def test_summary_lines_are_whole_on_a_pipe() -> None:
    done = subprocess.run([sys.executable, "-m", "asmcfg", str(EVEX), "--dot", os.devnull], capture_output=True,
                          text=True, timeout=120, env=_env())
    first = next(line for line in done.stderr.splitlines() if line.startswith("c2 id 501"))
    assert first.endswith("JDK 17 (named in the input)") and "120 instructions, 32 blocks, 3 loops" in first
    advice = [line for line in done.stderr.splitlines() if line.startswith("likely cause")]
    assert len(advice) == 1 and advice[0].endswith("that same run")


def test_stdin_on_a_terminal_says_it_is_reading() -> None:
    leader, follower = pty.openpty()
    child = subprocess.Popen([sys.executable, "-m", "asmcfg"], stdin=follower, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=_env())
    os.close(follower)
    try:
        assert child.stderr is not None
        ready, _, _ = select.select([child.stderr], [], [], 60)
        assert ready
        notice = child.stderr.readline().decode()
        assert notice.startswith("asmcfg: reading HotSpot output from standard input") and "Ctrl-D" in notice
        os.write(leader, b"\x04")
        assert child.wait(timeout=60) == 1
    finally:
        os.close(leader)
        if child.poll() is None:
            child.kill()


def _env() -> dict[str, Any]:
    root = str(Path(__file__).parent.parent)
    return {**os.environ, "PYTHONPATH": root}
