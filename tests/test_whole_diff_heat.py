"""The whole-log diff of two `asmcfg record` folders chooses each side's compilation as the single run does, and
names both runs' heat.

The folders are real recordings (`tests/data/record/`, see `test_record_truth.py`). Some methods were compiled
more than once under one key (method, OSR bci, compiler) and the hottest is not the last: in JDK 17 HotLoop the
OSR compilations of `HotLoop::run` @6 (id 15 took 2 samples, the later id 17 none); in JDK 17 Recompile those of
`Recompile::osrLoop` @5 (id 7 took 15.01% of the JVM's samples, the later id 166 7.53%; `asmcfg RUN --method
Recompile::osrLoop --compiler c2` chooses id 7) and of `Recompile::work` @14 (ids 86 and 157 none, 163 some).
"""

from __future__ import annotations

import fnmatch
import functools
import io
import json
from collections import defaultdict
from typing import Any

import pytest
from corpus import DATA, json_methods, run_cli
from rich.console import Console

import asmcfg
from asmcfg.compare.wholeshow import write_index, write_tables
from asmcfg.run.diff import DiffOptions
from asmcfg.run.wholediff import compare

RECORD = DATA / "record"
DIFFS = [("jdk17-HotLoop", "jdk25-HotLoop"), ("jdk25-HotLoop", "jdk17-Recompile")]
"""Two runs of one program on JDK 17 and 25; then two programs, whose JDK methods pair and whose own are each
one run's (the Recompile ones on the new side)."""

Key = tuple[str, str, int | None]


def _share(method: dict[str, Any]) -> float | None:
    """The share of its JVM's samples the single run reports for a compilation, None when none landed on it."""
    profile = method.get("profile")
    if profile is None:
        return None
    share: float = profile["method_share"][profile["events"][0]]
    return share


@functools.cache
def _every(run: str) -> list[dict[str, Any]]:
    """Every compilation of the run as the single run reports it (`asmcfg RUN --all --json -`), in input order."""
    return json_methods(str(RECORD / run), "--all")


@functools.cache
def _whole(old: str, new: str) -> dict[str, Any]:
    code, out, err = run_cli("diff", str(RECORD / old), str(RECORD / new), "--json", "-", "-q")
    assert code == 0, err
    found: dict[str, Any] = json.loads(out)
    assert found["mode"] == "whole_log"
    return found


def _key(row: dict[str, Any]) -> Key:
    return row["method"] if "method" in row else row["name"], row["compiler"], row["osr_bci"]


def _candidates(run: str) -> dict[Key, list[dict[str, Any]]]:
    found: dict[Key, list[dict[str, Any]]] = defaultdict(list)
    for method in _every(run):
        found[_key(method)].append(method)
    return found


def _chosen(found: dict[str, Any]) -> tuple[dict[Key, tuple[int, float | None]], dict[Key, tuple[int, float | None]]]:
    """Of each key, the compile id and heat the diff gives each side (its pairs, then its methods of one log)."""
    old = {_key(p): (p["old_compile_id"], p["old_heat"]) for p in found["pairs"]}
    new = {_key(p): (p["new_compile_id"], p["new_heat"]) for p in found["pairs"]}
    old.update({_key(m): (m["compile_id"], m["heat"]) for m in found["only_old"]})
    new.update({_key(m): (m["compile_id"], m["heat"]) for m in found["only_new"]})
    return old, new


def _rounded(heat: float | None) -> float | None:
    return None if heat is None else round(heat, 4)  # as the single run's JSON rounds a share


@pytest.mark.slow
@pytest.mark.parametrize(("old", "new"), DIFFS)
def test_each_side_is_the_compilation_the_single_run_chooses(old: str, new: str) -> None:
    """Of each key, each side's compilation is the one the single run's rule chooses among those it reports (the
    hottest, the first of equals; the last when none took a sample), with the share the single run reports; and
    where `--method M --compiler C` leaves one key's compilations, that run's own choice."""
    found = _whole(old, new)
    for run, chosen in zip((old, new), _chosen(found), strict=True):
        candidates = _candidates(run)
        assert set(chosen) == set(candidates)
        for key, (compile_id, heat) in chosen.items():
            measured = [m for m in candidates[key] if _share(m) is not None]
            rule = max(measured, key=lambda m: _share(m) or 0.0) if measured else candidates[key][-1]
            assert compile_id == rule["compile_id"], (run, key)
            assert _rounded(heat) == _share(rule), (run, key)
        named: dict[tuple[str, str], list[Key]] = defaultdict(list)
        for key in candidates:
            named[key[0], key[1]].append(key)
        for (method, compiler), keys in named.items():
            if compiler not in ("c1", "c2") or sum(len(candidates[k]) for k in keys) < 2:
                continue
            pattern = method.replace("[", "[[]").replace("*", "[*]").replace("?", "[?]")
            assert fnmatch.fnmatchcase(method, pattern)
            (single,) = json_methods(str(RECORD / run), "--method", pattern, "--compiler", compiler)
            compile_id, heat = chosen[_key(single)]
            assert (compile_id, _rounded(heat)) == (single["compile_id"], _share(single)), (run, method, compiler)


@pytest.mark.slow
def test_both_heats_are_named_and_the_larger_ranks() -> None:
    found = _whole(*DIFFS[0])
    assert found["ranked_by"] == "heat"
    pairs = found["pairs"]
    for row in pairs:
        heats = [h for h in (row["old_heat"], row["new_heat"]) if h is not None]
        assert row["heat"] == (max(heats) if heats else None)
    ranked = [row["heat"] or 0.0 for row in pairs]
    assert ranked == sorted(ranked, reverse=True)
    # HotLoop::run took 21.04% of JDK 17's samples (id 16) and 23.71% of JDK 25's (id 20): the pair's heat is 25's
    run = pairs[0]
    assert (run["method"], run["old_compile_id"], run["new_compile_id"]) == ("HotLoop::run", 16, 20)
    assert (round(run["old_heat"], 2), round(run["new_heat"], 2)) == (21.04, 23.71)
    # the OSR pair: JDK 17's id 15 (2 samples, 0.01%; not the later id 17, which took none), JDK 25's id 19 (0.02%)
    (osr,) = [p for p in pairs if _key(p) == ("HotLoop::run", "c2", 6)]
    assert (osr["old_compile_id"], osr["new_compile_id"]) == (15, 19)
    assert (round(osr["old_heat"], 4), round(osr["new_heat"], 4)) == (0.0136, 0.0211)


@pytest.mark.slow
def test_the_table_and_the_index_page_show_both_heats() -> None:
    old, new = (str(RECORD / run) for run in DIFFS[0])
    code, _, err = run_cli("diff", old, new)
    assert code == 0, err
    header = next(line for line in err.splitlines() if "old id" in line)
    assert [c.strip() for c in header.strip("┃ ").split("┃")][5:8] == ["new id", "old heat %", "new heat %"]
    first = next(line for line in err.splitlines() if "│ 1 " in line)
    assert [c.strip() for c in first.strip("│ ").split("│")][1:8] == [
        "HotLoop::run", "c2", "", "16", "20", "21.04", "23.71"]
    osr = next(line for line in err.splitlines() if "HotLoop::run" in line and "│ 6 " in line)
    assert [c.strip() for c in osr.strip("│ ").split("│")][4:8] == ["15", "19", "0.01", "0.02"]
    # the methods only one run compiled took no sample: their tables have no heat column
    assert err.count("┃ main code B ┃\n") == 2 and "heat %" not in err[err.index("Only in"):]
    whole = compare(DiffOptions(old, new))
    out = io.StringIO()
    write_index(whole.rows, whole.only, whole.names, out)
    page = out.getvalue()
    assert "<th>old id</th><th>new id</th><th>old heat %</th><th>new heat %</th>" in page
    assert "<td>16</td><td>20</td><td>21.04</td><td>23.71</td>" in page


@pytest.mark.slow
def test_the_methods_of_one_run_show_their_heat_when_measured() -> None:
    """The methods only one run compiled rank hottest first, their heat shown: JDK 25 HotLoop's HotLoop::run (id
    20, 23.71% of its JVM's samples) first, JDK 17 Recompile's Recompile::work (the last of its three C2
    compilations, id 165, 29.87%) first."""
    whole = compare(DiffOptions(str(RECORD / DIFFS[1][0]), str(RECORD / DIFFS[1][1])))
    text = io.StringIO()
    write_tables(whole.rows, whole.only, whole.names, Console(file=text, width=300, no_color=True))
    tables = [table.splitlines() for table in text.getvalue().split("Only in ")[1:]]
    for table, side, first in zip(tables, DIFFS[1], (["HotLoop::run", "c2", "", "20"],
                                                      ["Recompile::work", "c2", "", "165"]), strict=True):
        assert [c.strip() for c in table[2].strip("┃ ").split("┃")] == [
            "method", "compiler", "OSR", "id", "main code B", "heat %"]
        row = next(r for r in asmcfg.open(str(RECORD / side)).compilations() if r.compile_id == int(first[3]))
        assert [c.strip() for c in table[4].strip("│ ").split("│")] == [*first, str(row.code_size),
                                                                        f"{row.share:.2f}"]
    page = io.StringIO()
    write_index(whole.rows, whole.only, whole.names, page)
    assert page.getvalue().count("<th>main code B</th><th>heat %</th>") == 2
    cells = "".join(f"<td>{cell}</td>" for cell in [*first, str(row.code_size), f"{row.share:.2f}"])
    assert cells in page.getvalue()  # the last table's first row: Recompile::work
