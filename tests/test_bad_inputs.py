"""Whatever users feed asmcfg: one-line errors with the right exit code, or a graph from what could be read.

The file cases are in tests/bad/cases.json (inputs built by tests/bad/generate.py from real dumps and real
tool output); cases that need a live setup (a directory, stdin, pipes, a 10 MB line) are written out below.
"""

from __future__ import annotations

import errno
import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus import run_cli

from asmcfg.cli import INTERNAL_ERROR
from asmcfg.run import app
from asmcfg.run.options import Options
from asmcfg.sources import diagnose, lines as sources

BAD = Path(__file__).parent / "bad"
CASES: list[dict[str, Any]] = json.loads((BAD / "cases.json").read_text())["cases"]
CONTRACT = re.compile(r"^asmcfg: (?:\S[^:]*(?::\d+)?: )?\S.* \(.+\)$")
"""`asmcfg: FILE:LINE: what is wrong (what to do)`; FILE and LINE when they are known."""
LF = BAD / "lf.txt"


def assert_one_line_error(code: int, err: str) -> str:
    """An error run: one line on stderr in the contract's form, no traceback, not the internal-error code."""
    assert code not in (0, INTERNAL_ERROR), err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert CONTRACT.match(lines[0]), lines[0]
    return lines[0]


def run_process(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    """`python -m asmcfg ARGS` as a real process (stdin, stdout and pipes as the shell gives them); the time limit
    only turns a hang into a failure."""
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("timeout", 120)
    return subprocess.run([sys.executable, "-m", "asmcfg", *args], stderr=subprocess.PIPE, **kwargs)


def _case_id(case: dict[str, Any]) -> str:
    return " ".join([case["file"], *case.get("args", [])])


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_bad_input_gives_the_expected_code_and_message(case: dict[str, Any]) -> None:
    path = str(BAD / case["file"])
    code, out, err = run_cli(path, *case.get("args", []))
    assert code == case["code"], err
    assert "Traceback" not in err and "internal error" not in err
    assert case["stderr"].replace("{file}", path) in err
    assert case.get("stdout", "").replace("{file}", path) in out
    if code:
        assert_one_line_error(code, err)


def test_every_case_file_is_in_the_table() -> None:
    files = {p.name for p in BAD.iterdir() if p.suffix not in (".py", ".json", ".md")}
    assert files == {c["file"] for c in CASES}


@pytest.mark.parametrize(
    ("sample", "line", "message"),
    [
        (["Could not load hsdis-amd64.so; library not loadable; PrintAssembly is disabled"], 1,
         "the JVM could not load hsdis, so PrintAssembly printed no code: 'Could not load hsdis-amd64.so'"),
        (["#", "# A fatal error has been detected by the Java Runtime Environment:", "#"], 2,
         "this is a JVM crash report (hs_err)"),
        (["000     B1: #\tout( B2 ) <- BLOCK HEAD IS JUNK  Freq: 1", "000     # stack bang (96 bytes)"], 1,
         "-XX:+PrintOptoAssembly output"),
        (["a.out`main:", "a.out[0x100003f70] <+0>:  pushq  %rbp", "->  0x100003f74 <+4>:  movq   %rsp, %rbp",
          "    0x100003f77 <+7>:  xorl   %eax, %eax"], 1, "this looks like lldb disassembly"),
        (["PK\x03\x04\x14\x00\x08"], 1, "this is a zip archive"),
        (["FLR\x00\x00\x02\x00\x01"], 1, "this is a JFR recording"),
        (["a line of prose", "and another"], 0, diagnose.GENERIC),
    ],
    ids=["hsdis-missing", "hs_err", "opto-assembly", "lldb", "zip", "jfr", "prose"],
)
def test_recognisers_on_formats_without_a_sample_file(sample: list[str], line: int, message: str) -> None:
    found = diagnose.explain(sample)
    assert found.line == line and message in found.message
    assert found.message.endswith(")")


def test_crlf_line_endings_give_the_same_graph_as_lf() -> None:
    crlf = run_cli(str(BAD / "crlf.txt"), "-q", "--no-fold")
    lf = run_cli(str(LF), "-q", "--no-fold")
    assert crlf[0] == lf[0] == 0
    assert crlf[1] == lf[1]


def test_skipped_lines_are_counted_and_the_first_five_shown_with_their_line_numbers() -> None:
    path = BAD / "interleaved.txt"
    code, _, err = run_cli(str(path))
    assert code == 0
    count = int(re.search(r"(\d+) lines inside the method were not understood", err).group(1))  # type: ignore[union-attr]
    shown = re.findall(rf"^  {re.escape(str(path))}:(\d+): '(.*)'$", err, flags=re.M)
    assert count > 5 and len(shown) == 5
    lines = path.read_text().splitlines()
    assert all(lines[int(number) - 1].startswith(text[:60]) for number, text in shown)


def test_a_directory() -> None:
    code, _, err = run_cli(str(BAD))
    assert "is a directory, not a HotSpot log (give a file)" in assert_one_line_error(code, err)


def test_a_missing_file() -> None:
    code, _, err = run_cli(str(BAD / "no-such-file.txt"))
    assert f"{BAD}/no-such-file.txt: no such file (check the path)" in assert_one_line_error(code, err)


def test_an_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.txt"
    path.write_bytes(LF.read_bytes())
    path.chmod(0)
    if os.geteuid() == 0:
        # root reads a mode-000 file anyway, so chmod proves nothing here: fake the refusal open() would give.
        def refuse(name: str, *args: Any, **kwargs: Any) -> Any:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)

        monkeypatch.setattr(sources, "open", refuse, raising=False)
    code, _, err = run_cli(str(path))
    assert "secret.txt: permission denied (check the file's permissions)" in assert_one_line_error(code, err)


@pytest.mark.parametrize("flag", ["--svg", "--json", "--dot"])
def test_output_into_a_missing_folder(tmp_path: Path, flag: str) -> None:
    target = tmp_path / "missing" / "out.file"
    renderer = ("--renderer", "graphviz-pure") if flag == "--svg" else ()
    code, _, err = run_cli(str(LF), flag, str(target), "-q", *renderer)
    assert f"folder {tmp_path}/missing does not exist (create it first)" in assert_one_line_error(code, err)
    assert list(tmp_path.iterdir()) == []


def test_empty_stdin() -> None:
    done = run_process(stdin=subprocess.DEVNULL)
    assert "<stdin>: input is empty" in assert_one_line_error(done.returncode, done.stderr.decode())


def _close_stdin() -> None:
    os.close(0)


def test_closed_stdin() -> None:
    # stdin closed in the child before asmcfg starts, without a shell
    done = subprocess.run([sys.executable, "-m", "asmcfg"], capture_output=True, timeout=60, preexec_fn=_close_stdin)
    message = assert_one_line_error(done.returncode, done.stderr.decode())
    assert "<stdin>: standard input is closed (give a FILE, or pipe HotSpot output in)" in message


def _feed_and_close(data: bytes) -> tuple[int, str, str]:
    """Pipe `data` into asmcfg and close the pipe, as a writer that stops early does."""
    with subprocess.Popen([sys.executable, "-m", "asmcfg", "-q"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        out, err = process.communicate(data, timeout=60)
    return process.returncode, out.decode(), err.decode()


def test_stdin_pipe_closed_in_the_middle_of_a_method() -> None:
    data = (BAD / "truncated_method.txt").read_bytes()
    code, out, err = _feed_and_close(data[: len(data) * 3 // 4])
    assert code == 0, err
    assert out.startswith('digraph "cfg0"') and "Tensor4D::sumDiag" in out


def test_stdin_pipe_closed_before_any_instruction() -> None:
    data = LF.read_bytes()
    code, _, err = _feed_and_close(data[: data.index(b"[Disassembly]")])
    assert "<stdin>:4: a compiled-method header but no instructions under it" in assert_one_line_error(code, err)


def test_stdout_pipe_closed_early_is_quiet() -> None:
    with subprocess.Popen([sys.executable, "-m", "asmcfg", str(LF), "--all", "--no-fold"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()
        err = process.stderr.read().decode()
        process.wait(timeout=60)
    assert first.startswith(b"digraph")
    assert process.returncode == 0 and "Traceback" not in err


def test_stdout_on_a_full_disk() -> None:
    with open("/dev/full", "wb") as full:
        done = run_process(str(LF), "-q", stdout=full)
    message = assert_one_line_error(done.returncode, done.stderr.decode())
    assert "cannot write the output: No space left on device" in message


def test_gzip_on_stdin_is_decompressed(tmp_path: Path) -> None:
    packed = tmp_path / "dense.txt.gz"
    packed.write_bytes(gzip.compress(LF.read_bytes()))
    with packed.open("rb") as stdin:
        done = run_process("-q", stdin=stdin)
    assert done.returncode == 0, done.stderr
    assert b"Switches::dense" in done.stdout


def test_stdin_is_diagnosed_like_a_file_whether_redirected_or_piped() -> None:
    path = BAD / "objdump.txt"
    with path.open("rb") as stdin:
        redirected = run_process(stdin=stdin)
    piped = run_process(input=path.read_bytes())
    for done in (redirected, piped):
        message = assert_one_line_error(done.returncode, done.stderr.decode())
        assert "<stdin>:2: this looks like objdump output" in message


def test_a_named_pipe_is_read_once_and_still_diagnosed(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with subprocess.Popen([sys.executable, "-m", "asmcfg", str(fifo)], stderr=subprocess.PIPE) as process:
        fifo.write_bytes((BAD / "objdump.txt").read_bytes())
        err = process.communicate(timeout=60)[1].decode()
    assert f"{fifo}:2: this looks like objdump output" in assert_one_line_error(process.returncode, err)


TEN_MB = 10 * 1024 * 1024


def _with_line(tmp_path: Path, line: bytes, before: bytes = b"  0x00007f2eb0ec7a8c:") -> Path:
    path = tmp_path / "huge.txt"
    data = LF.read_bytes()
    path.write_bytes(data.replace(before, line + b"\n" + before, 1) if before else line)
    return path


def test_a_10mb_junk_line_inside_a_method_is_skipped(tmp_path: Path) -> None:
    path = _with_line(tmp_path, b"x" * TEN_MB)
    # what the readers see of it: one line cut to MAX_LINE, so no reader or pattern works over the 10 MB
    read = list(sources.read_lines(str(path)))
    assert max(len(line.text) for line in read) == sources.MAX_LINE
    assert len(read) == len(LF.read_bytes().splitlines()) + 1
    # a real process with a time limit far above a normal run's: it catches a hang or quadratic work, not a slow machine
    done = run_process(str(path), timeout=600)
    err = done.stderr.decode()
    assert done.returncode == 0, err[-300:]
    assert "1 line inside the method was not understood" in err
    assert len(done.stdout) < 100_000


def test_a_10mb_instruction_line_is_clipped_in_every_output(tmp_path: Path) -> None:
    path = _with_line(tmp_path, b"  0x00007f2eb0ec7a8b:   " + b"m" * TEN_MB)
    svg = tmp_path / "g.svg"
    code, out, err = run_cli(str(path), "--svg", str(svg), "--dot", "-", "-q", "--renderer", "graphviz-pure")
    assert code == 0, err[-300:]
    assert max(len(line) for line in out.splitlines()) < 20_000
    assert svg.stat().st_size < 1_000_000


def test_a_10mb_single_line_alone(tmp_path: Path) -> None:
    code, _, err = run_cli(str(_with_line(tmp_path, b"y" * TEN_MB, before=b"")))
    assert f": {diagnose.GENERIC}" in assert_one_line_error(code, err)


@pytest.mark.parametrize(
    ("raised", "code", "message"),
    [
        (ZeroDivisionError("division by zero"), INTERNAL_ERROR,
         "asmcfg: internal error: ZeroDivisionError: division by zero (run with --debug and report it)"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), INTERNAL_ERROR,
         "asmcfg: internal error: UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff"),
        (MemoryError(), 1, "out of memory (select one method with --method instead of --all)"),
        (OSError(errno.ENOSPC, "No space left on device"), 1, "asmcfg: cannot write the output: No space left"),
        (KeyboardInterrupt(), 130, "asmcfg: interrupted"),
    ],
    ids=["bug", "unicode", "memory", "oserror", "interrupt"],
)
def test_unexpected_exceptions_become_one_line(
    monkeypatch: pytest.MonkeyPatch, raised: BaseException, code: int, message: str
) -> None:
    def explode(options: Options) -> int:
        raise raised

    monkeypatch.setattr(app, "run", explode)
    got, _, err = run_cli(str(LF))
    assert got == code
    assert err.count("\n") == 1 and err.startswith("asmcfg: ")
    assert message in err


def test_debug_shows_the_traceback_of_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(options: Options) -> int:
        raise ValueError("multi\nline\tmessage")

    monkeypatch.setattr(app, "run", explode)
    code, _, err = run_cli(str(LF), "--debug")
    assert code == INTERNAL_ERROR
    assert "Traceback" in err
    assert err.strip().splitlines()[-1] == (
        "asmcfg: internal error: ValueError: multi line message (run with --debug and report it)"
    )


def test_broken_pipe_exits_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(options: Options) -> int:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    monkeypatch.setattr(app, "run", explode)
    code, _, _ = run_cli(str(LF))
    assert code == 0


@pytest.mark.parametrize("args", [["--compile-id", "seven"], ["--all", "--svg", "x.svg"], ["--no-such-flag"]])
def test_usage_errors_are_click_s_with_code_2(args: list[str]) -> None:
    code, _, err = run_cli(str(LF), *args)
    assert code == 2
    assert err.strip().splitlines()[-1].startswith("Error: ")


def test_help_documents_every_exit_code() -> None:
    code, out, _ = run_cli("--help")
    assert code == 0
    assert "0 ok, 1 input problem, 2 usage, 3 rendering," in out and "4 internal error" in out
