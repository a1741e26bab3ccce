"""A print file whose first compilation follows a thousand lines of `-XX:+PrintCompilation` output is sniffed past
them, on every path that sniffs (a read, `--list`, the opening of one compilation, `--jsonl`, standard input)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from corpus import DATA, run_cli

from asmcfg.hotspot.printcompilation import SAMPLE_LINES, SKIP_LINES, is_print_compilation, sample_of
from asmcfg.sources.peek import peek

PRINTS = {17: DATA / "checks" / "printcompilation-jdk17-nohsdis.txt.gz",
          25: DATA / "checks" / "printcompilation-jdk25-nohsdis.txt.gz"}
IDS = {17: [978, 979, 980, 982], 25: [916, 917, 918, 919]}
FIRST = {17: 1249, 25: 1188}
"""The line of the first `Compiled method` header: after 1,247 and 1,186 PrintCompilation lines."""


@pytest.fixture(params=[17, 25])
def plain(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[int, Path]:
    jdk: int = request.param
    path = tmp_path / f"print-{jdk}.txt"
    path.write_bytes(gzip.decompress(PRINTS[jdk].read_bytes()))
    return jdk, path


def test_the_files_start_with_a_thousand_printcompilation_lines() -> None:
    for jdk, path in PRINTS.items():
        lines = gzip.decompress(path.read_bytes()).decode().splitlines()
        assert lines[FIRST[jdk] - 1].startswith("Compiled method (c1)")
        head = lines[: FIRST[jdk] - 1]
        assert sum(map(is_print_compilation, head)) > 1000
        code = [line for line in lines if line.startswith("Compiled method") or line.lstrip().startswith("0x")]
        assert len(code) > 100 and not any(map(is_print_compilation, code))


@pytest.mark.parametrize("jdk", [17, 25])
def test_the_compressed_file_lists_its_four_compilations(jdk: int) -> None:
    code, out, err = run_cli(str(PRINTS[jdk]), "--list", "--json", "-")
    assert code == 0, err
    assert [row["compile_id"] for row in json.loads(out)["compilations"]] == IDS[jdk]


def test_every_path_reads_the_plain_file(plain: tuple[int, Path]) -> None:
    jdk, path = plain
    code, out, err = run_cli(str(path), "--list", "--json", "-")
    assert code == 0, err
    rows = json.loads(out)["compilations"]
    assert [row["compile_id"] for row in rows] == IDS[jdk]
    assert rows[0]["line"] == FIRST[jdk]
    # the default choice, the last C2 compilation, read through the header index and decoded from its hex
    code, out, err = run_cli(str(path), "--json", "-", "-q")
    assert code == 0, err
    method = json.loads(out)["methods"][0]
    assert (method["compile_id"], method["name"], method["dialect"]) == (IDS[jdk][-1], "Busy::sum", "machcode")
    code, out, err = run_cli(str(path), "--jsonl", "-", "-q")
    assert code == 0, err
    assert [json.loads(line)["compile_id"] for line in out.splitlines()] == IDS[jdk]


def test_standard_input_is_read_past_them_too() -> None:
    text = gzip.decompress(PRINTS[17].read_bytes())
    run = subprocess.run([sys.executable, "-m", "asmcfg", "-", "--list"], input=text, capture_output=True,
                         check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.decode().count("Busy::sum") == 4


def test_only_printcompilation_lines_is_still_no_method(tmp_path: Path) -> None:
    path = tmp_path / "pc.txt"
    lines = gzip.decompress(PRINTS[17].read_bytes()).decode().splitlines()
    path.write_text("\n".join(line for line in lines if is_print_compilation(line)) + "\n")
    code, _, err = run_cli(str(path), "--list")
    assert code != 0
    assert "no HotSpot compiled method found" in err and len(err.strip().splitlines()) == 1


def test_the_sample_skips_printcompilation_lines_and_stops_when_whole() -> None:
    def lines() -> object:
        for n in range(2000):
            yield f"  {1000 + n}  {n + 1}       3       java.lang.String::hashCode ({n} bytes)"
        for n in range(SAMPLE_LINES + 10):
            yield f"other {n}"
        raise AssertionError("read past the sample")

    sample = sample_of(lines())  # type: ignore[arg-type]
    assert sample == [f"other {n}" for n in range(SAMPLE_LINES)]
    # an ordinary input's sample is its first lines
    assert sample_of(f"line {n}" for n in range(1000)) == [f"line {n}" for n in range(SAMPLE_LINES)]


def test_at_most_skip_lines_are_passed_over() -> None:
    texts = ["   1  1       3       A::b (1 bytes)"] * (SKIP_LINES + SAMPLE_LINES + 5)
    assert len(sample_of(texts)) == SAMPLE_LINES


def test_peek_gives_the_same_sample_and_loses_no_byte() -> None:
    import io

    data = gzip.decompress(PRINTS[25].read_bytes())
    stream, sample = peek(io.BytesIO(data))
    assert sample == sample_of(data.decode().split("\n"))
    assert stream.read() == data
    # an input shorter than the sample: every line, and the empty one after the last newline, as before
    stream, sample = peek(io.BytesIO(b"a\r\nb\n"))
    assert (sample, stream.read()) == (["a", "b", ""], b"a\r\nb\n")


def test_a_crafted_line_is_looked_at_once() -> None:
    code = textwrap.dedent("""
        from asmcfg.hotspot.printcompilation import is_print_compilation
        MB = 1 << 20
        cases = [' ' * (8 * MB), '1' * (8 * MB), '1' + ' ' * (8 * MB) + 'x', '1 2 ' + ' ' * (8 * MB)]
        print([is_print_compilation(c) for c in cases])
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "[False, False, False, True]"
