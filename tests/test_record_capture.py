"""`asmcfg record` on real JVMs (JDK 17 and 25) and real `perf`: the folder it writes, the program's output, exit
status and signals left as they are, and one line for each bad input. tests/data/java/RecHot.java is compiled at
test time; each JVM runs for about a second."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from recording import JAVA17, JAVA25, compile_java, error_lines, hot, manifest, needs_jdks, needs_perf, record

JAVAS = [pytest.param(JAVA17, id="jdk17"), pytest.param(JAVA25, id="jdk25")]
pytestmark = [pytest.mark.slow, needs_jdks]
SAMPLE = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+([\d.]+):\s+(\d+)\s+(\S+):\s+([0-9a-f]+)\s")
NMETHOD = re.compile(r"<nmethod compile_id='(\d+)'(?: compile_kind='\w+')? compiler='(\w+)'[^>]*? size='(\d+)' "
                     r"address='0x([0-9a-f]+)'[^>]*? method='([^']*)'")
"""An `<nmethod>` record (an OSR compilation's has `compile_kind='osr'` before `compiler`)."""


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """RecHot compiled with javac --release 17 (the class files run on both JDKs)."""
    return compile_java(tmp_path_factory.mktemp("classes"), "RecHot")


def hottest_nmethod(folder: Path, pid: int) -> tuple[str, str, int]:
    """Method, compiler and samples of the compilation of `pid` with most samples, counted here from the log's
    `<nmethod>` ranges and perf-script.txt (the program compiles no method twice at one address)."""
    log = (folder / f"jvmpid{pid}.xml").read_text(encoding="utf-8", errors="replace")
    ranges = [(int(addr, 16), int(size), method, compiler) for _, compiler, size, addr, method in NMETHOD.findall(log)]
    counts: dict[tuple[str, str, int], int] = {}
    for line in (folder / "perf-script.txt").read_text(encoding="utf-8", errors="replace").splitlines():
        found = SAMPLE.match(line)
        if not found or int(found.group(2)) != pid:
            continue
        ip = int(found.group(7), 16)
        for start, size, method, compiler in ranges:
            if start <= ip < start + size:
                key = (method, compiler, start)
                counts[key] = counts.get(key, 0) + 1
    (method, compiler, _), samples = max(counts.items(), key=lambda item: item[1])
    return method, compiler, samples


@needs_perf
@pytest.mark.parametrize("java", JAVAS)
def test_a_java_program_is_recorded_with_its_printed_c2_code_and_its_samples(
        classes: Path, java: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    done = record(["-o", str(folder), "--", *hot(classes, java)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert error_lines(done) == []
    record_json = manifest(folder)
    [jvm] = record_json["jvms"]  # type: ignore[misc]
    pid = jvm["pid"]
    said = done.stderr.decode()
    assert f"Hottest compilations of pid {pid} (RecHot)" in said and f"open: asmcfg {folder} (the hottest" in said
    replayed, home = jvm.pop("replay"), jvm.pop("java_home")
    assert Path(home).resolve() == java.resolve().parent.parent
    assert jvm == {"pid": pid, "main": "RecHot", "log": f"jvmpid{pid}.xml", "complete": True, "salvaged": None,
                   "printed": jvm["printed"],
                   "class_path": str(classes), "module_path": None, "command": "RecHot 1200 0"}
    # the replay data of every printed C2 compilation, moved out of the working folder into one archive
    assert replayed["archive"] == f"replay-pid{pid}.zip" and len(replayed["compile_ids"]) >= jvm["printed"]
    assert sorted(p.name for p in folder.glob("replay*")) == [replayed["archive"]]
    assert not list(tmp_path.glob("replay_pid*")) and record_json["working_folder"] == str(tmp_path)
    assert record_json["how_flags_were_passed"] == "command line and JAVA_TOOL_OPTIONS"
    assert record_json["printing"] == "c2" and record_json["exit_status"] == 0
    assert record_json["perf"]["used"] is True  # type: ignore[index]
    assert (folder / "c2print.json").read_text() == \
        '[ { match: "*.*", c2: { PrintAssembly: true, DumpReplay: true } } ]\n'
    listing = subprocess.run([sys.executable, "-m", "asmcfg", str(folder / f"jvmpid{pid}.xml"), "--list"],
                             capture_output=True, text=True, check=True).stdout
    c2_rows = [row.split() for row in listing.splitlines() if row.startswith("c2")]
    assert any(row[-1] == "RecHot::mix" for row in c2_rows), listing  # its C2 code printed and decoded
    assert not [row for row in listing.splitlines() if row.startswith("c1")]  # only C2 compilations printed
    assert (folder / f"perf-{pid}.map").exists() and not Path(f"/tmp/perf-{pid}.map").exists()
    assert (folder / "perf.data").exists() and "perf version" in (folder / "perf-header.txt").read_text()
    method, compiler, samples = hottest_nmethod(folder, pid)
    # mix's loop: in mix's own C2 compilation, or inlined into main's C2 OSR compilation (JDK 25 here)
    assert method in ("RecHot mix ([II)J", "RecHot main ([Ljava/lang/String;)V") and compiler == "c2"
    assert samples > 100
    assert "[ perf record: Captured and wrote" in (folder / "perf-record.log").read_text()
    # the folder as asmcfg's input: its hottest compilation is mix, whose hottest block is in its loop
    shown = subprocess.run([sys.executable, "-m", "asmcfg", str(folder), "--json", "-", "-q"],
                           capture_output=True, text=True, check=True).stdout
    (chosen,) = json.loads(shown)["methods"]
    assert (chosen["name"], chosen["compiler"]) == (method.replace(" ", "::", 1).split(" ")[0], "c2")
    assert chosen["profile"]["samples"] == samples
    hottest = max(chosen["blocks"], key=lambda b: next(iter(b["heat"].values())))
    assert any(hottest["id"] in loop["blocks"] for loop in chosen["loops"])
    frames = {f["method"] for i in hottest["instructions"] for f in i.get("frames", ())}
    assert "RecHot::mix" in frames, frames  # the block is mix's loop body


@needs_perf
def test_the_programs_stdout_is_byte_for_byte_its_own_and_its_exit_status_is_asmcfgs(
        classes: Path, tmp_path: Path) -> None:
    plain = subprocess.run(hot(classes, JAVA25, 300, 7), capture_output=True, check=False)
    done = record(["-o", str(tmp_path / "rec"), "--", *hot(classes, JAVA25, 300, 7)], tmp_path)
    assert plain.returncode == 7 and done.returncode == 7
    assert done.stdout == plain.stdout and bytes(range(256)) in done.stdout
    assert manifest(tmp_path / "rec")["exit_status"] == 7


def test_without_perf_the_code_is_recorded_alone(classes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    done = record(["-o", str(folder), "--no-perf", "--method", "RecHot::mix", "--", *hot(classes, JAVA17, 300)],
                  tmp_path)
    assert done.returncode == 0, done.stderr
    record_json = manifest(folder)
    assert record_json["perf"] == {"used": False, "why_not": "--no-perf", "command": [], "event": "cpu-clock",
                                   "frequency": 999}
    assert record_json["printing"] == "method RecHot::mix"
    assert "-XX:CompileCommand=print,RecHot::mix" in record_json["jvm_flags"]  # type: ignore[operator]
    assert "DumpPerfMapAtExit" not in record_json["jvm_flags"]  # type: ignore[operator]
    assert done.stdout.endswith(b"done ok\n") and b"CompileCommand" not in done.stdout  # the JVM's echo is logged
    pid = record_json["jvms"][0]["pid"]  # type: ignore[index]
    assert "-XX:CompileCommand=DumpReplay,RecHot::mix" in record_json["jvm_flags"]  # type: ignore[operator]
    assert sorted(p.name for p in folder.iterdir()) == [f"jvmpid{pid}.xml", "record.json", f"replay-pid{pid}.zip"]


def test_all_code_prints_c1_compilations_too(classes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    done = record(["-o", str(folder), "--no-perf", "--all-code", "--", *hot(classes, JAVA25, 300)], tmp_path)
    assert done.returncode == 0, done.stderr
    record_json = manifest(folder)
    assert record_json["printing"] == "all"
    assert "-XX:+PrintAssembly" in record_json["jvm_flags"]  # type: ignore[operator]
    pid = record_json["jvms"][0]["pid"]  # type: ignore[index]
    listing = subprocess.run([sys.executable, "-m", "asmcfg", str(folder / f"jvmpid{pid}.xml"), "--list"],
                             capture_output=True, text=True, check=True).stdout
    assert {"c1", "c2"} <= {row.split()[0] for row in listing.splitlines()[1:]}
    assert not (folder / "c2print.json").exists()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("perf", [pytest.param(False, id="no-perf"), pytest.param(True, id="perf", marks=needs_perf)])
def test_a_signal_to_asmcfg_reaches_the_program_which_runs_its_shutdown_hook(
        classes: Path, tmp_path: Path, signum: int, perf: bool) -> None:
    folder, hook = tmp_path / "rec", tmp_path / "hook.txt"
    command = [str(JAVA17), "-cp", str(classes), "RecHot", "-1", "0", str(hook)]
    child = subprocess.Popen([sys.executable, "-m", "asmcfg", "record", "-o", str(folder),
                              "--perf" if perf else "--no-perf", "--", *command], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None
    while not child.stdout.readline().startswith(b"ready"):  # after the 256 known bytes (a newline among them)
        pass
    time.sleep(0.3)
    child.send_signal(signum)  # to asmcfg, which passes it on to the program's process group
    _, err = child.communicate(timeout=60)
    assert child.returncode == 128 + signum, err  # the JVM exits 128 + the signal after its hooks
    assert hook.read_text() == "hook ran\n"
    ended = manifest(folder)
    if perf:  # perf got the signal too: it waits for the JVM, then ends by that signal
        assert ended["signal"] == signal.Signals(signum).name and "exit_status" not in ended
        assert (folder / "perf-script.txt").stat().st_size > 0
    else:
        assert ended["exit_status"] == 128 + signum and "signal" not in ended


def test_a_script_starting_two_jvms_gives_two_logs_through_java_tool_options(classes: Path, tmp_path: Path) -> None:
    script = tmp_path / "two.sh"
    script.write_text(f"#!/bin/sh\n{JAVA17} -cp {classes} RecHot 300 0\n{JAVA25} -cp {classes} RecHot 300 0\n"
                      "exit 3\n")
    script.chmod(0o755)
    folder = tmp_path / "with space"  # quoted in JAVA_TOOL_OPTIONS
    done = record(["-o", str(folder), "--no-perf", "--", str(script)], tmp_path,
                  env={**os.environ, "JAVA_TOOL_OPTIONS": "-Xss2m"})
    assert done.returncode == 3
    assert done.stdout.count(b"done ok\n") == 2
    record_json = manifest(folder)
    assert record_json["how_flags_were_passed"] == "JAVA_TOOL_OPTIONS"
    jvms = record_json["jvms"]
    assert len(jvms) == 2 and all(jvm["complete"] and jvm["printed"] for jvm in jvms)  # type: ignore[union-attr]
    picked = [line for line in done.stderr.decode().splitlines() if line.startswith("Picked up JAVA_TOOL_OPTIONS")]
    assert len(picked) == 2 and all(line.startswith("Picked up JAVA_TOOL_OPTIONS: -Xss2m -XX:") for line in picked)
    assert f"'-XX:LogFile={folder}/jvm%p.xml'" in picked[0]


def test_a_jvm_killed_with_sigkill_leaves_a_cut_log_that_is_salvaged(classes: Path, tmp_path: Path) -> None:
    script = tmp_path / "kill.sh"
    script.write_text(f"#!/bin/sh\n{JAVA17} -cp {classes} RecHot -1 0 &\nsleep 1.5\nkill -9 $!\nwait $!\n")
    script.chmod(0o755)
    folder = tmp_path / "rec"
    done = record(["-o", str(folder), "--no-perf", "--", str(script)], tmp_path)
    assert done.returncode == 137  # the script's status: its `wait` reports the JVM's SIGKILL
    [jvm] = manifest(folder)["jvms"]  # type: ignore[misc]
    assert jvm["complete"] is False
    thread_logs = sorted(p.name for p in folder.glob(f"hs_c*_pid{jvm['pid']}.log"))
    assert thread_logs and not list(Path("/tmp").glob(f"hs_c*_pid{jvm['pid']}.log"))
    assert jvm["salvaged"].startswith("the JVM did not finish its log (killed?): ")
    assert ", ".join(thread_logs) in jvm["salvaged"]
    assert not (folder / f"jvmpid{jvm['pid']}.xml").read_text(errors="replace").rstrip().endswith("</hotspot_log>")


def test_a_command_not_found_or_not_executable_is_one_line_and_status_127_with_no_folder(tmp_path: Path) -> None:
    done = record(["-o", str(tmp_path / "rec"), "--", "no-such-program-here", "x"], tmp_path)
    assert done.returncode == 127
    assert done.stderr.decode() == "asmcfg: record: command not found: no-such-program-here\n"
    assert not (tmp_path / "rec").exists()
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    done = record(["-o", str(tmp_path / "rec"), "--", str(script)], tmp_path)
    assert done.returncode == 127
    assert done.stderr.decode() == f"asmcfg: record: cannot run {script}: it is not executable (chmod +x)\n"


def test_a_folder_that_holds_files_is_never_written_into(classes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    folder.mkdir()
    (folder / "mine.txt").write_text("keep")
    done = record(["-o", str(folder), "--", *hot(classes, JAVA17, 10)], tmp_path)
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.decode() == (f"asmcfg: record: {folder} exists and is not empty: a recording never "
                                    "overwrites one; give -o a new folder\n")
    assert [p.name for p in folder.iterdir()] == ["mine.txt"]


def test_the_default_folder_is_a_new_dated_one_in_the_current_folder(classes: Path, tmp_path: Path) -> None:
    done = record(["--no-perf", "--", *hot(classes, JAVA25, 300)], tmp_path)
    assert done.returncode == 0, done.stderr
    [folder] = tmp_path.iterdir()
    assert re.fullmatch(r"asmcfg-record-\d{8}-\d{6}", folder.name)
    assert manifest(folder)["jvms"][0]["printed"] > 0  # type: ignore[index]


def test_a_program_that_starts_no_jvm_is_one_line_and_a_failure(tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    done = record(["-o", str(folder), "--no-perf", "--", "sh", "-c", "echo not java"], tmp_path)
    assert done.returncode == 1 and done.stdout == b"not java\n"
    assert error_lines(done) == [f"asmcfg: record: {folder}: no JVM log: the command started no JVM (or none read "
                                 "JAVA_TOOL_OPTIONS)"]
    assert manifest(folder)["exit_status"] == 0 and manifest(folder)["jvms"] == []


def test_a_method_pattern_that_prints_nothing_is_one_line_and_a_failure(classes: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    done = record(["-o", str(folder), "--no-perf", "--method", "RecHot::never", "--", *hot(classes, JAVA25, 1200)],
                  tmp_path)
    assert done.returncode == 1
    [jvm] = manifest(folder)["jvms"]  # type: ignore[misc]
    assert error_lines(done) == [f"asmcfg: record: {folder}/jvmpid{jvm['pid']}.xml: no compilation of RecHot::never "
                                 "was printed (the pattern is Class::method, as -XX:CompileCommand takes it; or it "
                                 "never got hot)"]
    assert jvm["printed"] == 0 and jvm["complete"] is True


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not on PATH")
def test_perf_refusing_an_event_is_an_error_with_perf_and_one_line_without(classes: Path, tmp_path: Path) -> None:
    asked = record(["-o", str(tmp_path / "a"), "--perf", "--event", "no-such-event", "--", *hot(classes, JAVA17, 10)],
                   tmp_path)
    assert asked.returncode == 1 and asked.stdout == b"" and not (tmp_path / "a").exists()
    [line] = error_lines(asked)
    assert line.startswith("asmcfg: record: --perf: perf refused to count no-such-event: ")
    auto = record(["-o", str(tmp_path / "b"), "--event", "no-such-event", "--", *hot(classes, JAVA17, 300)], tmp_path)
    assert auto.returncode == 0
    lines = error_lines(auto)
    assert len(lines) == 1 and lines[0].startswith("asmcfg: record: no heat: perf refused to count no-such-event: ")
    assert lines[0].endswith("; recording the compiled code only (--no-perf silences this)")
    assert manifest(tmp_path / "b")["perf"]["used"] is False  # type: ignore[index]


def test_a_jdk8_java_is_refused_before_it_runs_naming_the_fix(tmp_path: Path) -> None:
    home = tmp_path / "jdk8"
    (home / "bin").mkdir(parents=True)
    (home / "release").write_text('JAVA_VERSION="1.8.0_392"\nOS_NAME="Linux"\n')
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\nexit 0\n")  # never run: the JDK's release file is what is read
    java.chmod(0o755)
    done = record(["-o", str(tmp_path / "rec"), "--no-perf", "--", str(java), "-version"], tmp_path)
    assert done.returncode == 1 and not (tmp_path / "rec").exists()
    assert done.stderr.decode() == (f"asmcfg: record: {java} is JDK 1.8.0_392, which prints no assembly without "
                                    "hsdis: run the program on JDK 9 or later, or install hsdis-amd64.so into that "
                                    "JDK\n")


def test_usage_errors(tmp_path: Path) -> None:
    assert record([], tmp_path).returncode == 2
    both = record(["--method", "A::b", "--all-code", "--", "java"], tmp_path)
    assert both.returncode == 2 and b"give one of them" in both.stderr


def test_ctrl_z_and_ctrl_c_on_the_terminal_reach_the_program(classes: Path, tmp_path: Path) -> None:
    import pty

    hook = tmp_path / "hook.txt"
    argv = [sys.executable, "-m", "asmcfg", "record", "-o", str(tmp_path / "rec"), "--no-perf", "--",
            str(JAVA17), "-cp", str(classes), "RecHot", "-1", "0", str(hook)]
    pid, master = pty.fork()
    if pid == 0:  # asmcfg in a session of its own, the pty its terminal, as a shell's foreground job
        os.execv(sys.executable, argv)
    seen = b""
    while b"ready" not in seen:
        seen += os.read(master, 4096)
    time.sleep(0.3)
    assert os.tcgetpgrp(master) != pid  # the program's process group has the terminal, not asmcfg's
    os.write(master, b"\x1a")  # Ctrl-Z: the terminal stops the program's group; asmcfg stops itself after it
    _, status = os.waitpid(pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status) and os.tcgetpgrp(master) == pid  # asmcfg took the terminal back, then stopped
    os.kill(pid, signal.SIGCONT)  # `fg`: asmcfg gives the program the terminal back and resumes it
    time.sleep(0.5)
    assert os.tcgetpgrp(master) != pid
    os.write(master, b"\x03")  # Ctrl-C from the keyboard goes to the program's group, which has the terminal
    while True:
        try:
            if not os.read(master, 4096):
                break
        except OSError:  # EIO: the terminal's last user closed it
            break
    _, status = os.waitpid(pid, 0)
    os.close(master)
    assert os.WEXITSTATUS(status) == 130 and hook.read_text() == "hook ran\n"


def test_the_jdk_release_decides_jdk8_and_the_perf_map_flag(tmp_path: Path) -> None:
    from asmcfg.record import capture, session

    assert [capture.java_major(r) for r in ("1.8.0_392", "11.0.22", "17.0.15", "25.0.3", None)] == [8, 11, 17, 25,
                                                                                                    None]
    assert capture.java_release(str(JAVA17)) == "17.0.15" and capture.java_release(str(JAVA25)) == "25.0.3"
    home = tmp_path / "jdk11"
    (home / "bin").mkdir(parents=True)
    (home / "release").write_text('JAVA_VERSION="11.0.22"\n')
    (home / "bin" / "java").write_text("#!/bin/sh\n")
    (home / "bin" / "java").chmod(0o755)
    assert session._perf_map_known([str(home / "bin" / "java")]) is False  # JDK 11 would refuse the flag
    assert session._perf_map_known([str(JAVA17)]) is True
    assert session._perf_map_known(["./run.sh"]) is True  # JAVA_TOOL_OPTIONS: the JVMs are not known beforehand
