"""The library's front agrees with every mode: for every input of tests/data and every record folder, the compilation
`asmcfg FILE` writes is the one `asmcfg.open(FILE).choose()` picks, analysed to the same record; `--list` and
`Log.compilations()` name the same compilations; `asmcfg diff` compares the compilations each side's `Log` picks;
`Log.stream()` gives the records `--all --json` gives."""

from __future__ import annotations

import gzip
import io
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import asmcfg
from asmcfg.errors import AsmcfgError
from asmcfg.render.json import method_dict, write_json
from tests.corpus import DATA, run_cli, slow_when_large
from tests.test_modes_agree import _inputs

RECORDS = sorted(path for path in (DATA / "record").iterdir() if path.is_dir())
LARGE_LOG = 1 << 20
"""A record folder whose compressed log is larger than this takes tens of seconds a run: its cases are `slow`."""


def _records() -> list[Any]:
    return [pytest.param(path, marks=pytest.mark.slow)
            if any(log.stat().st_size > LARGE_LOG for log in path.glob("jvmpid*")) else path for path in RECORDS]


MATCHING = 6
"""Methods compiled more than once whose choice by pattern each test compares (each is a run of the command)."""


def _document(*args: str) -> tuple[int, dict[str, Any] | None, str]:
    code, out, err = run_cli(*args, "--json", "-", "-q")
    return code, json.loads(out) if code == 0 else None, err


def _api_document(path: str) -> dict[str, Any]:
    log = asmcfg.open(path)
    analysis = log.analyse(log.choose()).analysis
    out = io.StringIO()
    write_json([analysis], out, log.unprinted)
    return json.loads(out.getvalue())  # type: ignore[no-any-return]


@pytest.mark.parametrize("path", slow_when_large(_inputs()) + _records(), ids=lambda p: str(p.relative_to(DATA)))
def test_the_default_choice_and_its_record_are_the_apis(path: Path) -> None:
    code, document, _ = _document(str(path))
    if code != 0:  # an input the command line refuses: the API refuses it too
        with pytest.raises(AsmcfgError):
            _api_document(str(path))
        return
    assert document == _api_document(str(path))


@pytest.mark.slow
@pytest.mark.parametrize("folder", [RECORDS[0], RECORDS[2]], ids=lambda p: p.name)
def test_a_method_pattern_chooses_as_the_command_line_does(folder: Path) -> None:
    log = asmcfg.open(str(folder))
    counts = Counter(r.method for r in log.compilations() if r.printed)
    for method in [m for m, n in counts.most_common() if n > 1][:MATCHING]:
        row = next(r for r in log.compilations() if r.method == method)
        code, document, err = _document(str(folder), "--method", row.method)
        assert code == 0, err
        assert document is not None
        chosen = log.choose(method=row.method)
        assert document["methods"][0]["compile_id"] == chosen.method.header.compile_id, row.method


@pytest.mark.parametrize("path", [*_records(), DATA / "logc" / "jdk17-Tensor4D.xml.gz",
                                  DATA / "hsdis" / "jdk25-RecOsr-print-hsdis-att.txt.gz"],
                         ids=lambda p: p.name)
def test_list_names_the_compilations_the_log_lists(path: Path) -> None:
    code, out, err = run_cli(str(path), "--list", "--json", "-", "-q")
    assert code == 0, err
    listed = json.loads(out)["compilations"]
    rows = [r for r in asmcfg.open(str(path)).compilations() if r.printed]
    assert [(r["compile_id"], r["name"]) for r in listed] == [(r.compile_id, r.method) for r in rows]
    for shown, row in zip(listed, rows, strict=True):
        share = shown["share"] and next(iter(shown["share"].values()))
        assert (shown["compiler"], shown["level"], shown["osr_bci"], shown["flags"], shown["bytecode_size"],
                shown["main_code_bytes"]) == (row.compiler, row.level, row.osr_bci, row.flags, row.bytecode_size,
                                              row.code_size)
        assert row.line is None or shown["line"] == row.line
        assert share == pytest.approx(row.share, abs=5e-5) if row.share is not None else share is None
    shares = {r.compile_id: r.share for r in rows if r.share is not None}
    if path.parent.name == "record":
        hottest = max(shares, key=lambda c: shares[c])
        assert asmcfg.open(str(path)).choose().method.header.compile_id == hottest


def test_diff_compares_the_compilations_each_log_chooses() -> None:
    old, new = (str(DATA / "record" / name) for name in ("jdk17-HotLoop", "jdk25-HotLoop"))
    code, out, err = run_cli("diff", old, new, "--method", "HotLoop::run", "--json", "-", "-q")
    assert code == 0, err
    document = json.loads(out)
    ids = [asmcfg.open(side).choose(method="HotLoop::run").method.header.compile_id for side in (old, new)]
    assert [document["old"]["compile_id"], document["new"]["compile_id"]] == ids
    result = asmcfg.diff(asmcfg.open(old), asmcfg.open(new), method="HotLoop::run")
    assert [side.result.cfg.method.header.compile_id for side in (result.old, result.new)] == ids


def test_stream_gives_the_records_of_every_compilation() -> None:
    path = str(DATA / "hsdis" / "jdk17-Shapes-print-hsdis-att.txt.gz")
    code, document, err = _document(path, "--all")
    assert code == 0 and document is not None, err
    assert [method_dict(a) for a in asmcfg.open(path).stream()] == document["methods"]


def test_import_loads_nothing_and_notes_are_values() -> None:
    import subprocess

    loaded = subprocess.run([sys.executable, "-c", "import asmcfg, sys; print(sorted(m for m in sys.modules "
                             "if m.startswith('asmcfg')))"], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['asmcfg']"
    log = asmcfg.open(str(DATA / "record" / "jmh-fork"))
    assert [note.kind for note in log.notes] == ["jvm_chosen"]
    assert "--pid" in log.notes[0].text


def test_list_of_a_large_compressed_log_reads_the_caches_plain_copy_index(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    from asmcfg.dialects import numbering
    from asmcfg.run import plain as plainfile, wholelog

    monkeypatch.setenv("ASMCFG_CACHE_DIR", str(tmp_path / "cache"))
    packed = str(DATA / "logc" / "jdk17-Tensor4D.xml.gz")
    plain = tmp_path / "Tensor4D.xml"
    plain.write_bytes(gzip.decompress(Path(packed).read_bytes()))
    whole = run_cli(str(plain), "--list", "--json", "-")
    monkeypatch.setattr(wholelog, "INDEX_BYTES", 0)
    monkeypatch.setattr(plainfile, "COMPRESSED_BYTES", 0)
    indexed: list[str] = []
    real = numbering.index_looking
    monkeypatch.setattr(numbering, "index_looking", lambda *a: indexed.append("mapped") or real(*a))
    first = run_cli(packed, "--list", "--json", "-")
    again = run_cli(packed, "--list", "--json", "-")
    assert first[0] == again[0] == whole[0] == 0
    rows = [[{k: v for k, v in row.items() if k != "instructions"} for row in json.loads(out)["compilations"]]
            for out in (first[1], again[1], whole[1])]
    assert rows[0] == rows[1] == rows[2]
    assert "decompressed" in first[2] and "decompressed" not in again[2]
    assert indexed, "the plain copy is listed from its index"


@pytest.mark.parametrize("facts", [False, True], ids=["records", "facts"])
def test_jsonl_writes_the_records_of_the_logs_stream(facts: bool) -> None:
    from asmcfg.render.facts import facts_record
    from asmcfg.render.jsonl import record_line

    folder = str(RECORDS[0])
    code, out, err = run_cli(folder, "--jsonl", "-", *(["--facts"] if facts else []), "-q")
    assert code == 0, err
    written = [json.loads(line) for line in out.splitlines()]
    serialize = facts_record if facts else record_line
    made = [json.loads(r) if isinstance(r, str) else r for r in asmcfg.open(folder).records(serialize)]
    assert written and written == json.loads(json.dumps(made))


@pytest.mark.slow
def test_serve_and_the_folder_export_index_the_logs_compilations(tmp_path: Path) -> None:
    import re

    from asmcfg.serve import rows

    folder = str(RECORDS[0])
    listed = [(r.compile_id, r.method) for r in asmcfg.open(folder).compilations() if r.printed]
    served = [(e.row.compile_id, e.row.method) for e in rows.build(asmcfg.open(folder)).entries if e.row.printed]
    assert served == listed
    code, _, err = run_cli(folder, "--all", "--html", str(tmp_path / "site"), "-q")
    assert code == 0, err
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)[1])
    assert [(row[2], row[5]) for row in data["rows"]] == listed
