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
    jit = read_jit_log(log)
    timeline = build(jit, read_binned(script, log, jit))
    truth = _truth(run)
    sampled = {v.task.compile_id: v.samples for v in timeline.versions if v.samples}
    assert sampled == {n["compile_id"]: n["samples"] for n in truth["nmethods"]}
    summary_total = read_recordings(script, [log])[0].total
    assert sum(sum(b.counts) for b in timeline.buckets) == summary_total == truth["perf"]["samples_of_process"]
    assert len(timeline.buckets) <= 200
    assert all(b.t_ms == n * timeline.bucket_ms for n, b in enumerate(timeline.buckets))


@pytest.mark.parametrize("run", [pytest.param(run, marks=pytest.mark.slow) if "Javac" in run else run for run in RUNS])
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


def _timeline(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [*args, "--timeline"])
    return result.exit_code, result.stdout, result.stderr


def _copy_log(tmp_path: Path, edit: Any = None) -> Path:
    """The Recompile run's log, plain, in a folder of its own, edited by `edit` (lines in, lines out)."""
    folder = tmp_path / "rec"
    folder.mkdir()
    with lzma.open(_log("jdk17-Recompile"), "rt", encoding="utf-8") as f:
        lines = f.read().split("\n")
    (folder / "jvmpid5529.xml").write_text("\n".join(edit(lines) if edit else lines), encoding="utf-8")
    return folder


def test_a_folder_without_perf_data_gives_the_jit_events_alone(tmp_path: Path) -> None:
    folder = _copy_log(tmp_path)
    code, _, err = _timeline(str(folder))
    assert code == 0
    assert f"note: {folder} holds no perf data: the JIT events alone" in err
    assert "JIT events only" in err and "uncommon trap unstable_if (reinterpret) at Recompile::osrLoop@9" in err


def test_a_log_alone_gives_the_jit_events(tmp_path: Path) -> None:
    log = _copy_log(tmp_path) / "jvmpid5529.xml"
    code, _, err = _timeline(str(log))
    assert code == 0 and "no samples (a record folder has them): the JIT events alone" in err
    assert "events !x d o" in err


def test_stamps_going_backwards_are_said_once_with_their_line(tmp_path: Path) -> None:
    def back(lines: list[str]) -> list[str]:
        at = next(n for n, line in enumerate(lines) if line.startswith("<make_not_entrant") and "'2.086'" in line)
        lines[at] = lines[at].replace("stamp='2.086'", "stamp='0.500'")
        return lines

    folder = _copy_log(tmp_path, back)
    code, _, err = _timeline(str(folder / "jvmpid5529.xml"))
    line = next(n for n, text in enumerate((folder / "jvmpid5529.xml").read_text().split("\n"), 1)
                if "stamp='0.500'" in text)
    assert code == 0
    assert f"jvmpid5529.xml:{line}: 1 stamps go back in time" in err
    assert "make_not_entrant Recompile::work (id 86)" in err


def test_a_log_without_its_start_time_keeps_its_events(tmp_path: Path) -> None:
    folder = _copy_log(tmp_path, lambda lines: [re.sub(r" time_ms='\d+'", "", line) for line in lines])
    for name in ("perf-script.txt.xz", "perf-5529.map.xz"):
        (folder / name).write_bytes((RECORD / "jdk17-Recompile" / name).read_bytes())
    code, _, err = _timeline(str(folder))
    assert code == 0
    assert "no `<hotspot_log time_ms=…>`: the JVM's start time is unknown" in err
    assert err.count("note:") == 1 and "uncommon trap unstable_if" in err


@pytest.mark.slow
def test_samples_before_the_jvm_and_a_run_shorter_than_a_bucket(tmp_path: Path) -> None:
    code, stdout, err = _timeline(str(RECORD / "jdk25-HotLoop"), "--bucket", "100000", "--json", "-")
    assert code == 0
    assert "15 samples come before the JVM's start on the log's clock (the launcher)" in err
    assert "the run (5,176 ms) is shorter than one bucket (100,000 ms): one bucket" in err
    (bucket,) = json.loads(stdout)["timeline"]["buckets"]
    assert sum(v for k, v in bucket.items() if k != "t_ms") == 14208


PHASES = Path(__file__).parent / "data" / "timeline"


@pytest.mark.parametrize("run", ["jdk17-Phases", "jdk25-Phases"])
def test_the_story_of_a_method_compiled_three_times(run: str) -> None:
    """`Phases::hot` runs in three phases: C2 code, a trap at bci 15 ends it, C2 code again, a trap at bci 30
    ends it, C2 code a third time; the run is warmed up only after the last compilation."""
    result = CliRunner().invoke(main, [str(PHASES / run), "--timeline", "--method", "Phases::hot", "--json", "-"])
    assert result.exit_code == 0, result.output
    timeline = json.loads(result.stdout)["timeline"]
    story = timeline["story"]
    assert story["method"] == "Phases::hot"
    top = [v for v in story["versions"] if v["compiler"] == "c2" and v["osr_bci"] is None]
    assert len(top) == 3 and all(v["samples"] > 100 for v in top)
    assert [(v["end_reason"], v["trap"] and (v["trap"]["method"], v["trap"]["bci"])) for v in top] == [
        ("uncommon_trap", ("Phases::hot", 15)), ("uncommon_trap", ("Phases::hot", 30)), ("end of run", None)]
    assert [v["trap"]["reason"] for v in top[:2]] == ["unstable_fused_if", "unstable_if"]
    assert [v["trap"]["line"] for v in top[:2]] == [8, 10]  # `if (v < 0)`, `else if (v > 1_000_000)` in Phases.java
    assert top[0]["end_ms"] <= top[1]["start_ms"] and top[1]["end_ms"] <= top[2]["start_ms"]
    assert story["cycles"] == 2
    assert {"old": top[1]["compile_id"], "new": top[2]["compile_id"]} in story["diffs"]
    steady, bucket = timeline["steady_state_ms"], timeline["bucket_ms"]  # a bucket's start: within one of the install
    assert steady is not None and top[1]["end_ms"] <= steady and abs(steady - top[2]["start_ms"]) < bucket
    err = result.stderr
    assert f"asmcfg diff {PHASES / run} --compile-id {top[0]['compile_id']} --compile-id {top[1]['compile_id']}" in err
    assert "ended: uncommon trap unstable_if (reinterpret) at Phases::hot@30 (line 10)" in err
    assert f"warmed up at {timeline['steady_state_ms']:,} ms" in err


def _samples_in(folder: Path, low: float, high: float) -> int:
    """The JVM's samples from `low` to before `high` ms after its start, counted from the files themselves."""
    (log,) = folder.glob("jvmpid*.xml.xz")
    with lzma.open(log, "rt") as f:
        head = f.read(4000)
    pid, zero = (int(x) for x in re.search(r"process='(\d+)' time_ms='(\d+)'", head).groups())  # type: ignore[union-attr]
    with lzma.open(folder / "perf-script.txt.xz", "rt") as f:
        times = [int(m.group(2)) * 1000 + int(m.group(3)) / 1e6 - zero
                 for m in re.finditer(r" (\d+)/\d+ +(\d+)\.(\d{9}):", f.read()) if int(m.group(1)) == pid]
    return sum(1 for t in times if low <= t < high)


@pytest.mark.parametrize("window", [("--from", "3300"), ("--to", "1600"), ("--from", "1800", "--to", "3100")])
def test_from_and_to_keep_the_samples_of_a_stretch(window: tuple[str, ...]) -> None:
    folder = PHASES / "jdk17-Phases"
    low = float(window[1]) if window[0] == "--from" else float("-inf")
    high = float(window[-1]) if "--to" in window else float("inf")
    expected = _samples_in(folder, low, high)
    assert 0 < expected < _samples_in(folder, float("-inf"), float("inf"))
    timed = CliRunner().invoke(main, [str(folder), "--timeline", "--json", "-", "-q", *window])
    assert timed.exit_code == 0, timed.output
    buckets = json.loads(timed.stdout)["timeline"]["buckets"]
    assert sum(v for b in buckets for k, v in b.items() if k != "t_ms") == expected
    one = CliRunner().invoke(main, [str(folder), "--method", "Phases::hot", "--dot", "/dev/null", *window])
    assert one.exit_code == 0, one.output
    assert "after the JVM's start only (--from, --to)" in one.stderr
    assert f": {expected:,} cpu-clock samples" in one.stderr


@pytest.mark.parametrize("source", ["hsdis/jdk17-Shapes-print-hsdis-att.txt.gz",
                                    "perfasm/jdk17-DevBench/perfasm-console.txt"])
def test_from_and_to_on_an_input_without_timed_samples_are_an_error(source: str) -> None:
    """A dump has no samples, perfasm's have no time: no stretch to keep, and no claim that one was kept."""
    done = CliRunner().invoke(main, [str(RECORD.parent / source), "--from", "100", "--to", "200", "--list"])
    assert done.exit_code == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--from/--to keep the samples of a stretch of a recorded run" in done.stderr
    assert "after the JVM's start only" not in done.stderr


def test_a_stamp_far_in_the_future_widens_the_buckets_and_stays_linear(tmp_path: Path) -> None:
    def far(lines: list[str]) -> list[str]:
        at = next(n for n, line in enumerate(lines) if line.startswith("<destroy_vm"))
        lines[at] = "<destroy_vm stamp='999999999.000'/>"
        return lines

    log = _copy_log(tmp_path, far) / "jvmpid5529.xml"
    code, stdout, err = _timeline(str(log), "--bucket", "1", "--json", "-")
    assert code == 0, err
    timeline = json.loads(stdout)["timeline"]
    assert timeline["bucket_ms"] == 10_000_000 and len(timeline["buckets"]) == 0
    assert "would make more than 100,000 buckets" in err


def test_control_characters_of_a_log_never_reach_the_terminal(tmp_path: Path) -> None:
    def painted(lines: list[str]) -> list[str]:
        at = next(n for n, line in enumerate(lines) if line.startswith("<uncommon_trap thread="))
        lines[at + 1] = lines[at + 1].replace("method='Recompile osrLoop", "method='Re\x1b[31mcompile osrLoop")
        return lines

    log = _copy_log(tmp_path, painted) / "jvmpid5529.xml"
    code, _, err = _timeline(str(log))
    assert code == 0 and "\x1b" not in err and "uncommon trap unstable_if" in err
