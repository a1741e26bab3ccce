"""The whole-log diff of two `asmcfg record` folders chooses each side's compilation as the single run does.

The folders are real recordings (`tests/data/record/`, see `test_record_truth.py`). Some methods were compiled
more than once under one key (method, OSR bci, compiler) and the hottest is not the last: in JDK 17 HotLoop the
OSR compilations of `HotLoop::run` @6 (id 15 took 2 samples, the later id 17 none); in JDK 17 Recompile those of
`Recompile::osrLoop` @5 (id 7 took 15.01% of the JVM's samples, the later id 166 7.53%; `asmcfg RUN --method
Recompile::osrLoop --compiler c2` chooses id 7) and of `Recompile::work` @14 (ids 86 and 157 none, 163 some).
"""

from __future__ import annotations

import fnmatch
import functools
import json
from collections import defaultdict
from typing import Any

import pytest
from corpus import DATA, json_methods, run_cli

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


def _chosen(found: dict[str, Any]) -> tuple[dict[Key, int], dict[Key, int]]:
    """Of each key, the compile id the diff chose on each side (its pairs, then its methods of one log)."""
    old = {_key(p): p["old_compile_id"] for p in found["pairs"]}
    new = {_key(p): p["new_compile_id"] for p in found["pairs"]}
    old.update({_key(m): m["compile_id"] for m in found["only_old"]})
    new.update({_key(m): m["compile_id"] for m in found["only_new"]})
    return old, new


@pytest.mark.slow
@pytest.mark.parametrize(("old", "new"), DIFFS)
def test_each_side_is_the_compilation_the_single_run_chooses(old: str, new: str) -> None:
    """Of each key, each side's compilation is the one the single run's rule chooses among those it reports (the
    hottest, the first of equals; the last when none took a sample); and where `--method M --compiler C` leaves
    one key's compilations, that run's own choice."""
    found = _whole(old, new)
    for run, chosen in zip((old, new), _chosen(found), strict=True):
        candidates = _candidates(run)
        assert set(chosen) == set(candidates)
        for key, compile_id in chosen.items():
            measured = [m for m in candidates[key] if _share(m) is not None]
            rule = max(measured, key=lambda m: _share(m) or 0.0) if measured else candidates[key][-1]
            assert compile_id == rule["compile_id"], (run, key)
        named: dict[tuple[str, str], list[Key]] = defaultdict(list)
        for key in candidates:
            named[key[0], key[1]].append(key)
        for (method, compiler), keys in named.items():
            if compiler not in ("c1", "c2") or sum(len(candidates[k]) for k in keys) < 2:
                continue
            pattern = method.replace("[", "[[]").replace("*", "[*]").replace("?", "[?]")
            assert fnmatch.fnmatchcase(method, pattern)
            (single,) = json_methods(str(RECORD / run), "--method", pattern, "--compiler", compiler)
            assert chosen[_key(single)] == single["compile_id"], (run, method, compiler)
