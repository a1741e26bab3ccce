"""JMH perfasm: reading regions, heat on the graph, hot paths, and the overlay on a full PrintAssembly dump."""

from __future__ import annotations

import math
import re
from pathlib import Path

import networkx as nx
import pytest

from asmcfg.dialects import choose
from asmcfg.dialects.hsdis import reader as hsdis
from asmcfg.dialects.perfasm import reader as perfasm
from asmcfg.dialects.perfasm.profile import overlay, read_profiles, strip_columns
from asmcfg.dialects.perfasm.text import estimate
from asmcfg.errors import InputError
from asmcfg.facts.heat_report import cold_share, instructions_per_iteration, loop_heat, path_facts
from asmcfg.model import Analysis, Method
from asmcfg.run.pipeline import analyse_method
from asmcfg.sources.lines import read_lines

DATA = Path(__file__).parent / "data" / "perfasm"
JDK25 = DATA / "jdk25-DevBench" / "perfasm-console.txt"
JDK17 = DATA / "jdk17-DevBench" / "perfasm-console.txt"
SAVELOG = DATA / "jdk25-DevBench" / "perfasm-savelog-switchRun-compile568.log"
PUBLIC = DATA / "public"
FILES = sorted([JDK17, JDK25, *(p for p in PUBLIC.rglob("*") if p.is_file())])
MERGE_MARGIN, PRINT_BEFORE, PRINT_AFTER = 32, 10, 12
"""JMH's defaults: samples closer than `mergeMargin` bytes form one region, printed with `printMargin` lines
before the first sample and `printMargin + 2` after the last, so a region's margins can show other samples."""


def read(path: Path) -> tuple[perfasm.Reader, dict[str, Method], dict[str, Analysis]]:
    """The reader (regions, origins), the methods by key, and their analyses."""
    reader = perfasm.Reader(str(path))
    methods = list(reader.methods(read_lines(str(path))))
    by_key = {origin.key: method for origin, method in zip(reader.origins, methods, strict=True)}
    return reader, by_key, {key: analyse_method(method) for key, method in by_key.items()}


def heat(method: Method) -> dict[int, tuple[float, ...]]:
    """The method's measured heat (perfasm methods always carry a profile)."""
    assert method.profile is not None
    return method.profile.heat


def core(region: perfasm.Region) -> list[perfasm.RegionLine]:
    """The region's own samples: runs of samples closer than MERGE_MARGIN, minus runs lying in the margins."""
    runs: list[list[perfasm.RegionLine]] = []
    for line in sorted((x for x in region.lines if x.sampled), key=lambda x: x.address):
        if runs and line.address - runs[-1][-1].address <= MERGE_MARGIN:
            runs[-1].append(line)
        else:
            runs.append([line])

    def margin(line: perfasm.RegionLine) -> bool:
        return line.index < PRINT_BEFORE or line.index >= region.printed - PRINT_AFTER

    return [line for run in runs if not all(margin(x) for x in run) for line in run]


def tolerance(region: perfasm.Region, lines: int, event: int) -> float:
    """0.02 points, plus 3 sigma of the print rounding when one printed 0.01% stands for several samples."""
    samples = region.samples[event]
    per_step = samples / 10000
    if samples == 0 or per_step <= 1:
        return 0.02
    sigma = 100 / samples * math.sqrt((per_step**2 - 1) / 12)
    return 0.02 + 3 * sigma * math.sqrt(lines)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_region_totals_equal_block_heat(path: Path) -> None:
    """(a) The heat of the blocks holding a region's samples is the `<total for region N>` perfasm printed."""
    reader, methods, analyses = read(path)
    checked = 0
    for region in reader.regions:
        if region.total is None:
            continue
        own = core(region)
        mine = {(line.key, line.address) for line in own}
        found, foreign = [0.0] * len(region.total), [0.0] * len(region.total)
        for key in {line.key for line in own}:
            analysis, measured = analyses[key], heat(methods[key])
            instructions = methods[key].instructions
            for block in analysis.cfg.blocks:
                span = [instructions[i].address for i in range(block.start, block.end)]
                if any((key, a) in mine for a in span):
                    found = [f + v for f, v in zip(found, analysis.block_heat[block.id], strict=True)]
                    others = [measured[a] for a in span if a in measured and (key, a) not in mine]
                    foreign = [f + sum(o[e] for o in others) for e, f in enumerate(foreign)]
        for event, total in enumerate(region.total):
            assert found[event] - foreign[event] == pytest.approx(total, abs=tolerance(region, len(own), event))
        checked += 1
    assert checked or path.parent.name == "richardstartin__perfasm-visualiser"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_heat_lost_or_counted_twice(path: Path) -> None:
    """(a) Every sampled line lands in exactly one method with its value, and every block counts it once."""
    reader, methods, analyses = read(path)
    owners: dict[tuple[int, int], str] = {}
    for region in reader.regions:
        for line in region.lines:
            if line.sampled:
                assert heat(methods[line.key])[line.address] == line.heat
                assert owners.setdefault((region.run, line.address), line.key) == line.key
    assert sum(len(heat(m)) for m in methods.values()) == len(owners)
    for key, method in methods.items():
        profile = method.profile
        assert profile is not None and "partial" in method.features and method.dialect == "perfasm"
        addresses = [ins.address for ins in method.instructions]
        assert len(addresses) == len(set(addresses)) and set(profile.heat) <= set(addresses)
        for event in range(len(profile.events)):
            in_blocks = sum(h[event] for h in analyses[key].block_heat.values())
            assert in_blocks == pytest.approx(sum(v[event] for v in profile.heat.values()), abs=1e-9)


def test_sniff_and_reader_shape() -> None:
    """The dialect is chosen for perfasm output; runs, events, shares and merged regions are read."""
    assert choose(JDK25.read_text().splitlines()[:400]).name == "perfasm"
    assert perfasm.sniff(SAVELOG.read_text().splitlines()[:400]) == 0.0
    reader, methods, _ = read(PUBLIC / "arnaudroger__re2j-benchmark" / "reports__00_orig.exp1.asm")
    add = methods["run 1: com.google.re2j.Machine::add, version 494"]
    assert add.profile is not None and add.profile.events == ("cycles", "instructions")
    assert add.profile.region_totals == ((36.05, 34.92), (14.47, 10.46))
    assert add.profile.method_share == (51.48, 46.83)
    assert perfasm.GAP in {label for _, label in add.markers}
    assert [r.number for r in reader.regions] == [1, 2, 3] and reader.origins[0].run == 1


def test_percentages_are_read_back_to_sample_counts() -> None:
    """A printed figure stands for the sample counts that print as it; `0.00%` is at least one sample."""
    assert estimate(2.48, 887) == pytest.approx(100 * 22 / 887)
    assert estimate(0.0, 20375) == pytest.approx(100 / 20375)
    assert estimate(0.01, 50608) == pytest.approx(100 * 5 / 50608)
    assert estimate(12.75, None) == 12.75


def saved_method() -> Method:
    """Compile id 568 read from the saveLog slice of the same run as JDK25's switchRun console output."""
    reader = hsdis.Reader(str(SAVELOG))
    methods = [m for m in reader.methods(strip_columns(read_lines(str(SAVELOG)))) if m.header.compile_id == 568]
    assert len(methods) == 1 and methods[0].profile is None
    return methods[0]


def cycles(analysis: Analysis) -> set[int]:
    """Blocks on some cycle of the graph."""
    graph = nx.DiGraph((e.src, e.dst) for e in analysis.cfg.edges if isinstance(e.dst, int))
    return {b for part in nx.strongly_connected_components(graph) for b in part
            if len(part) > 1 or graph.has_edge(b, b)}


def test_overlay_on_the_saved_log_of_the_same_run() -> None:
    """(b) Every sampled address of the region is an instruction of the full method; the hottest block loops."""
    method, printed = saved_method(), {}
    for text in SAVELOG.read_text().splitlines():
        match = re.match(r"^\s*(\d+\.\d\d)%\s+(0x[0-9a-f]+):", text)
        if match:
            printed[int(match.group(2), 16)] = float(match.group(1))
    overlaid, report = overlay(method, read_profiles(str(JDK25)))
    assert report.matched and report.candidate is not None and report.candidate.header.compile_id == 568
    assert report.landed == report.sampled == len(report.candidate.profile.heat) == 68 and not report.missed
    assert overlaid.profile is not None and set(overlaid.profile.heat) == set(printed)
    assert set(printed) <= {ins.address for ins in overlaid.instructions}
    assert all(abs(overlaid.profile.heat[a][0] - v) <= 0.005 + 1e-9 for a, v in printed.items())
    analysis = analyse_method(overlaid)
    hottest = max(analysis.block_heat, key=lambda b: analysis.block_heat[b])
    assert hottest in cycles(analysis)
    assert report.heat[0] == pytest.approx(89.29, abs=0.02)


def test_overlay_hottest_block_is_in_a_natural_loop() -> None:
    """(b) The hottest block of the overlaid method is in a loop the loops pass finds."""
    overlaid, _ = overlay(saved_method(), read_profiles(str(JDK25)))
    analysis = analyse_method(overlaid)
    hottest = max(analysis.block_heat, key=lambda b: analysis.block_heat[b])
    assert any(hottest in loop.blocks for loop in analysis.loops)


def test_overlay_of_another_run_does_not_match() -> None:
    """(d) Profiles of other JVM runs land nowhere, and the report says so; the method is left as it was."""
    method = saved_method()
    for profiles in (read_profiles(str(JDK17)), [p for p in read_profiles(str(JDK25)) if p.run != 1]):
        same, report = overlay(method, profiles)
        assert same is method and same.profile is None
        assert not report.matched and report.landed == 0 and report.sampled > 0
        assert "different run" in report.message
    assert not overlay(method, [])[1].matched
    with pytest.raises(InputError, match="perfasm"):
        read_profiles(str(SAVELOG))


# (c) Expected values were derived by reading each listing (block bounds from branch targets, block heat by
# summing the printed column) before running the tool; the reasoning is in each comment.
PINNED = [
    # instanceof_type_check, no loop: the path starts at [Verified Entry Point] 0x…2c0; the `repnz scas` block
    # 0x…2f5 holds 0.90+2.77+20.67+33.18 = 57.52%; `jne` goes to 0x…30f (9.22%) not 0x…30b (0); `je` 0x…326 is
    # the uncommon trap, so 0x…311 (5.53%), whose `ja` leaves for a stub, then the `ret` block 0x…325.
    ("ionutbalosin__jvm-performance-benchmarks/results__jdk-17__x86_64__perfasm__openjdk-hotspot-vm__"
     "TypeCheckBenchmark.asm", 1, "TypeCheckBenchmark::instanceof_type_check", 0x7F73B0F3B2F5,
     [0x7F73B0F3B2C0, 0x7F73B0F3B2F5, 0x7F73B0F3B30F, 0x7F73B0F3B311, 0x7F73B0F3B325]),
    # popcnt: the unrolled body 0x…c60-0x…cb0 ends in `jl 0x…c60` and holds 93.73%; the strip-mined loop around
    # it (0x…c56, poll at 0x…cb9) adds 0.42%, so the path goes round the one-block inner loop.
    ("richardstartin__perfasm-visualiser/src__test__resources__perfasm_scalar_sample.txt", 1,
     "IntersectionCardinality_popcnt_jmhTest::popcnt_thrpt_jmhStub", 0x7FE418240C60, [0x7FE418240C60]),
    # manualCopy (JDK 9): pre/main/post loops each go round one block; the AVX2 main loop 0x…d32 holds 84.2%
    # of cycles, the vector post loop 2.5%, the others below 1%.
    ("gpanther__benchmark-arraycopy/perfasm2.txt", 2, "BenchmarkLongArrayCopyStandalone2::manualCopy",
     0x7F2C7FB99D32, [0x7F2C7FB99D32]),
    # Machine::step: `jmpq 0x…a8f9` enters a rotated loop whose back paths all fall through 0x…a8f2 into
    # 0x…a8f9, the header. Block 0x…a95a (3.10%) edges out 0x…a942 (2.96%). From the header the hottest
    # successors are 0x…a934 (0.47 > 0.36), 0x…a980 (0.43 > 0.31 at 0x…a810), 0x…a992 (0.13 > 0), 0x…a9e1
    # (0.20 > 0), then 0x…a8da and 0x…a8f2 back to the header.
    ("arnaudroger__re2j-benchmark/reports__00_orig.exp1.asm", 1, "Machine::step", 0x7F7F2121A95A,
     [0x7F7F2121A8F9, 0x7F7F2121A910, 0x7F7F2121A934, 0x7F7F2121A942, 0x7F7F2121A95A, 0x7F7F2121A980,
      0x7F7F2121A989, 0x7F7F2121A992, 0x7F7F2121A99B, 0x7F7F2121A9E1, 0x7F7F2121A8DA, 0x7F7F2121A8F2]),
]


@pytest.mark.parametrize(("name", "run", "method", "hottest", "path"), PINNED, ids=[p[0].split("_")[0] for p in PINNED])
def test_pinned_hottest_block_and_top_path(name: str, run: int, method: str, hottest: int, path: list[int]) -> None:
    """(c) One file per project: the hottest block and the hottest path."""
    reader, methods, analyses = read(PUBLIC / name)
    [key] = [o.key for o in reader.origins if o.run == run and methods[o.key].header.name.endswith(method)]
    analysis, instructions = analyses[key], methods[key].instructions
    start = {b.id: instructions[b.start].address for b in analysis.cfg.blocks}
    top = max(analysis.block_heat, key=lambda b: analysis.block_heat[b])
    assert start[top] == hottest
    assert [start[b] for b in analysis.hot_paths[0].blocks] == path
    assert 1 <= len(analysis.hot_paths) <= 3 and len({p.blocks for p in analysis.hot_paths}) == len(analysis.hot_paths)


def test_report_helpers_on_the_type_check_path() -> None:
    """Per-trip figures of the TypeCheck hot path, loop heat and cold share."""
    _, methods, analyses = read(PUBLIC / PINNED[0][0])
    [key] = [k for k, m in methods.items() if m.header.compile_id == 483]
    analysis, instructions = analyses[key], methods[key].instructions
    facts = path_facts(analysis, analysis.hot_paths[0])
    assert facts.instructions == instructions_per_iteration(analysis, analysis.hot_paths[0]) == 11 + 6 + 1 + 5 + 1
    assert [instructions[i].address for i in facts.polls] == [0x7F73B0F3B318]
    assert facts.calls == () and facts.traps == ()
    cold = cold_share(analysis)
    assert cold.heat == (0.0,) and cold.share == (0.0,)
    assert {instructions[analysis.cfg.blocks[b].start].address for b in cold.blocks} >= {0x7F73B0F3B326}
    stub = next(k for k, m in methods.items() if m.header.compile_id == 517)
    [loop] = analyses[stub].loops
    assert loop_heat(analyses[stub], loop)[0] == pytest.approx(13.62, abs=0.02)


def test_a_sampled_line_of_thousands_of_columns_keeps_only_as_many_as_a_run_can_name(tmp_path: Path) -> None:
    """Each event column is a figure on every instruction: a crafted line of 10,000 percentages would multiply the
    output (and the time to write it) by 10,000. The run keeps the first `perfasm.COLUMNS`."""
    lines = JDK17.read_text().split("\n")
    at = next(n for n, line in enumerate(lines) if line.startswith("   2.42%") and "0x00007f35d0efeb6a:" in line)
    address = lines[at].index("0x00007f35d0efeb6a:")
    lines[at] = "  4.35%" * 10_000 + " " + lines[at][address:]
    crafted = tmp_path / "columns.txt"
    crafted.write_text("\n".join(lines))
    methods = list(perfasm.Reader(str(crafted)).methods(read_lines(str(crafted))))
    widths = {len(m.profile.events) for m in methods if m.profile is not None}
    assert widths and max(widths) == perfasm.COLUMNS
    plain = {m.header.compile_id: m for m in perfasm.Reader(str(JDK17)).methods(read_lines(str(JDK17)))}
    sampled = next(m for m in methods if m.profile is not None and len(m.profile.events) == perfasm.COLUMNS)
    assert sampled.profile is not None
    before = plain[sampled.header.compile_id].profile
    assert before is not None and before.events == ("cpu-clock",)
    assert sampled.profile.events[0] == "cpu-clock"
    for address, heat in sampled.profile.heat.items():  # the first column as before, the others at most the line's
        assert heat[0] == before.heat.get(address, (0.0,))[0] or address == 0x7F35D0EFEB6A
        assert all(value in (0.0, 4.35) for value in heat[1:])
