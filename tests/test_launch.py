"""`asmcfg --version` and `--help` print click's own text without loading click or the pipeline."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from asmcfg.cli import main
from asmcfg.help_text import HELP
from asmcfg.launch import HELP_COLUMNS

ROOT = Path(__file__).resolve().parent.parent


def asmcfg(*args: str, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(ROOT)
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run([sys.executable, "-m", "asmcfg", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, stdin=subprocess.DEVNULL, timeout=60, check=False)


def clicks_help(columns: int) -> str:
    """`asmcfg --help` as click prints it on a terminal of `columns` columns."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(columns)
    try:
        return main.get_help(click.Context(main, info_name="asmcfg", **main.context_settings)) + "\n"
    finally:
        os.environ.pop("COLUMNS") if previous is None else os.environ.update(COLUMNS=previous)


def regenerate() -> None:
    """Rewrite asmcfg/help_text.py from click (`PYTHONPATH=. python tests/test_launch.py`)."""
    path = ROOT / "asmcfg" / "help_text.py"
    text = path.read_text()
    parts = [text[: text.index('"""\n') + 4], "\nHELP = {\n"]
    for columns, width in sorted(HELP_COLUMNS.items()):
        lines = "".join(f"        {line!r}\n" for line in clicks_help(columns).splitlines(keepends=True))
        parts.append(f"    {width}: (\n{lines}    ),\n")
    path.write_text("".join(parts) + "}\n")


@pytest.mark.parametrize("columns", sorted(HELP_COLUMNS))
def test_the_stored_help_is_what_click_formats(columns: int) -> None:
    # on failure: PYTHONPATH=. python tests/test_launch.py
    assert HELP[HELP_COLUMNS[columns]] == clicks_help(columns)


@pytest.mark.parametrize("flag", ["--help", "-h", "--version"])
@pytest.mark.parametrize("columns", [None, 80, 100, 132, 90])
def test_the_fast_answer_is_the_one_click_gives(flag: str, columns: int | None) -> None:
    fast = asmcfg(flag, columns=columns)
    through_click = asmcfg(flag, "--quiet", columns=columns)  # a second flag takes click's path
    assert fast.returncode == through_click.returncode == 0
    assert fast.stdout == through_click.stdout
    assert fast.stdout.startswith("python -m asmcfg, version" if flag == "--version" else
                                  "Usage: python -m asmcfg [OPTIONS] [FILE]\n")


def test_version_and_help_load_neither_click_nor_the_pipeline() -> None:
    probe = (
        "import sys\nfrom asmcfg.launch import main\n"
        "for flag in ('--version', '--help'):\n    sys.argv = ['asmcfg', flag]\n    main()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'rich') or m.startswith('asmcfg.')))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="80")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60,
                          check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "asmcfg, version " + __import__("asmcfg").__version__
    assert lines[-1] == "['asmcfg.help_text', 'asmcfg.launch', 'asmcfg.run']"  # the package alone: a constant


LISTED = ROOT / "tests" / "data" / "logc"


def launched(*args: str, tmp_path: Path, opened: bool = False) -> tuple[int, str, str, list[str]]:
    """`asmcfg ARGS` through the launcher with every file counted as large (listed from the header index, and when
    `opened` its compilations opened through it): exit status, stdout, stderr and the package modules the run
    loaded."""
    probe = (
        "import sys\nfrom asmcfg.run import wholelog\nwholelog.INDEX_BYTES = 0\n"
        + ("from asmcfg.run import plain\nplain.OPEN_BYTES = 0\n" if opened else "")
        + "from asmcfg.launch import main\n"
        f"sys.argv = ['asmcfg', *{list(args)!r}]\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    code = exit.code\nelse:\n    code = 0\n"
        "sys.stdout.flush()\n"
        "names = sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'rich') or m.startswith('asmcfg.'))\n"
        "print(code, ' '.join(names), file=sys.stderr)"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60,
                          cwd=tmp_path, stdin=subprocess.DEVNULL, check=True)
    *said, last = done.stderr.splitlines()
    code, _, modules = last.partition(" ")
    return int(code), done.stdout, "\n".join(said), modules.split()


def plain(name: str, tmp_path: Path) -> str:
    path = tmp_path / name.removesuffix(".gz")
    path.write_bytes(gzip.decompress((LISTED / name).read_bytes()))
    return str(path)


@pytest.mark.parametrize("name", ["hsdis-jdk17-Tensor4D.txt.gz", "jdk17-Tensor4D.xml.gz"])
def test_list_of_a_large_file_loads_neither_click_nor_the_method_pipeline(name: str, tmp_path: Path) -> None:
    path = plain(name, tmp_path)
    code, fast, _, modules = launched(path, "--list", tmp_path=tmp_path)
    flipped = launched("--list", path, tmp_path=tmp_path)
    through_click = launched(path, "--list", "--quiet", tmp_path=tmp_path)  # a third flag takes click's path
    assert code == flipped[0] == through_click[0] == 0
    assert fast == flipped[1] == through_click[1]
    assert fast.splitlines()[0].split() == ["compiler", "id", "tier", "osr", "flags", "bytecode", "main", "code",
                                            "B", "instructions", "line", "method"]
    assert len(fast.splitlines()) > 2 and "click" in through_click[3]
    loaded = set(modules)
    assert not loaded & {"click", "rich", "asmcfg.cli", "asmcfg.run.app", "asmcfg.run.pipeline", "asmcfg.describe"}
    assert "asmcfg.dialects.index" in loaded
    if name.endswith(".txt.gz"):  # only dialects with the default indexer could have written it: none is sniffed
        assert not [m for m in loaded if m.endswith(".reader") or m == "asmcfg.dialects.builder"]


@pytest.mark.parametrize("chosen", [False, True])
def test_opening_a_text_log_loads_nothing_for_logcompilation_or_heat(chosen: bool, tmp_path: Path) -> None:
    path = plain("hsdis-jdk17-Tensor4D.txt.gz", tmp_path)
    rows = [row.split() for row in launched(path, "--list", tmp_path=tmp_path)[1].splitlines()[1:]]
    wanted = [row for row in rows if row[0] == "c2"][-1] if chosen else rows[0]  # the default choice: the last C2
    selector = [] if chosen else ["--compile-id", wanted[1]]
    code, out, _, modules = launched(path, *selector, "--json", "-", "-q", tmp_path=tmp_path, opened=True)
    assert code == 0
    method = json.loads(out)["methods"][0]
    assert (method["compile_id"], method["compiler"]) == (int(wanted[1]), wanted[0])
    loaded = set(modules)
    assert {"asmcfg.run.opening", "asmcfg.dialects.seek", "asmcfg.dialects.hsdis.reader"} <= loaded  # the index's
    assert not [m for m in loaded if m.startswith("asmcfg.dialects.logcompilation.")]
    assert not loaded & {"asmcfg.dialects.perfasm.text", "asmcfg.facts.heat_report", "asmcfg.model.log",
                         "asmcfg.model.profile", "asmcfg.render.dot"}


def test_a_large_file_with_no_compilation_fails_alike_on_both_paths(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("".join(f"line {n} of a file that holds no HotSpot output\n" for n in range(100)))
    fast = launched(str(path), "--list", tmp_path=tmp_path)
    through_click = launched(str(path), "--list", "--quiet", tmp_path=tmp_path)
    assert fast[:3] == through_click[:3]
    code, out, err, _ = fast
    assert code == 1 and out == "" and err.startswith(f"asmcfg: {path}")  # no table header over no row
    assert "\n" not in err and "Traceback" not in err


if __name__ == "__main__":
    regenerate()
