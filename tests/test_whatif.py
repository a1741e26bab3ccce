"""`asmcfg whatif` without a JDK: the replay files of a real JDK 25 recording (tests/data/whatif, see SOURCES.md)
read and edited, the JVM options checked, and the whole what-if run against a stand-in `java` that writes the
logs the real replays wrote (or fails as a JVM fails): the outputs, the fidelity line, one line per failure,
nothing left running and no file left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from asmcfg.errors import InputError
from asmcfg.record import replay
from asmcfg.whatif import options, replayfile

DATA = Path(__file__).resolve().parent / "data" / "whatif"
FOLDER = DATA / "rec"
ARCHIVE = FOLDER / "replay-pid19291.zip"
ADD, CALLS = 17, 18
FAKE = textwrap.dedent('''\
    import lzma, os, signal, sys, time
    args = sys.argv[1:]
    if "-XX:+PrintFlagsFinal" in args:
        for flag in ("bool UseSuperWord = true", "intx LoopUnrollLimit = 60", "bool AlignVector = true",
                     "bool PartialPeelLoop = true"):
            print(f"     {flag}    {{C2 product}} {{default}}")
        sys.exit(0)
    log = next(a.split("=", 1)[1] for a in args if a.startswith("-XX:LogFile="))
    mode = os.environ.get("FAKE_JAVA", "replay")
    with open(os.environ["FAKE_JAVA_PIDS"], "a") as pids:
        pids.write(f"{os.getpid()}\\n")
    if mode == "hang":
        time.sleep(600)
    if mode == "crash":
        print("#\\n# A fatal error has been detected by the Java Runtime Environment:\\n#\\n"
              "#  SIGSEGV (0xb) at pc=0x1, pid=1, tid=2\\n#\\n# Problematic frame:\\n"
              "# V  [libjvm.so+0xeaf760]  Parse::do_one_bytecode()+0x460\\n#")
        open(f"{os.path.dirname(log)}/whatif-hs_err{os.getpid()}.log", "w").write("#\\n")
        os.kill(os.getpid(), signal.SIGABRT)
    if mode == "refuse" and "-XX:-UseSuperWord" in args:
        print("Unrecognized VM option 'UseSuperWord'\\nError: Could not create the Java Virtual Machine.",
              file=sys.stderr)
        sys.exit(1)
    name = "add-UseSuperWord-off" if "-XX:-UseSuperWord" in args else "add-baseline"
    data = lzma.decompress(open(f"{os.environ['FAKE_JAVA_DATA']}/{name}.xml.xz", "rb").read())
    open(log, "wb").write(data)
''')


def task_of(compile_id: int) -> tuple[str, replayfile.Task]:
    text = (replay.read(ARCHIVE, compile_id) or b"").decode()
    return text, replayfile.task(text, f"compid{compile_id}")


def test_a_replay_files_compile_line_names_the_method_and_its_recorded_inlining() -> None:
    _, add = task_of(ADD)
    assert (add.name, add.pattern, add.signature, add.osr_bci, add.level) == ("WhatIf::add", "WhatIf.add", "()V",
                                                                              None, 4)
    _, calls = task_of(CALLS)
    assert calls.inlining is not None
    assert [(e.depth, e.bci, e.callee) for e in calls.inlining] == [(0, -1, "WhatIf::calls"),
                                                                     (1, 14, "WhatIf::small")]


def test_the_inlining_list_can_be_taken_out_and_the_rest_is_kept() -> None:
    text, calls = task_of(CALLS)
    edited = replayfile.without_inlining(text, calls)
    again = replayfile.task(edited, "edited")
    assert again.inlining is None and again.name == calls.name and again.line == calls.line
    assert len(edited.splitlines()) == len(text.splitlines())
    assert [a for a, b in zip(edited.splitlines(), text.splitlines(), strict=True) if a != b] == [
        "compile WhatIf calls ([I)J -1 4"]


@pytest.mark.parametrize(("text", "said"), [
    ("version 2\nciMethod A b ()V 1 2 3 4 5\n", "x.log: no `compile` line"),
    ("version 2\ncompile A b ()V -1\n", "x.log:2: a compile line names"),
    ("version 2\ncompile A b ()V -1 4 inline 2 0 -1 0 A b ()V\n", "x.log:2: the inline list says 2 entries but "
                                                                "ends after 1"),
    ("version 2\ncompile A b ()V -1 4 inline 1 0 -1 0 @3 A b ()V 4 <appendix>\n", "x.log:2: a dynamic class"),
    ("version 2\ncompile A b ()V x 4\n", "x.log:2: expected a number, found 'x'"),
])
def test_a_broken_replay_file_is_one_error_naming_its_line(text: str, said: str) -> None:
    with pytest.raises(InputError) as error:
        replayfile.task(text, "x.log")
    assert said in str(error.value)


@pytest.mark.parametrize("option", ["-XX:-UseSuperWord", "-XX:LoopUnrollLimit=1", "-XX:UseAVX=2",
                                    "-XX:CompileCommand=dontinline,WhatIf::small", "-XX:DisableIntrinsic=_min",
                                    "-XX:+AlignVector", "-XX:MaxInlineSize=100"])
def test_options_of_the_xx_form_pass(option: str) -> None:
    assert options.check(option) == option


@pytest.mark.parametrize("option", ["-Xmx1g", "-XX:LogFile=/etc/passwd", "-XX:OnError=sh -c id", "-XX:OnError=id",
                                    "-XX:ErrorFile=/tmp/x", "-XX:+HeapDumpOnOutOfMemoryError",
                                    "-XX:HeapDumpPath=/tmp", "-XX:CompileCommandFile=/tmp/c",
                                    "-XX:ReplayDataFile=/tmp/r", "-XX:+UseSuperWord;id", "-XX:+A\x1b[2J",
                                    "-XX:Flags=/tmp/f", "-XX:VMOptionsFile=/tmp/o", "-agentlib:jdwp",
                                    "-XX:SharedArchiveFile=/tmp/a.jsa", "-XX:+DumpPerfMapAtExit",
                                    "-XX:StartFlightRecording=filename=/tmp/x", "--module-path=/tmp",
                                    "-XX:CompileCommand=option,A::b,ccstr,PrintIdealGraphFile,/tmp/x"])
def test_options_that_reach_files_commands_or_the_shell_are_refused(option: str) -> None:
    with pytest.raises(InputError):
        options.check(option)


def test_an_inlining_limit_makes_the_what_if_decide_inlining_afresh() -> None:
    assert options.changes_inlining(("-XX:MaxInlineSize=100",))
    assert options.changes_inlining(("-XX:FreqInlineSize=500", "-XX:-UseSuperWord"))
    assert not options.changes_inlining(("-XX:-UseSuperWord", "-XX:CompileCommand=inline,A::b"))


@pytest.fixture
def fake(tmp_path: Path) -> dict[str, str]:
    """A stand-in `java` (with no JDK release file: its release is unknown), and the environment it reads."""
    java = tmp_path / "fake" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!{sys.executable}\n{FAKE}")
    java.chmod(0o755)
    temp = tmp_path / "temp"
    temp.mkdir()
    return {"java": str(java), "FAKE_JAVA_DATA": str(DATA / "replays"), "FAKE_JAVA_PIDS": str(tmp_path / "pids"),
            "TMPDIR": str(temp)}


def whatif(fake: dict[str, str], *args: str, mode: str = "replay") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **{k: v for k, v in fake.items() if k != "java"}, "FAKE_JAVA": mode}
    return subprocess.run([sys.executable, "-m", "asmcfg", "whatif", str(FOLDER), "--java", fake["java"],
                           "--classpath", str(DATA / "classes"), *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def assert_nothing_left(fake: dict[str, str]) -> None:
    assert os.listdir(fake["TMPDIR"]) == []
    for pid in Path(fake["FAKE_JAVA_PIDS"]).read_text().split():
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


def test_a_what_if_reports_the_diff_of_the_two_replays_and_that_the_baseline_matches(
        fake: dict[str, str], tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    done = whatif(fake, "--compile-id", str(ADD), "--json", "-", "--html", str(page), "--", "-XX:-UseSuperWord")
    assert done.returncode == 0, done.stderr
    said = done.stderr.splitlines()
    assert said[0].startswith("whatif: WhatIf::add (compile id 17 of pid 19291)")
    assert said[1] == "baseline matches the recording"
    assert "256-bit int (avx) → -" in done.stderr
    document = json.loads(done.stdout)
    assert document["diff_schema"] == 3 and document["old"]["instructions"] > document["new"]["instructions"]
    vectors = [(p["old"] or {}).get("vector") for p in document["loops"]]
    assert any(v and v["bits"] == 256 for v in vectors)
    assert not any(p["new"] and p["new"]["vector"] for p in document["loops"])  # no vector loop is left
    what = document["whatif"]
    assert what["jvm_options"] == ["-XX:-UseSuperWord"] and what["baseline_matches_recorded"] is True
    assert what["baseline_differences"] == [] and [c["replay"] for c in what["commands"]] == [
        "baseline", "what-if -XX:-UseSuperWord"]
    assert "-XX:+ReplayCompiles" in what["commands"][0]["argv"]
    assert "baseline matches the recording" in page.read_text()
    assert_nothing_left(fake)


@pytest.mark.parametrize(("mode", "args", "said"), [
    ("crash", (), "baseline: the JVM crashed replaying the compilation (SIGSEGV in Parse::do_one_bytecode(); "
                  "classes rebuilt since the recording, or an option C2 cannot take?)"),
    ("refuse", (), "what-if -XX:-UseSuperWord: the JVM refused an option: the JVM says "
                   "\"Unrecognized VM option 'UseSuperWord'\""),
    ("hang", ("--timeout", "1"), "baseline: the replay did not end within 1 s (it was killed; --timeout SECONDS "
                                 "gives it longer)"),
])
def test_a_replay_that_fails_is_one_line_and_leaves_nothing(fake: dict[str, str], mode: str,
                                                             args: tuple[str, ...], said: str) -> None:
    done = whatif(fake, "--compile-id", str(ADD), *args, "--", "-XX:-UseSuperWord", mode=mode)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"asmcfg: whatif: {said}"]
    assert_nothing_left(fake)


def test_a_jdk_before_20_is_refused_naming_the_fix(fake: dict[str, str], tmp_path: Path) -> None:
    (Path(fake["java"]).parent.parent / "release").write_text('JAVA_VERSION="17.0.15"\n')
    done = whatif(fake, "--compile-id", str(ADD), "--", "-XX:-UseSuperWord")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "asmcfg: whatif: JDK 17 replays no compilation (-XX:+ReplayCompiles is in its debug builds only, product "
        "builds have it from JDK 20 on): record on JDK 21 or later"]


def test_a_compilation_without_replay_data_is_one_line(fake: dict[str, str]) -> None:
    done = whatif(fake, "--method", "WhatIf::big", "--", "-XX:-UseSuperWord")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"asmcfg: {FOLDER}: no replay data for WhatIf::big (compile id 13 of pid 19291) (the folder holds those "
        "of compile ids 17, 18): record with asmcfg record --replay covering it, on JDK 21 or later"]


@pytest.mark.parametrize("args", [("--", "-XX:LogFile=/tmp/x"), ("--", "-Xmx1g"), ("--", "-XX:OnError=id"), ()])
def test_bad_options_are_usage_errors_before_anything_runs(fake: dict[str, str], args: tuple[str, ...]) -> None:
    done = whatif(fake, *args, mode="hang")
    assert done.returncode == 2 and not Path(fake["FAKE_JAVA_PIDS"]).exists()
    assert "Error: " in done.stderr


def test_a_sweep_replays_each_switch_the_jvm_has_and_ranks_them(fake: dict[str, str]) -> None:
    done = whatif(fake, "--compile-id", str(ADD), "--sweep", "--json", "-")
    assert done.returncode == 0, done.stderr
    said = done.stderr.splitlines()
    assert said[0].startswith("whatif --sweep: WhatIf::add (compile id 17 of pid 19291), JDK 25.0.3+9-LTS: 3 "
                              "switches in ")
    assert "left out: PartialPeelLoop: this JVM has no such flag" not in said[0]  # it has it
    assert "AlignVector: already true" in said[0] and "UseAVX: this JVM has no such flag" in said[0]
    assert said[1] == "baseline matches the recording"
    assert said[2].startswith("hottest loop: B13 (main loop x8), 28 instructions per iteration, 256-bit int (avx)")
    document = json.loads(done.stdout)
    assert document["sweep_schema"] == 1 and document["whatif"]["baseline_matches_recorded"] is True
    ranked = [(row["option"], row["hottest_loop"]["after"]["vector_bits"]) for row in document["rows"]]
    assert ranked == [("-XX:-UseSuperWord", None), ("-XX:LoopUnrollLimit=1", 256), ("-XX:-PartialPeelLoop", 256)]
    assert_nothing_left(fake)


def test_a_dynamic_class_in_the_inlining_list_runs_to_its_semicolon() -> None:
    # as JDK 25 writes a lambda's hidden class: named by the call site that made it
    line = ("compile A run ()V -1 4 inline 2 0 -1 0 A run ()V 1 7 0 @7 A run ()V 7 <appendix> member <vmtarget> ; "
            "<init> ()V\n")
    found = replayfile.task("version 2\n" + line, "x.log")
    assert [(e.depth, e.bci, e.callee) for e in found.inlining or ()] == [(0, -1, "A::run"),
                                                                          (1, 7, "A$hidden::<init>")]


def test_a_replay_files_names_go_into_a_compile_command_only_when_plain() -> None:
    assert replayfile.task("compile A main ([Ljava/lang/String;)V -1 4\n", "x.log").pattern == "A.main"
    with pytest.raises(InputError, match=r"x\.log:1: the class, method or signature holds characters"):
        replayfile.task("compile A,quiet b ()V -1 4\n", "x.log")


def test_the_thread_logs_a_killed_replay_leaves_are_removed_and_nothing_else(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from asmcfg.whatif import runner

    monkeypatch.setattr(runner, "THREAD_LOGS", tmp_path)
    (tmp_path / "hs_c7_pid99.log").write_text("<compilation_log/>")
    (tmp_path / "hs_c7_pid98.log").write_text("another JVM's")
    (tmp_path / "target").write_text("not a thread log")
    os.symlink(tmp_path / "target", tmp_path / "hs_c8_pid99.log")
    runner.remove_thread_logs(99)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hs_c7_pid98.log", "hs_c8_pid99.log", "target"]
