"""Every option applies in every mode where it means something, or is a usage error: one table of flag x mode,
each cell run on real output and checked for the flag's effect (or exit 2 naming the flag)."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from asmcfg.run.flags import TABLE, Mode
from tests.corpus import DATA, run_cli

PATCH = str(DATA / "nohsdis" / "jdk17-Patch-nohsdis.txt")
"""JDK 17 C1 code of Patch::run without hsdis; one line of it is not understood (asmcfg skips it)."""
TENSOR = str(DATA / "logc" / "hsdis-jdk17-Tensor4D.txt.gz")
INLINING = str(DATA / "logc" / "inlining-jdk17-stdout.txt.gz")
INLINING_LOG = str(DATA / "logc" / "inlining-jdk17.xml.gz")
"""The output and the LogCompilation log of one run of Inlining."""
PERFASM = str(DATA / "perfasm" / "jdk25-DevBench" / "perfasm-console.txt")
"""JMH perfasm output: compilations with measured heat."""

MODE_ARGS: dict[Mode, tuple[str, ...]] = {
    Mode.ONE: ("--json", "-"),
    Mode.ALL: ("--all", "--json", "-"),
    Mode.LIST: ("--list",),
    Mode.JSONL: ("--jsonl", "-"),
    Mode.FACTS: ("--jsonl", "-", "--facts"),
    Mode.TIMELINE: ("--timeline", "--json", "-"),
}


def _records(mode: Mode, out: str) -> list[dict[str, Any]]:
    if mode in (Mode.ONE, Mode.ALL, Mode.EXPORT):
        return json.loads(out)["methods"]  # type: ignore[no-any-return]
    return [json.loads(line) for line in out.splitlines()]


def _run(mode: Mode, *args: str) -> tuple[int, str, str]:
    if mode is Mode.EXPORT:
        return _export(*args)
    return run_cli(*args, *MODE_ARGS[mode], "-q")


def _export(*args: str) -> tuple[int, str, str]:
    """`--all --html DIR` into a new folder; as stdout, the JSON model each page carries, as `--all --json` lists
    them."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "export"
        code, _, err = run_cli(*args, "--all", "--html", str(out), "-q")
        if code != 0:
            return code, "", err
        models = []
        for page in sorted(out.glob("id-*.html"), key=lambda p: int(p.stem.split("-")[1])):
            found = re.search(r'<script type="application/json" id="model">(.*?)</script>', page.read_text(), re.S)
            assert found is not None
            models.extend(json.loads(found.group(1))["methods"])
        return code, json.dumps({"methods": models}), err


CELLS = [(name, mode) for name in ("strict", "jdk", "log", "profile", "paths") for mode in Mode]


@pytest.mark.parametrize(("name", "mode"), CELLS, ids=[f"{n}-{m.name.lower()}" for n, m in CELLS])
def test_each_flag_applies_in_each_mode_or_is_a_usage_error(name: str, mode: Mode) -> None:
    applies = TABLE[name]
    check = CHECKS[name]
    if mode not in applies.modes:
        code, _, err = _run(mode, *check.args)
        assert code == 2, err
        assert f"drop {applies.flag}" in err and mode.value in err
        return
    check.verify(mode)


class _Strict:
    args = (PATCH, "--strict")

    def verify(self, mode: Mode) -> None:
        code, _, err = _run(mode, *self.args)
        assert code == 1, f"{mode.value} --strict ran on past a line not understood"
        assert "jdk17-Patch-nohsdis.txt:" in err and "line not understood" in err
        code, _, _ = _run(mode, PATCH)
        assert code == 0, "without --strict the line is skipped"


class _Jdk:
    args = (TENSOR, "--jdk", "11")

    def verify(self, mode: Mode) -> None:
        code, out, err = _run(mode, *self.args)
        assert code == 0, err
        records = _records(mode, out)
        assert records and all(r["jdk"] == 11 for r in records)


class _Log:
    args = (INLINING, "--log", INLINING_LOG)

    def verify(self, mode: Mode) -> None:
        code, out, err = _run(mode, *self.args)
        assert code == 0, err
        logged = [r for r in _records(mode, out) if r["trap_log"] is not None]
        assert logged, f"{mode.value} --log put the log's trap records on no compilation"
        code, out, _ = _run(mode, INLINING)
        assert all(r["trap_log"] is None for r in _records(mode, out))


class _Profile:
    args = (PERFASM, "--profile", PERFASM)

    def verify(self, mode: Mode) -> None:
        code, out, err = _run(mode, *self.args)
        assert code == 0, err
        profiled = [r for r in _records(mode, out) if r["profile"] is not None]
        assert profiled and all(r["profile"]["events"] == ["cpu-clock"] for r in profiled)


class _Paths:
    args = (PERFASM, "--paths", "1")

    def verify(self, mode: Mode) -> None:
        code, out, err = _run(mode, *self.args)
        assert code == 0, err
        ranked = [r["hot_paths"] for r in _records(mode, out) if r.get("hot_paths")]
        assert ranked and all(len(paths) == 1 for paths in ranked)
        code, out, _ = _run(mode, PERFASM)
        assert any(len(r["hot_paths"]) > 1 for r in _records(mode, out) if r.get("hot_paths"))


CHECKS: dict[str, Any] = {"strict": _Strict(), "jdk": _Jdk(), "log": _Log(), "profile": _Profile(), "paths": _Paths()}


@pytest.mark.parametrize(("flag", "value"), [("--renderer", "dot"), ("--render-timeout", "5"), ("--no-fold", None)])
def test_graph_flags_need_an_output_that_draws_the_graph(flag: str, value: str | None) -> None:
    given = (flag,) if value is None else (flag, value)
    code, _, err = run_cli(TENSOR, "--json", "-", *given, "-q")
    assert code == 2 and f"drop {flag}" in err
    code, _, err = run_cli(TENSOR, "--jsonl", "-", *given, "-q")
    assert code == 2 and f"drop {flag}" in err
