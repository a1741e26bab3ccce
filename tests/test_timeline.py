"""The run over time (`--timeline`): the samples of every recorded run of the corpus per compilation and per bucket,
and the log's events, each checked against what the run's own files say."""

from __future__ import annotations

import json
import lzma
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from asmcfg.cli import main
from asmcfg.dialects.heatfiles import read_binned, read_jit_log, read_recordings
from asmcfg.facts.timeline import build
from asmcfg.model.timeline import CATEGORIES

RECORD = Path(__file__).parent / "data" / "record"
RUNS = sorted(p.parent.name for p in RECORD.glob("*/truth.json.xz"))
EVENT = re.compile(r"^<(make_not_entrant|uncommon_trap|deoptimized) thread='\d+'(.*?)/?>$")


def _log(run: str) -> str:
    (log,) = (RECORD / run).glob("jvmpid*.xml.xz")
    return str(log)


def _truth(run: str) -> dict[str, Any]:
    with lzma.open(RECORD / run / "truth.json.xz") as f:
        data: dict[str, Any] = json.load(f)
    return data


def _events_read_apart(log: str) -> list[tuple[str, int, int | None, str, int | None]]:
    """The log's `make_not_entrant`, fired traps and deoptimizations: kind, compile id, stamp ms (the previous
    stamp for a record without one), reason, innermost bci."""
    found: list[tuple[str, int, int | None, str, int | None]] = []
    stamp = 0
    waiting = False
    with lzma.open(log, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            named = EVENT.match(line)
            given = re.search(r"stamp='(\d+)\.(\d{3})'", line)
            if given and not line.startswith(("<task ", "<task_done")):
                stamp = int(given.group(1)) * 1000 + int(given.group(2))
            if named:
                attrs = dict(re.findall(r"(\w+)='([^']*)'", named.group(2)))
                found.append((named.group(1), int(attrs["compile_id"]), stamp, attrs.get("reason", ""), None))
                waiting = named.group(1) != "make_not_entrant"
            elif waiting and line.startswith("<jvms "):
                kind, compile_id, when, reason, _ = found[-1]
                found[-1] = (kind, compile_id, when, reason, int(re.search(r"bci='(-?\d+)'", line).group(1)))
                waiting = False
    return found


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS)
def test_samples_per_compilation_and_bucket_equal_the_truth(run: str) -> None:
    log, script = _log(run), str(RECORD / run / "perf-script.txt.xz")
    timeline = build(read_jit_log(log), read_binned(script, log))
    truth = _truth(run)
    sampled = {v.task.compile_id: v.samples for v in timeline.versions if v.samples}
    assert sampled == {n["compile_id"]: n["samples"] for n in truth["nmethods"]}
    summary_total = read_recordings(script, [log])[0].total
    assert sum(sum(b.counts) for b in timeline.buckets) == summary_total == truth["perf"]["samples_of_process"]
    assert len(timeline.buckets) <= 200
    assert all(b.t_ms == n * timeline.bucket_ms for n, b in enumerate(timeline.buckets))


@pytest.mark.parametrize("run", RUNS)
def test_events_equal_the_logs_records(run: str) -> None:
    log = _log(run)
    mine = [(str(e.kind), e.compile_id, e.t_ms, e.reason, e.bci) for e in read_jit_log(log).events]
    assert mine == _events_read_apart(log)
    assert mine


def test_every_installed_compilation_has_its_times() -> None:
    jit = read_jit_log(_log("jdk17-Recompile"))
    installed = [t for t in jit.tasks if t.installed_ms is not None and t.kind != "c2n"]
    assert installed and all(t.queued_ms is not None and t.started_ms is not None and t.done_ms is not None
                             for t in installed)
    assert all(t.queued_ms <= t.started_ms <= t.done_ms for t in installed)  # type: ignore[operator]


@pytest.mark.slow
def test_json_timeline_object() -> None:
    result = CliRunner().invoke(main, [str(RECORD / "jdk17-Recompile"), "--timeline", "--json", "-", "-q"])
    assert result.exit_code == 0, result.output
    timeline = json.loads(result.stdout)["timeline"]
    assert {"bucket_ms", "buckets", "compilations", "events", "steady_state_ms"} <= set(timeline)
    assert set(timeline["buckets"][0]) == {"t_ms", *map(str, CATEGORIES)}
    compilation = next(c for c in timeline["compilations"] if c["compile_id"] == 7)
    assert {k: compilation[k] for k in ("method", "compiler", "level", "osr_bci", "start_ms", "end_ms",
                                        "end_reason")} == {
        "method": "Recompile::osrLoop", "compiler": "c2", "level": 4, "osr_bci": 5, "start_ms": 44, "end_ms": 926,
        "end_reason": "uncommon_trap"}
    assert compilation["trap"]["reason"] == "unstable_if" and compilation["trap"]["bci"] == 9
    assert set(timeline["events"][0]) >= {"t_ms", "kind", "compile_id", "reason", "action", "bci"}
    assert timeline["steady_state_ms"] is not None
