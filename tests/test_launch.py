"""`asmcfg --version` and `--help` print click's own text without loading click or the pipeline."""

from __future__ import annotations

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
    assert lines[-1] == "['asmcfg.help_text', 'asmcfg.launch']"


if __name__ == "__main__":
    regenerate()
