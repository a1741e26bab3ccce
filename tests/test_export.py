"""`asmcfg FILE --all --html DIR`: a folder with the explorer's index and each compilation's `--html` page; `--top N`
(the hottest measured, else the largest); the one-page `--all --html FILE` refusing more than a page holds; the
folder rule; a failed run leaving the folder as it was; the log's text never running as script."""

from __future__ import annotations

import json
import multiprocessing
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA, run_cli

from asmcfg.render.files import MARK
from asmcfg.run.app import ONE_PAGE_MOST

SHAPES = DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt"
"""Nine compilations of Shapes::total and Shapes::totalPerim, C1 and C2, OSR and not (compile ids 13-29)."""
DEVBENCH = DATA / "perfasm" / "jdk17-DevBench" / "perfasm-console.txt"
"""JMH perfasm output of three runs, each run's hottest compilation printed with its measured share."""
SAVELOG = DATA / "perfasm" / "jdk25-DevBench" / "perfasm-savelog-switchRun.log.xz"
"""A JMH saveLog of a whole run: hundreds of compilations."""


def _ids(text: str) -> list[int]:
    """The compile ids of the `Compiled method` headers of a PrintAssembly dump, in order (read from the text)."""
    return [int(m.group(1)) for m in re.finditer(r"^Compiled method \(c\d\)\s+\d+\s+(\d+)", text, re.M)]


def _data(index: Path) -> dict[str, Any]:
    """The JSON the index page carries (its rows, page files and analysis)."""
    text = index.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)
    assert found is not None
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def _export(tmp_path: Path, *args: str, name: str = "out") -> tuple[Path, str]:
    out = tmp_path / name
    code, _, err = run_cli(*args, "--all", "--html", str(out))
    assert code == 0, err
    return out, err


def _pages(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.name != "index.html"} - {MARK}


def test_each_page_is_the_page_html_writes_for_its_compilation(tmp_path: Path) -> None:
    out, err = _export(tmp_path, str(SHAPES))
    ids = _ids(SHAPES.read_text(encoding="utf-8"))
    assert ids == [13, 14, 15, 16, 17, 18, 22, 23, 29]
    assert _pages(out) == {f"id-{n}.html" for n in ids}
    assert err.strip() == f"wrote {out}/index.html: 9 compilations, a page each"
    data = _data(out / "index.html")
    assert [row[2] for row in data["rows"]] == ids, "one row per compilation, in input order"
    sizes = re.findall(r"^ main code .* = (\d+)$", SHAPES.read_text(encoding="utf-8"), re.M)
    assert [row[7] for row in data["rows"]] == [int(size) for size in sizes], "each one's main code, as --list shows"
    assert data["pages"] == [f"id-{n}.html" for n in ids], "each row links to its own page"
    for n in ids:
        single = tmp_path / f"single-{n}.html"
        code, _, err = run_cli(str(SHAPES), "--compile-id", str(n), "--html", str(single), "-q")
        assert code == 0, err
        assert (out / f"id-{n}.html").read_bytes() == single.read_bytes(), f"compile id {n}: the --html page"


def test_the_index_carries_the_analysis_and_the_toplists(tmp_path: Path) -> None:
    out, _ = _export(tmp_path, str(SHAPES), "-q")
    data = _data(out / "index.html")
    facts = data["facts"]
    assert facts["finished"] and facts["done"] == facts["total"] == 9
    by_id = {data["rows"][row][2]: values for row, *values in facts["rows"]}
    loops = {n: values[0] for n, values in by_id.items()}
    assert loops[15] >= 1 and loops[17] >= 1, "each OSR compilation enters a loop"
    toplists = facts["toplists"]
    largest = [data["rows"][item["row"]][2] for item in toplists["largest"]]
    assert largest[0] == 15, "the OSR compilation of Shapes::total has the most code"
    [most] = [item for item in toplists["most"] if item["text"] == "Shapes::totalPerim"]
    assert most["value"] == "5 compilations"


def test_top_keeps_the_largest_when_no_heat_is_measured(tmp_path: Path) -> None:
    text = SHAPES.read_text(encoding="utf-8")
    sizes = dict(zip(_ids(text), (int(s) for s in re.findall(r"^ main code .* = (\d+)$", text, re.M)), strict=True))
    ranked = sorted(sizes, key=lambda n: -sizes[n])
    assert ranked[:3] == [15, 14, 16] and sizes[16] > sizes[13], "15 (864 bytes), then 14 and 16 (608), 13 (576)"
    out, err = _export(tmp_path, str(SHAPES), "--top", "3")
    assert _pages(out) == {"id-15.html", "id-14.html", "id-16.html"}
    assert "--top 3: the 3 largest (main code: no heat measured" in err and "of 9 compilations" in err
    assert [row[2] for row in _data(out / "index.html")["rows"]] == [14, 15, 16], "input order"


def test_top_keeps_the_hottest_when_heat_is_measured(tmp_path: Path) -> None:
    text = DEVBENCH.read_text(encoding="utf-8")
    shares: dict[int, float] = {}
    for section in text.split("....[Hottest Regions]")[1:]:
        regions = section.split("\n....")[0]
        for share, compile_id in re.findall(r"^\s+([\d.]+)%\s+c2, level 4 .*compile id (\d+)", regions, re.M):
            shares[int(compile_id)] = shares.get(int(compile_id), 0.0) + float(share)
    assert sorted(shares, key=lambda n: -shares[n]) == [524, 513, 502], "perfasm's own hottest regions"
    out, err = _export(tmp_path, str(DEVBENCH), "--top", "2")
    assert _pages(out) == {"id-524.html", "id-513.html"}
    assert "--top 2: the 2 hottest (measured heat) of 3 compilations" in err
    data = _data(out / "index.html")
    heat = {data["rows"][row][2]: values[6] for row, *values in data["facts"]["rows"]}
    assert heat == {524: pytest.approx(shares[524], abs=0.1), 513: pytest.approx(shares[513], abs=0.1)}, \
        "the heat column shows each compilation's share of its run"


def test_top_applies_to_the_folder_export_only(tmp_path: Path) -> None:
    code, _, err = run_cli(str(SHAPES), "--top", "3", "--json", str(tmp_path / "x.json"))
    assert code == 2 and "--top keeps the N hottest or largest compilations of the folder" in err
    code, _, err = run_cli(str(SHAPES), "--all", "--top", "3", "--html", str(tmp_path / "one.html"))
    assert code == 2 and "which --all does not do: drop --top" in err
    code, _, err = run_cli("-", "--all", "--top", "3", "--html", str(tmp_path / "dir"))
    assert code == 2 and "--top reads the input twice" in err
    code, _, err = run_cli(str(SHAPES), "--all", "--json", "x.json", "--html", str(tmp_path / "dir"))
    assert code == 2 and "writes a folder of pages and nothing else: drop --json" in err


@pytest.mark.slow
def test_one_page_refuses_more_compilations_than_it_holds_and_writes_nothing(tmp_path: Path) -> None:
    assert ONE_PAGE_MOST == 300
    listed = run_cli(str(SAVELOG), "--list")[1].splitlines()
    assert len(listed) - 1 > ONE_PAGE_MOST, "the saveLog holds more compilations than one page takes"
    page = tmp_path / "all.html"
    code, out, err = run_cli(str(SAVELOG), "--all", "--html", str(page))
    assert code == 1 and out == ""
    [line] = err.splitlines()
    assert "more than 300 compilations for one page" in line
    assert "--html DIR" in line and "--top N" in line and "asmcfg serve" in line
    assert list(tmp_path.iterdir()) == [], "nothing written"


@pytest.mark.parametrize(("name", "folder"), [("report.html", False), ("report.HTM", False), ("report", True),
                                              ("report/", True)])
def test_a_name_ending_in_html_is_one_page_anything_else_a_folder(tmp_path: Path, name: str, folder: bool) -> None:
    target = str(tmp_path / name) if not name.endswith("/") else str(tmp_path / name[:-1]) + "/"
    code, _, err = run_cli(str(SHAPES), "--all", "--compiler", "c1", "--html", target, "-q")
    assert code == 0, err
    written = tmp_path / name.rstrip("/")
    assert written.is_dir() is folder
    if folder:
        assert _pages(written) == {"id-13.html", "id-14.html"}


def test_an_existing_folder_is_a_folder_and_an_existing_file_one_page(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    _export(tmp_path, str(SHAPES), "--compiler", "c1", "-q", name="empty")
    assert _pages(tmp_path / "empty") == {"id-13.html", "id-14.html"}
    (tmp_path / "plain").write_text("old")
    _export(tmp_path, str(SHAPES), "--compiler", "c1", "-q", name="plain")
    assert (tmp_path / "plain").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_new_export_replaces_a_previous_one_whole(tmp_path: Path) -> None:
    out, _ = _export(tmp_path, str(SHAPES), "-q")
    assert len(_pages(out)) == 9
    _export(tmp_path, str(SHAPES), "--compiler", "c1", "-q")
    assert _pages(out) == {"id-13.html", "id-14.html"}, "no page of the earlier export is left"
    assert [p.name for p in tmp_path.iterdir()] == ["out"], "no temporary folder is left beside it"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_failed_run_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    out, _ = _export(tmp_path, str(SHAPES), "--compiler", "c1", "-q")
    before = _snapshot(out)
    code, _, err = run_cli(str(SHAPES), "--all", "--compile-id", "999", "--html", str(out))
    assert code == 1 and "no compilation matches" in err
    assert _snapshot(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"], "the temporary folder is removed"


def test_a_folder_of_other_files_is_refused_before_reading(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    code, _, err = run_cli(str(tmp_path / "missing.txt"), "--all", "--html", str(mine))
    assert code == 1 and "folder holds files that are not an asmcfg export" in err, "refused before the input is read"
    assert _snapshot(mine) == {"notes.txt": b"keep"}


def injected(folder: Path) -> Path:
    """The Shapes dump with script in Shapes::total's name (the header is read as written: no spaces)."""
    text = SHAPES.read_text(encoding="utf-8").replace("Shapes::total ", "Shapes::total</script><script>document."
                                                      "title='pwned'</script><img/src=x/onerror=alert(1)> ")
    path = folder / "injected.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_text_from_the_log_never_becomes_markup(tmp_path: Path) -> None:
    dump = injected(tmp_path)
    out, _ = _export(tmp_path, str(dump), "-q")
    index = (out / "index.html").read_text(encoding="utf-8")
    assert index.count("<script") == 2 and "<img" not in index, "the page's own two script elements only"
    names = {row[5] for row in _data(out / "index.html")["rows"]}
    assert "Shapes::total</script><script>document.title='pwned'</script><img/src=x/onerror=alert(1)>" in names
    for page in _pages(out):
        assert "<img/src" not in (out / page).read_text(encoding="utf-8")


def _budget() -> Any:
    from asmcfg.serve import export

    context = multiprocessing.get_context("fork")
    return export._Budget(context.Condition(), context.Value("i", 0), 30.0)


def _drawing(log: list[str], name: str, started: threading.Event, release: threading.Event) -> Any:
    def render(dot: str) -> bytes:
        log.append(f"start {name}")
        started.set()
        assert release.wait(30)
        log.append(f"end {name}")
        return b""

    return render


def test_graphviz_runs_side_by_side_within_the_budget_and_a_large_graph_alone() -> None:
    budget, log = _budget(), []
    small = [threading.Event(), threading.Event()]
    release = threading.Event()
    threads = [threading.Thread(target=budget.within(_drawing(log, f"small{n}", small[n], release)), args=("x" * 1000,))
               for n in range(2)]
    for thread in threads:
        thread.start()
    assert small[0].wait(30) and small[1].wait(30), "two small graphs (16 MB each) are drawn at once"
    release.set()
    for thread in threads:
        thread.join(30)
    big_started, late_started, release = threading.Event(), threading.Event(), threading.Event()
    large = "x" * 900_000  # 16 + 150 MB: over the budget whatever else runs
    big = threading.Thread(target=budget.within(_drawing(log, "large", big_started, release)), args=(large,))
    big.start()
    assert big_started.wait(30), "a graph over the budget is drawn when nothing else is"
    late = threading.Thread(target=budget.within(_drawing(log, "late", late_started, release)), args=("x",))
    late.start()
    late.join(0.5)
    assert late.is_alive() and not late_started.is_set(), "the small one waits for the large one"
    release.set()
    big.join(30)
    late.join(30)
    assert log[-4:] == ["start large", "end large", "start late", "end late"]


def test_an_error_while_ranking_is_said_as_any_other_and_nothing_is_written(tmp_path: Path) -> None:
    patch = DATA / "nohsdis" / "jdk17-Patch-nohsdis.txt"
    code, _, err = run_cli(str(patch), "--all", "--html", str(tmp_path / "out"), "--top", "2", "--strict")
    assert code == 1
    assert "jdk17-Patch-nohsdis.txt:" in err and "line not understood" in err, "the file and line, from the ranking"
    assert list(tmp_path.iterdir()) == []
