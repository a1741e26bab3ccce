"""`asmcfg record` and the JVMs of a run: a JVM that the recorded JVM starts is recorded too, a process with samples
and no log is named with its share and why, each JVM is named by its main class; a run that fails or is killed
after it printed code gets its summary and the command's status. tests/data/java/Forker.java and RecHot.java are
compiled at test time; each JVM runs for about a second."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from recording import JAVA17, compile_java, error_lines, manifest, needs_jdks, needs_perf, record

pytestmark = [pytest.mark.slow, needs_jdks]
PID = re.compile(r"^\s*.+?\s+(\d+)/\d+\s+[\d.]+:", re.MULTILINE)
"""A sample line of perf-script.txt, its pid."""


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_java(tmp_path_factory.mktemp("classes"), "RecHot", "Forker")


def forker(classes: Path, *args: str) -> list[str]:
    return [str(JAVA17), "-cp", str(classes), "Forker", *args]


@needs_perf
def test_a_jvm_the_recorded_jvm_starts_is_recorded_and_one_without_a_log_is_named(
        classes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    done = record(["-o", str(folder), "--", *forker(classes, "800", "clear")], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(b"done ok\n") == 2 and done.stdout.endswith(b"forker done\n")
    record_json = manifest(folder)
    assert record_json["how_flags_were_passed"] == "command line and JAVA_TOOL_OPTIONS"
    jvms = {jvm["main"]: jvm for jvm in record_json["jvms"]}  # type: ignore[attr-defined]
    assert sorted(jvms) == ["Forker", "RecHot"] and jvms["RecHot"]["printed"] > 0
    parent, child = jvms["Forker"]["pid"], jvms["RecHot"]["pid"]
    said = done.stderr.decode()
    assert f"Hottest compilations of pid {child} (RecHot)" in said and f"pid {parent} (Forker): " in said
    samples = Counter(int(pid) for pid in PID.findall((folder / "perf-script.txt").read_text(errors="replace")))
    [(unlogged, count)] = [(pid, n) for pid, n in samples.most_common(1 + 2) if pid not in (parent, child)][:1]
    share = 100 * count / sum(samples.values())
    assert share > 10  # the second RecHot: about as busy as the first
    assert (f"pid {unlogged} (java) took {share:.2f}% of the recording's samples and left no log: a JVM that did not "
            "get the flags (its environment lost JAVA_TOOL_OPTIONS, or its own options replaced them)") in said


def test_without_perf_each_jvm_is_named_by_its_main_class(classes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    done = record(["-o", str(folder), "--no-perf", "--", *forker(classes, "300")], tmp_path)
    assert done.returncode == 0, done.stderr
    pids = {jvm["pid"]: jvm["main"] for jvm in manifest(folder)["jvms"]}  # type: ignore[attr-defined]
    assert sorted(pids.values()) == ["Forker", "RecHot"]
    named = ", ".join(f"pid {pid} ({main})" for pid, main in sorted(pids.items()))
    assert f"\nrecorded 2 JVM(s) without heat (perf did not record): {named}\n" in done.stderr.decode()


def test_a_folder_path_the_environment_cannot_carry_records_the_jvm_named_alone(classes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "it's"
    done = record(["-o", str(folder), "--no-perf", "--", *forker(classes, "300")], tmp_path)
    assert done.returncode == 0, done.stderr
    record_json = manifest(folder)
    assert record_json["how_flags_were_passed"] == "command line"
    assert [jvm["main"] for jvm in record_json["jvms"]] == ["Forker"]  # type: ignore[attr-defined]
    note = (f"JVMs that {JAVA17} starts are not recorded: JAVA_TOOL_OPTIONS cannot carry a folder path holding "
            "quotes, backslashes or control characters (choose another folder with -o)")
    assert f"asmcfg: record: {note}" in error_lines(done) and note in record_json["notes"]  # type: ignore[operator]


def elapsed(folder: Path) -> float:
    """Seconds between record.json's `started` and `ended`."""
    from datetime import datetime

    times = manifest(folder)
    return (datetime.fromisoformat(str(times["ended"])) - datetime.fromisoformat(str(times["started"]))).total_seconds()


def ended_line(done: subprocess.CompletedProcess[bytes], folder: Path, how: str) -> None:
    """The last of asmcfg's lines says how the command ended and after how long, as record.json times it."""
    last = error_lines(done)[-1]
    found = re.fullmatch(rf"asmcfg: record: the command {how} after (\d+\.\d\d) s", last)
    assert found is not None, last
    assert abs(float(found.group(1)) - elapsed(folder)) <= 0.011
    assert "exited at once" not in done.stderr.decode()


@pytest.mark.parametrize("perf", [pytest.param(True, id="perf", marks=needs_perf), pytest.param(False, id="no-perf")])
def test_a_short_run_that_fails_after_printing_code_gets_its_summary_and_status(
        classes: Path, tmp_path: Path, perf: bool) -> None:
    folder = tmp_path / "rec"
    done = record(["-o", str(folder), "--perf" if perf else "--no-perf", "--", str(JAVA17), "-cp", str(classes),
                   "RecHot", "500", "3"], tmp_path)
    assert done.returncode == 3
    [jvm] = manifest(folder)["jvms"]  # type: ignore[misc]
    assert jvm["printed"] > 0
    said = done.stderr.decode()
    if perf:
        assert f"Hottest compilations of pid {jvm['pid']} (RecHot)" in said and "RecHot::mix" in said
    else:
        assert f"recorded 1 JVM(s) without heat (perf did not record): pid {jvm['pid']} (RecHot)" in said
    assert f"open: asmcfg {folder}" in said
    ended_line(done, folder, "exited with status 3")


def test_a_jvm_killed_after_printing_code_gets_its_summary_and_the_signal(classes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    child = subprocess.Popen([sys.executable, "-m", "asmcfg", "record", "-o", str(folder), "--no-perf", "--",
                              str(JAVA17), "-cp", str(classes), "RecHot", "-1", "0"], cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while not (logs := list(folder.glob("jvmpid*.xml"))) or b"</print_nmethod>" not in logs[0].read_bytes():
        assert child.poll() is None  # the program runs until it is killed: its log gets its printed code
        time.sleep(0.05)
    os.kill(int(logs[0].name[len("jvmpid"):-len(".xml")]), signal.SIGKILL)
    _, err = child.communicate(timeout=120)
    done = subprocess.CompletedProcess(child.args, child.returncode, b"", err)
    assert done.returncode == 128 + signal.SIGKILL
    [jvm] = manifest(folder)["jvms"]  # type: ignore[misc]
    assert jvm["complete"] is False and jvm["printed"] > 0
    assert f"recorded 1 JVM(s) without heat (perf did not record): pid {jvm['pid']} (RecHot)" in err.decode()
    ended_line(done, folder, "was ended by SIGKILL")


def test_a_jvm_that_fails_before_printing_anything_exited_at_once(classes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    done = record(["-o", str(folder), "--no-perf", "--method", "RecHot::mix", "--", str(JAVA17), "-cp",
                   str(classes), "NoSuchClass"], tmp_path)
    assert done.returncode == 1  # java's own status for a missing main class
    [jvm] = manifest(folder)["jvms"]  # type: ignore[misc]
    [line] = error_lines(done)
    assert line == (f"asmcfg: record: {folder}/jvmpid{jvm['pid']}.xml: the JVM exited at once (status 1 after "
                    f"{elapsed(folder):.2f} s), before anything was compiled and printed")
    assert "Could not find or load main class NoSuchClass" in done.stderr.decode()
