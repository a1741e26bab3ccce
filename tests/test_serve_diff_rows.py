"""The index of `asmcfg serve OLD NEW` and the pages it opens, without a browser: its rows are the whole-log diff's
pairs and methods of one log (the same as `asmcfg diff OLD NEW --json` lists), and a row's page is the one `asmcfg
diff --html` (a pair) or `asmcfg --html` (a method of one log) writes of the same compilations."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, run_cli
from served import Served

from asmcfg.run.diff import DiffOptions
from asmcfg.run.wholediff import Whole, compare
from asmcfg.serve import diffindex
from asmcfg.serve.diffindex import NEW, OLD, PAIR, DiffIndex
from asmcfg.serve.twologs import render_target

HSDIS = DATA / "hsdis"
TENSOR = tuple(str(HSDIS / f"jdk{jdk}-Tensor4D-printassembly-full.txt.gz") for jdk in (17, 25))
SWITCHES = tuple(str(HSDIS / f"jdk{jdk}-Switches-printassembly-full.txt.gz") for jdk in (17, 25))


def _served(old: str, new: str) -> tuple[Whole, DiffIndex, DiffOptions]:
    options = DiffOptions(old=old, new=new, quiet=True)
    whole = compare(options)
    return whole, diffindex.build(whole), options


def _listed(old: str, new: str) -> dict[str, Any]:
    code, out, err = run_cli("diff", old, new, "--json", "-", "-q")
    assert code == 0, err
    found: dict[str, Any] = json.loads(out)
    return found


@pytest.mark.parametrize("logs", [TENSOR, SWITCHES], ids=["Tensor4D", "Switches"])
def test_the_rows_are_the_pairs_and_methods_of_one_log_the_json_lists(logs: tuple[str, str]) -> None:
    _, index, _ = _served(*logs)
    listed = _listed(*logs)
    pairs = [r for r in index.rows if r["kind"] == PAIR]
    assert [(r["rank"], r["method"], r["compiler"], r["osr"], r["old_id"], r["new_id"]) for r in pairs] == [
        (p["rank"], p["method"], p["compiler"], p["osr_bci"], p["old_compile_id"], p["new_compile_id"])
        for p in listed["pairs"]], "every pair, in the order of `asmcfg diff OLD NEW`"
    for row, pair in zip(pairs, listed["pairs"], strict=True):
        head = pair["headline"]
        assert row["traps"] == [head["traps_added"], head["traps_removed"]]
        assert row["checks"] == [head["checks_into_loops"], head["checks_out_of_loops"]]
        assert row["vectors"] == [*head["vector_loops"], head["lost_vectors"]]
        assert (row["calls"], row["not_inlined"], row["inlined"]) == (head["calls"], head["not_inlined"],
                                                                      head["inlined"])
        assert (row["code"], row["summary"], row["changed"]) == (head["main_code_bytes"], pair["summary"],
                                                                  pair["changed"])
    lone = [(r["kind"], r["method"], r["compiler"], r["osr"], r["old_id"] if r["kind"] == OLD else r["new_id"])
            for r in index.rows if r["kind"] != PAIR]
    assert lone == [(side, m["method"], m["compiler"], m["osr_bci"], m["compile_id"])
                    for side in (OLD, NEW) for m in listed[f"only_{side}"]], "then each log's own, ranked"
    assert [r["row"] for r in index.rows] == list(range(len(index.rows)))
    assert [(t.kind, t.key.method) for t in index.targets] == [(r["kind"], r["method"]) for r in index.rows]


def test_the_tensor_rows_say_what_the_dumps_show() -> None:
    _, index, _ = _served(*TENSOR)
    (sum4,) = [r for r in index.rows if (r["method"], r["compiler"], r["osr"], r["kind"]) == (
        "Tensor4D::sum4", "c2", None, PAIR)]
    # read by hand (tests/test_whole_diff.py): JDK 17's sum4 (id 10) has 17 UncommonTrapBlob calls, JDK 25's (id 11)
    # 8; JDK 25 hoists the innermost loop's range checks and adds 8 ints a trip in ymm registers
    assert (sum4["old_id"], sum4["new_id"]) == (10, 11)
    assert sum4["traps"] == [3, 12] and sum4["vectors"] == [0, 1, 0]
    assert sum4["checks"][0] == 0 and sum4["checks"][1] > 0
    assert not index.by_heat, "nothing measured: ranked by size"


def test_a_pair_opens_the_page_asmcfg_diff_html_writes_of_its_two_compilations(tmp_path: Path) -> None:
    whole, index, options = _served(*TENSOR)
    n = next(n for n, r in enumerate(index.rows) if (r["method"], r["compiler"], r["osr"], r["kind"]) == (
        "Tensor4D::sum4", "c2", None, PAIR))
    page = render_target(options, whole, index.targets[n])
    written = tmp_path / "pair.html"
    code, _, err = run_cli("diff", *TENSOR, "--old-compile-id", "10", "--new-compile-id", "11", "--html",
                           str(written), "-q")
    assert code == 0, err
    assert page.body == written.read_bytes(), "the two-compilation diff's own page, byte for byte"
    hashes = re.search(r"script-src ([^;]+);", page.body.decode("utf-8"))
    assert hashes is not None and f"script-src {hashes.group(1)};" in page.policy
    assert "frame-src about:" in page.policy and "frame-ancestors 'none'" in page.policy


def test_a_method_of_one_log_opens_its_own_report(tmp_path: Path) -> None:
    whole, index, options = _served(*TENSOR)
    n = next(n for n, r in enumerate(index.rows) if r["kind"] == OLD and r["old_id"] == 7)
    page = render_target(options, whole, index.targets[n])
    written = tmp_path / "one.html"
    code, _, err = run_cli(TENSOR[0], "--compile-id", "7", "--html", str(written), "-q")
    assert code == 0, err
    assert page.body == written.read_bytes(), "JDK 17's C1 compilation 7 of sum4, as `asmcfg --html` writes it"


def test_the_flags_of_one_side_and_the_other() -> None:
    code, _, err = run_cli("serve", *TENSOR, "--profile", "p.txt", "--no-open")
    assert code == 2 and "--old-profile and --new-profile" in err
    code, _, err = run_cli("serve", TENSOR[0], "--old-log", "x.xml", "--no-open")
    assert code == 2 and "--old-log is for two logs" in err
    code, _, err = run_cli("serve", TENSOR[0], TENSOR[0], "--no-open")
    assert code == 2 and "two different files" in err
    code, _, err = run_cli("serve", TENSOR[0], "-", "--no-open")
    assert code == 2 and "not standard input" in err


def test_ctrl_c_stops_the_two_log_server_cleanly() -> None:
    served = Served(Path(TENSOR[0]), TENSOR[1], "-q")
    try:
        status, out, err = served.stop(signal.SIGINT)
    finally:
        if served.process.poll() is None:
            served.process.kill()
    assert (status, out, err.strip()) == (130, "", "asmcfg: interrupted")
