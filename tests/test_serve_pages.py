"""The pages of `asmcfg serve` keep the report's safety rules: a method name from a crafted log reaches the index
only as JSON its script puts in as text, a message quoting the log is escaped, and the policy pins the one script."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import DATA, run_cli

import asmcfg
from asmcfg.serve import pages, rows
from asmcfg.serve.opening import Reading, Row, open_compilation
from asmcfg.serve.rows import Entry, Index

JAVAC = DATA / "logc" / "javac-jdk17-excerpt.xml.gz"
SHAPES = DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt"

CRAFTED = "p.C::m</script><img src=x onerror=alert(1)>\u202e"
"""A method name as a crafted log could print it."""


def _index() -> Index:
    cells = (0, "c2", 7, 4, None, CRAFTED, 12, 96, True)
    return Index([Entry(Row(7, CRAFTED, 0), cells)])


def test_a_crafted_name_reaches_the_index_only_as_json_text() -> None:
    page = pages.index_page(_index(), "run</title><script>alert(1)</script>.log", ["/c/7"])
    text = page.body.decode("utf-8")
    assert "<img" not in text and "</script><img" not in text
    assert text.count("<script") == 2, "the JSON block and the page's own script, no other"
    data = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)
    assert data is not None
    assert json.loads(data.group(1))["rows"][0][5] == CRAFTED, "the name kept exactly, as the model keeps it"
    assert "<title>asmcfg: run&lt;/title&gt;&lt;script&gt;" in text


def test_the_policy_pins_the_index_script_by_its_hash() -> None:
    page = pages.index_page(_index(), "run.log", ["/c/7"])
    script = page.body.decode("utf-8").rsplit("<script>", 1)[1].split("</script>", 1)[0]
    assert pages.script_hash(script) in page.policy
    assert "default-src 'none'" in page.policy and "connect-src 'self'" in page.policy
    assert "unsafe-inline" not in page.policy.split("script-src", 1)[1].split(";", 1)[0]


def test_a_message_quoting_the_log_is_escaped() -> None:
    page = pages.problem_page("compilation 3", f"compile id 3 ({CRAFTED}) is not in the input")
    text = page.body.decode("utf-8")
    assert "<img" not in text and "&lt;img src=x" in text
    assert "\\u202e" in text or "\\x202e" in text, "the bidirectional control shown, not obeyed"
    assert "script-src" not in page.policy


def test_a_row_opens_its_own_compilation_where_the_log_orders_them_otherwise() -> None:
    # the LogCompilation excerpt's threads print their code in another order than its <nmethod> records
    index = rows.build(asmcfg.open(str(JAVAC)))
    assert len(index.entries) == 263
    for n in (0, 130, 262):
        row = index.entries[n].row
        method = open_compilation(Reading(str(JAVAC)), row)
        assert (method.header.compile_id, method.header.name) == (row.compile_id, row.method)
    assert open_compilation(Reading(str(JAVAC)), index.entries[261].row).log_traps, "with its log's trap records"


def test_a_taken_port_is_one_line_and_exit_1() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "asmcfg", "serve", str(SHAPES), "--no-open", "--port", str(port)],
                              capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (f"asmcfg: cannot listen on 127.0.0.1:{port}: Address already in use (choose another "
                           "--port, or leave it out for a free one)\n")


def test_help_serve_is_the_subcommands_help() -> None:
    code, out, _ = run_cli("help", "serve")
    assert (code, out) == run_cli("serve", "--help")[:2] and out.startswith("Usage: asmcfg serve [OPTIONS] FILE")
    assert "--no-open" in out and "--port PORT" in out
    code, _, err = run_cli("serve", "-")
    assert code == 2 and "give a FILE, not standard input" in err


def test_a_row_of_a_large_plain_file_opens_through_the_index_as_the_whole_read_gives_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the index path reads only the row's bytes; every file counts as large here, so the copy goes through it
    from asmcfg.run import opening, plain as plainfile

    plain = tmp_path / "shapes.txt"
    plain.write_bytes(SHAPES.read_bytes())
    index = rows.build(asmcfg.open(str(plain)))
    whole = [open_compilation(Reading(str(plain)), entry.row) for entry in index.entries]
    monkeypatch.setattr(plainfile, "OPEN_BYTES", 0)
    calls: list[int] = []
    real = opening.open_one
    monkeypatch.setattr(opening, "open_one", lambda *a, **k: calls.append(1) or real(*a, **k))
    indexed = [open_compilation(Reading(str(plain)), entry.row) for entry in index.entries]
    assert len(calls) == len(index.entries) and indexed == whole
