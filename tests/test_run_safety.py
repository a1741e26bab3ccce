"""A run stopped or misdirected leaves nothing behind and destroys nothing.

SIGTERM and SIGHUP in the middle of `--jsonl` of real PrintAssembly text fed through stdin (held open, so that the
run lasts until it is stopped, however fast the machine) end it as Ctrl-C does: exit 128+N, no hidden temp file,
no worker process left running; a worker whose parent is killed outright dies with it. An output that names an
input is refused before anything is read, and the input keeps its bytes; a rewritten report keeps its permission
bits and its symlink; two outputs on stdout, an output the mode ignores, a `nan` timeout and a closed stdout are
one clear line each; a reader that stops early (`| head`) ends the run quietly.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from corpus import DATA, HSDIS, run_cli

from asmcfg.run import opening, pipeline

JAVAC = DATA / "logc" / "javac-jdk17-excerpt.xml.gz"
TENSOR = HSDIS / "jdk17-Tensor4D-print-hsdis-att.txt.gz"
LOG = DATA / "logc" / "jdk17-Tensor4D.xml.gz"
REPEATS = 6
"""Copies of javac's compilations in the long log: about 19 MB, a minute or more of `--jsonl` on two cores."""
FED = 64
"""Copies of the Tensor4D dump (7.6 MB) written to the run's stdin before it is stopped: more than the 2 MB chunks
it reads at a time, several batches for the workers."""
WAIT = 120.0
"""Seconds any one step may take on a loaded machine."""


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """javac's LogCompilation log with everything its `<tty>` holds (compilations, assembly) repeated."""
    text = gzip.decompress(JAVAC.read_bytes()).decode("utf-8")
    start = text.index("<tty>\n") + len("<tty>\n")
    end = text.index("<tty_done")
    path = tmp_path_factory.mktemp("long") / "javac-long.xml"
    path.write_text(text[:start] + text[start:end] * REPEATS + text[end:], encoding="utf-8")
    return path


def _asmcfg(*args: str) -> list[str]:
    return [sys.executable, "-m", "asmcfg", *args]


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat after the command name (state, ppid, …; starttime is index 19), None once it is reaped."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _children(pid: int) -> dict[int, str]:
    """The processes whose parent is `pid`, with their start times (a pid used again is another process)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None and int(fields[1]) == pid:
                found[int(entry.name)] = fields[19]
    return found


def _alive(pid: int, started: str) -> bool:
    """True while that process runs (a zombie has ended: it only waits to be reaped)."""
    fields = _stat_fields(pid)
    return fields is not None and fields[19] == started and fields[0] != "Z"


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"waited {WAIT:g} s for {what}"
        time.sleep(0.05)


def _temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(".asmcfg-*.tmp"))


@pytest.fixture
def started(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], dict[int, str], Path]]:
    """`asmcfg - --jsonl OUT` on PrintAssembly text fed through its stdin, which stays open: the run cannot end
    before the test stops it; handed over once its temp file and a worker exist."""
    out = tmp_path / "out.jsonl"
    with (tmp_path / "stderr").open("wb") as err:
        process = subprocess.Popen(_asmcfg("-", "--jsonl", str(out), "-q"), stdin=subprocess.PIPE,
                                   stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    assert process.stdin is not None
    workers: dict[int, str] = {}
    try:
        text = gzip.decompress(TENSOR.read_bytes())
        for _ in range(FED):  # a worker takes what the run has cut of it
            process.stdin.write(text)
        process.stdin.flush()
        _wait_for(lambda: bool(_temps(tmp_path) and _children(process.pid)) or process.poll() is not None,
                  "the temp file and a worker")
        workers.update(_children(process.pid))
        assert process.poll() is None and workers, (tmp_path / "stderr").read_text()
        yield process, workers, tmp_path
    finally:
        for pid, start in workers.items():
            if _alive(pid, start):
                os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
        process.wait(timeout=WAIT)
        process.stdin.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_mid_run_exits_128_plus_n_and_leaves_no_temp_file_or_worker(
    started: tuple[subprocess.Popen[bytes], dict[int, str], Path], signum: int
) -> None:
    process, workers, folder = started
    assert _temps(folder), "the temp file is there while the run writes"
    os.kill(process.pid, signum)
    assert process.wait(timeout=WAIT) == 128 + signum
    err = (folder / "stderr").read_text()
    assert err == f"asmcfg: stopped by {signal.Signals(signum).name}\n"
    assert _temps(folder) == [] and not (folder / "out.jsonl").exists()
    _wait_for(lambda: not any(_alive(pid, start) for pid, start in workers.items()), "the workers to end")


def test_a_worker_dies_with_its_parent_killed_outright(
    started: tuple[subprocess.Popen[bytes], dict[int, str], Path],
) -> None:
    process, workers, _ = started
    os.kill(process.pid, signal.SIGKILL)
    assert process.wait(timeout=WAIT) == -signal.SIGKILL
    _wait_for(lambda: not any(_alive(pid, start) for pid, start in workers.items()), "the orphaned workers to end")


@pytest.fixture
def no_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any read of an input fails the test: the checks come before it."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an input was read")

    monkeypatch.setattr(pipeline, "open_input", refuse)  # every whole read, the Log's included, goes through it
    monkeypatch.setattr(opening, "open_one", refuse)


def _usage_error(code: int, err: str, *words: str) -> str:
    """The `Error:` line of a click usage error, which names each of `words`."""
    assert code == 2, err
    line = err.strip().splitlines()[-1]
    assert line.startswith("Error: ") and all(w in line for w in words), line
    return line


@pytest.mark.parametrize("flag", ["--json", "--html", "--dot", "--jsonl", "--svg"])
def test_an_output_that_is_the_input_is_refused_and_the_input_kept(
    tmp_path: Path, flag: str, no_reading: None
) -> None:
    log = tmp_path / "run.log.gz"
    log.write_bytes(TENSOR.read_bytes())
    code, _, err = run_cli(str(log), flag, str(log))
    _usage_error(code, err, flag, "would overwrite the input", str(log))
    assert log.read_bytes() == TENSOR.read_bytes()


@pytest.mark.parametrize("link", ["symlink", "hardlink", "dotdot"])
def test_an_output_that_reaches_the_input_another_way_is_refused(tmp_path: Path, link: str, no_reading: None) -> None:
    log = tmp_path / "run.log.gz"
    log.write_bytes(TENSOR.read_bytes())
    other = tmp_path / "other.gz"
    if link == "symlink":
        other.symlink_to(log.name)
    elif link == "hardlink":
        os.link(log, other)
    else:
        (tmp_path / "sub").mkdir()
        other = tmp_path / "sub" / ".." / log.name
    code, _, err = run_cli(str(log), "--json", str(other))
    _usage_error(code, err, "--json")
    assert log.read_bytes() == TENSOR.read_bytes()


@pytest.mark.parametrize("flag", ["--log", "--profile"])
def test_an_output_over_the_log_or_the_profile_is_refused(tmp_path: Path, flag: str, no_reading: None) -> None:
    side = tmp_path / "side.xml.gz"
    side.write_bytes(LOG.read_bytes())
    code, _, err = run_cli(str(TENSOR), flag, str(side), "--json", str(side))
    _usage_error(code, err, "--json", flag)
    assert side.read_bytes() == LOG.read_bytes()


def test_an_output_over_a_java_source_is_refused(tmp_path: Path, no_reading: None) -> None:
    source = tmp_path / "src" / "Tensor4D.java"
    source.parent.mkdir()
    source.write_text("class Tensor4D {}\n")
    code, _, err = run_cli(str(TENSOR), "--source-path", str(source.parent), "--html", "-", "--json", str(source))
    _usage_error(code, err, "--json", "--source-path")
    assert source.read_text() == "class Tensor4D {}\n"


@pytest.mark.parametrize("flag", ["--html", "--json", "--dot", "--svg"])
def test_diff_refuses_an_output_over_either_input(tmp_path: Path, flag: str, no_reading: None) -> None:
    old, new = tmp_path / "old.gz", tmp_path / "new.gz"
    old.write_bytes(TENSOR.read_bytes())
    new.write_bytes(TENSOR.read_bytes())
    code, _, err = run_cli("diff", str(old), str(new), flag, str(new))
    _usage_error(code, err, flag, "NEW")
    assert new.read_bytes() == old.read_bytes() == TENSOR.read_bytes()


def test_an_output_over_the_file_on_stdin_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "run.log.gz"
    log.write_bytes(TENSOR.read_bytes())
    with log.open("rb") as stdin:
        done = subprocess.run(_asmcfg("-", "--json", str(log)), stdin=stdin, capture_output=True, timeout=WAIT)
    _usage_error(done.returncode, done.stderr.decode(), "--json", "standard input")
    assert log.read_bytes() == TENSOR.read_bytes()


def test_a_rewritten_report_keeps_its_permissions(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text("old")
    report.chmod(0o600)
    code, _, err = run_cli(str(TENSOR), "--json", str(report), "-q")
    assert code == 0, err
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    assert json.loads(report.read_text())["schema"] == 1


def test_a_symlinked_output_stays_a_link_and_its_target_is_written(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "graph.dot"
    target.write_text("old")
    link = tmp_path / "graph.dot"
    link.symlink_to(Path("real") / "graph.dot")
    code, _, err = run_cli(str(TENSOR), "--dot", str(link), "-q")
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(Path("real") / "graph.dot")
    assert target.read_text().startswith("digraph")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["graph.dot", "graph.dot", "real"]


@pytest.mark.parametrize(
    ("args", "flags"),
    [(["--html", "-", "--json", "-"], ["--json", "--html"]),
     (["--dot", "-", "--svg", "-", "--json", "-"], ["--json", "--svg", "--dot"]),
     (["--json", "x.json", "--dot", "x.json"], ["--json", "--dot", "x.json"])],
    ids=["html-json", "three", "one-file"],
)
def test_two_outputs_in_one_place_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], flags: list[str], no_reading: None
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(str(TENSOR), *args)
    _usage_error(code, err, *flags)
    assert out == "" and list(tmp_path.iterdir()) == []


def test_diff_refuses_two_outputs_on_stdout(no_reading: None) -> None:
    code, _, err = run_cli("diff", str(TENSOR), "--compile-id", "7", "--compile-id", "9", "--json", "-", "--dot", "-")
    _usage_error(code, err, "--json", "--dot", "stdout")


@pytest.mark.parametrize(
    ("args", "named"),
    [(["--list", "--json", "-", "--svg", "x.svg"], ["--list", "--svg"]),
     (["--list", "--html", "x.html", "--dot", "x.dot"], ["--list", "--html", "--dot"]),
     (["--jsonl", "-", "--html", "x.html"], ["--jsonl", "--html"]),
     (["--source-path", "."], ["--source-path", "--html"])],
    ids=["list-json-svg", "list-html-dot", "jsonl-html", "source-path-alone"],
)
def test_an_output_flag_the_mode_ignores_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], named: list[str], no_reading: None
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(str(TENSOR), *args)
    _usage_error(code, err, *named)
    assert out == "" and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [[], ["diff", str(TENSOR), "--compile-id", "7", "--compile-id", "9"]],
                         ids=["main", "diff"])
def test_svg_dash_is_stdout_never_a_file_named_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    args = command or [str(TENSOR)]
    code, out, err = run_cli(*args, "--svg", "-", "--renderer", "graphviz-pure", "-q")
    assert code == 0, err
    assert out.lstrip().startswith("<?xml") and out.rstrip().endswith("</svg>")
    assert list(tmp_path.iterdir()) == []


def test_a_missing_output_folder_fails_before_reading(tmp_path: Path, no_reading: None) -> None:
    missing = tmp_path / "no" / "such"
    for command, output in (([str(TENSOR), "--html"], missing / "x.html"),
                            (["diff", str(TENSOR), str(TENSOR), "--json"], missing / "x.json")):
        code, _, err = run_cli(*command, str(output))
        assert code == 1
        assert err == f"asmcfg: {output}: folder {missing} does not exist (create it first)\n"


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "-5", "0"])
@pytest.mark.parametrize("command", [[str(TENSOR)], ["diff", str(TENSOR), str(TENSOR)]], ids=["main", "diff"])
def test_a_render_timeout_that_is_no_number_of_seconds_is_a_usage_error(
    command: list[str], value: str, no_reading: None
) -> None:
    code, _, err = run_cli(*command, "--svg", "x.svg", "--render-timeout", value)
    _usage_error(code, err, "--render-timeout")


@pytest.mark.parametrize("args", [["--json", "-"], ["--list"], [], ["--jsonl", "-"], ["--svg", "-"]],
                         ids=["json", "list", "dot", "jsonl", "svg"])
def test_a_closed_stdout_is_one_line_and_an_error(args: list[str]) -> None:
    done = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *_asmcfg(str(TENSOR), *args, "-q")],
                          capture_output=True, timeout=WAIT)
    err = done.stderr.decode()
    assert done.returncode == 1 and "Traceback" not in err
    assert err == "asmcfg: standard output is closed: name a FILE for the output, or leave stdout open\n"


def test_a_reader_that_stops_early_ends_the_run_quietly_and_its_workers(long_log: Path) -> None:
    """`asmcfg LOG --jsonl - | head -c1`: the reader had enough, as a pipeline expects: exit 0, nothing on stderr,
    and the run's workers end with it."""
    with subprocess.Popen(_asmcfg(str(long_log), "--jsonl", "-", "-q"), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.read(1)  # `| head -c1`
        workers = _children(process.pid)
        process.stdout.close()
        err = process.stderr.read().decode()
        process.wait(timeout=WAIT)
    assert first == b"{"
    assert process.returncode == 0 and err == ""
    _wait_for(lambda: not any(_alive(pid, start) for pid, start in workers.items()), "the workers to end")
