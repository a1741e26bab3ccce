"""A record folder as an input, `perf script` text as `--profile`, `--pid` and `--skid previous`, on real
recordings (`tests/data/record/`, see `test_record_truth.py`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, json_methods, run_cli

HOTLOOP17 = DATA / "record" / "jdk17-HotLoop"
HOTLOOP25 = DATA / "record" / "jdk25-HotLoop"
RECOMPILE17 = DATA / "record" / "jdk17-Recompile"
LOG17 = HOTLOOP17 / "jvmpid5086.xml.xz"
SCRIPT17 = HOTLOOP17 / "perf-script.txt.xz"


def _samples(method: dict[str, Any]) -> dict[int, int]:
    return {int(i["address"], 16): i["samples"] for b in method["blocks"] for i in b["instructions"] if "samples" in i}


def _block_samples(method: dict[str, Any]) -> dict[int, int]:
    return {b["id"]: sum(i.get("samples", 0) for i in b["instructions"]) for b in method["blocks"]}


def test_folder_opens_its_hottest_compilation_with_the_loop_hottest() -> None:
    """HotLoop.run (compile id 16, C2) took 21.04% of the JVM's samples; its hottest block is in its loop."""
    (method,) = json_methods(str(HOTLOOP17))
    assert method["compile_id"] == 16 and method["name"] == "HotLoop::run"
    profile = method["profile"]
    assert profile["samples"] == 3084 and profile["events"] == ["cpu-clock"]
    assert round(profile["method_share"]["cpu-clock"], 2) == 21.04
    assert profile["share_of"] == "the JVM's samples" and profile["skid"] == "sampled"
    assert "instruction about to run" in profile["skid_note"]
    hottest = max(method["blocks"], key=lambda b: b["heat"]["cpu-clock"])
    assert any(hottest["id"] in loop["blocks"] for loop in method["loops"])


def test_folder_and_profile_of_its_files_give_the_same_graph() -> None:
    """`asmcfg DIR` is `asmcfg DIR/jvmpid<PID>.xml --profile DIR/perf-script.txt`: one way to read them."""
    folder = json_methods(str(HOTLOOP25))
    files = json_methods(str(HOTLOOP25 / "jvmpid6497.xml.xz"), "--profile", str(HOTLOOP25 / "perf-script.txt.xz"))
    assert folder == files
    assert folder[0]["compile_id"] == 20 and folder[0]["profile"]["samples"] == 3369


@pytest.mark.slow
def test_skid_previous_moves_each_sample_one_instruction_back_within_its_block() -> None:
    (sampled,) = json_methods(str(HOTLOOP17), "--compile-id", "16")
    (moved,) = json_methods(str(HOTLOOP17), "--compile-id", "16", "--skid", "previous")
    assert moved["profile"]["skid"] == "previous" and moved["profile"]["samples"] == 3084
    assert _block_samples(moved) == _block_samples(sampled)
    before, after = _samples(sampled), _samples(moved)
    assert before != after
    for block in sampled["blocks"]:
        addresses = [int(i["address"], 16) for i in block["instructions"]]
        for i, address in enumerate(addresses):
            expected = before.get(addresses[i + 1], 0) if i + 1 < len(addresses) else 0
            if i == 0:
                expected += before.get(address, 0)
            assert after.get(address, 0) == expected, hex(address)


def test_profile_of_another_run_is_not_applied() -> None:
    code, _, err = run_cli(str(LOG17), "--profile", str(HOTLOOP25 / "perf-script.txt.xz"), "--dot", "-")
    assert code == 0
    assert "profile NOT applied" in err and "no sample of pid 5086" in err
    (method,) = json_methods(str(LOG17), "--profile", str(HOTLOOP25 / "perf-script.txt.xz"))
    assert "profile" not in method


def test_a_compilation_without_samples_says_so() -> None:
    # compile id 9 (HotLoop$Xor::apply, C1) took none of the JVM's 14,659 samples: the recording applies, it
    # measured nothing there
    code, _, err = run_cli(str(HOTLOOP17), "--compile-id", "9", "--dot", "-")
    assert code == 0
    assert "profile: 0 samples in this compilation (compile id 9; pid 5086 took 14,659 in all)" in err
    assert "NOT applied" not in err


@pytest.mark.slow
def test_several_jvms_read_the_busiest_and_pid_chooses(tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    folder.mkdir()
    for path in (LOG17, SCRIPT17, RECOMPILE17 / "jvmpid5529.xml.xz"):
        shutil.copy(path, folder)
    code, _, err = run_cli(str(folder), "--list")
    assert code == 0
    assert "2 JVMs recorded (pids 5086, 5529): reading pid 5086" in err and "--pid" in err
    (other,) = json_methods(str(folder), "--pid", "5529", "--method", "Recompile::work")
    assert other["name"] == "Recompile::work" and "profile" not in other
    code, _, err = run_cli(str(folder), "--pid", "7", "--list")
    assert code == 1 and "--pid 7: no such JVM here; the folder holds pids 5086, 5529" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run_cli(str(folder / "jvmpid5529.xml.xz"), "--pid", "5529", "--list")
    assert code == 2 and "--pid chooses among the JVMs of a folder `asmcfg record` wrote" in err


def test_bad_folders_and_profiles_get_one_line(tmp_path: Path) -> None:
    code, _, err = run_cli(str(tmp_path), "--list")
    assert code == 1 and "nor an `asmcfg record` folder" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "jvmpid\u00b2.xml").write_text("")  # a digit to str.isdigit, not to int()
    code, _, err = run_cli(str(tmp_path), "--list")
    assert code == 1 and "nor an `asmcfg record` folder" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli("-", "--profile", str(SCRIPT17), "--dot", "-")
    assert code != 0 and "LogCompilation log" in err and "Traceback" not in err


@pytest.mark.slow
def test_diff_of_two_record_folders_chooses_and_ranks_by_the_samples(tmp_path: Path) -> None:
    """JDK 17 against JDK 25: each side's hottest HotLoop::run (ids 16 and 20, not the OSR ones), and the
    whole-log diff ranks the pairs by the new side's samples, HotLoop::run first."""
    out = tmp_path / "pair.json"
    code, _, err = run_cli("diff", str(HOTLOOP17), str(HOTLOOP25), "--method", "HotLoop::run", "--json", str(out))
    assert code == 0, err
    assert "old: chose the hottest (21.04% of its JVM's samples)" in err
    pair = json.loads(out.read_text())
    assert (pair["old"]["compile_id"], pair["new"]["compile_id"]) == (16, 20)
    whole = tmp_path / "whole.json"
    code, _, err = run_cli("diff", str(HOTLOOP17), str(HOTLOOP25), "--json", str(whole), "-q")
    assert code == 0, err
    pairs = json.loads(whole.read_text())["pairs"]
    assert [(p["method"], p["old_compile_id"], p["new_compile_id"]) for p in pairs[:4]] == [
        ("HotLoop::run", 16, 20), ("HotLoop$Xor::apply", 12, 15), ("HotLoop$Add::apply", 14, 17),
        ("HotLoop$Mul::apply", 13, 18)]


def test_perf_samples_without_a_log_of_their_run_are_one_line() -> None:
    """A PrintAssembly text as the input and no --log: the samples cannot be placed, and the error says how."""
    text = DATA / "nohsdis" / "jdk17-Tensor4D-print-nohsdis.txt"
    code, _, err = run_cli(str(text), "--profile", str(SCRIPT17), "--dot", "-")
    assert code == 1
    assert err.strip().splitlines() == [
        f"asmcfg: {text}: no `<hotspot_log process=… time_ms=…>`: `perf` samples are placed by the same run's "
        "-XX:+LogCompilation log (the input, or --log LOG)"]


@pytest.mark.slow
def test_a_folder_export_keeps_the_compilations_with_the_most_samples(tmp_path: Path) -> None:
    """`--all --html DIR --top 4` of a record folder: HotLoop.run and the three `apply` callees, the four that took
    3,084, 2,937, 2,928 and 2,823 of the JVM's samples."""
    out = tmp_path / "export"
    code, _, err = run_cli(str(HOTLOOP17), "--all", "--html", f"{out}/", "--top", "4")
    assert code == 0, err
    assert "--top 4: the 4 hottest (measured heat)" in err
    assert sorted(p.name for p in out.glob("id-*.html")) == ["id-12.html", "id-13.html", "id-14.html", "id-16.html"]


@pytest.mark.slow
def test_serve_of_two_record_folders_ranks_by_samples_and_opens_a_pair_with_its_heat() -> None:
    """`asmcfg serve DIR17 DIR25`: the index (its page data) ranks HotLoop::run first, and that pair's page draws
    both compilations with their samples (not the folders' "is a directory" page)."""
    import re
    import signal

    from served import Served

    served = Served(HOTLOOP17, str(HOTLOOP25), "-q")
    try:
        opener = served.opener()
        index = opener.open(served.base, timeout=60).read().decode("utf-8")
        data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', index, re.S)
                          .group(1))  # type: ignore[union-attr]
        first = data["rows"][0]
        assert (first["method"], first["old_id"], first["new_id"]) == ("HotLoop::run", 16, 20)
        assert data["pages"][0] == "/pair/16/20", "the pair named by its two compile ids"
        page = opener.open(f"{served.base}pair/16/20", timeout=120).read().decode("utf-8")
        assert "c2 id 16 tier 4 HotLoop::run" in page and "c2 id 20 tier 4 HotLoop::run" in page
        assert "&quot;samples&quot;:3084," in page and "&quot;samples&quot;:3369," in page  # each side's profile
    finally:
        served.stop(signal.SIGINT)


def test_one_pass_over_the_samples_bins_each_jvm_as_a_pass_of_its_own() -> None:
    """The JMH recording's two forks, binned together in one read of perf-script.txt (the summary after a
    recording), count exactly what each fork's own read counts: compilations, places, threads, other processes."""
    from asmcfg.dialects.perfscript.heat import read_perf_heat, read_perf_heats

    folder = DATA / "record" / "jmh-fork"
    script = str(folder / "perf-script.txt.xz")
    logs = [str(folder / "jvmpid2892.xml.xz"), str(folder / "jvmpid3118.xml.xz")]
    together = read_perf_heats(script, logs)
    for log, heat in zip(logs, together, strict=True):
        alone = read_perf_heat(script, log).found
        found = heat.found
        assert {cid: dict(c.ips) for cid, c in found.compilations.items()} == {
            cid: dict(c.ips) for cid, c in alone.compilations.items()}
        assert (found.places, found.code_cache, found.others, found.process, found.reused) == (
            alone.places, alone.code_cache, alone.others, alone.process, alone.reused)
        assert {k: t.places for k, t in found.threads.items()} == {k: t.places for k, t in alone.threads.items()}
    assert [h.found.compilations[cid].total for h, cid in zip(together, (499, 535), strict=True)] == [1993, 1886]


def test_a_perf_line_with_digits_int_refuses_is_no_sample(tmp_path: Path) -> None:
    """Real samples of the JDK 17 HotLoop run, three of them with a superscript digit (`str.isdigit` takes it,
    `int` does not) in the thread id, the period and the time: those three are left out and counted."""
    import lzma

    lines = lzma.decompress(SCRIPT17.read_bytes()).decode("utf-8").splitlines()[:2000]
    crafted = [lines[10].replace(" 5086/5086 ", " 5086/508\u00b2 "), lines[11].replace(" 200040 ", " 20004\u00b9 "),
               lines[12].replace(" 1795641098.", " 179564109\u00b3.")]
    assert all(a != b for a, b in zip(crafted, lines[10:], strict=False))
    script = tmp_path / "perf-script.txt"
    script.write_text("\n".join(lines[:10] + crafted + lines[13:]) + "\n", encoding="utf-8")
    code, _, err = run_cli(str(LOG17), "--profile", str(script), "--compile-id", "16", "--dot", "/dev/null")
    assert code == 0, err
    assert "3 lines are no `perf script -F comm,pid,tid,time,period,event,ip,sym,dso --ns` sample" in err
