"""The links of `asmcfg serve` name each compilation by its compile id (`/c/15`, `/c/15.2` for the second of a
repeated id, `/r/N` where the input prints none; `/pair/10/11`, `/old/7`, `/new/N` for two logs), and each opens
that compilation's page; any other path is 404. Real inputs, a real server, no browser."""

from __future__ import annotations

import html
import json
import re
import signal
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import DATA
from served import Served

from asmcfg.serve import links

NOHSDIS = DATA / "nohsdis"
SHAPES = (NOHSDIS / "jdk17-Shapes-print-nohsdis.txt", NOHSDIS / "jdk25-Shapes-print-nohsdis.txt")
"""The same program's output on JDK 17 (compile ids 13-29) and on JDK 25 (11-40): ids 14, 15, 16, 18 and 23 in both."""
WINDOWS = DATA / "public" / "hushi55__hushi55.github.io___posts__code__2015-01-05-volatile-assembly.md--amd64-plain.txt"
"""Windows hsdis output of JDK 7 that prints no compile id."""
TENSOR = tuple(DATA / "hsdis" / f"jdk{jdk}-Tensor4D-printassembly-full.txt.gz" for jdk in (17, 25))


class Client:
    """A browser-like client of a running server: a code once, then its cookie."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self.opener = served.opener()
        with self.opener.open(served.base, timeout=30) as answer:
            self.index = answer.read().decode("utf-8")

    def data(self) -> dict[str, Any]:
        found = re.search(r'<script type="application/json" id="data">(.*?)</script>', self.index, re.S)
        assert found is not None
        data: dict[str, Any] = json.loads(found.group(1))
        return data

    def get(self, path: str) -> tuple[int, str]:
        try:
            with self.opener.open(self.served.base + path.lstrip("/"), timeout=300) as answer:
                return answer.status, answer.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode("utf-8")


def _title(page: str) -> str:
    found = re.search(r"<title>(.*?)</title>", page, re.S)
    assert found is not None
    return html.unescape(found.group(1))


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    """A log of two runs: the JDK 17 output, then the JDK 25 output appended (as `>>` appends it)."""
    log = tmp_path_factory.mktemp("serve") / "two-runs.txt"
    log.write_bytes(SHAPES[0].read_bytes() + SHAPES[1].read_bytes())
    served = Served(log, "-q")
    yield Client(served)
    served.stop(signal.SIGTERM)


def test_each_row_links_to_its_compile_id_and_the_second_of_an_id_to_its_place(two_runs: Client) -> None:
    data = two_runs.data()
    ids = [row[2] for row in data["rows"]]
    assert ids == [13, 14, 15, 16, 17, 18, 22, 23, 29, 11, 12, 14, 15, 16, 18, 23, 31, 24, 32, 39, 40]
    assert data["pages"] == [
        "/c/13", "/c/14", "/c/15", "/c/16", "/c/17", "/c/18", "/c/22", "/c/23", "/c/29",
        "/c/11", "/c/12", "/c/14.2", "/c/15.2", "/c/16.2", "/c/18.2", "/c/23.2", "/c/31", "/c/24", "/c/32", "/c/39",
        "/c/40"]


def test_a_link_opens_the_compilation_it_names(two_runs: Client) -> None:
    status, first = two_runs.get("/c/15")
    assert status == 200 and "id 15" in _title(first) and "Shapes::total" in _title(first)
    assert '"jdk":17,' in first and '"osr_bci":11,' in first, "JDK 17's id 15: Shapes::total's OSR compilation"
    status, second = two_runs.get("/c/15.2")
    assert status == 200 and "id 15" in _title(second) and "Shapes::total" in _title(second)
    assert '"jdk":25,' in second and '"osr_bci":null,' in second, "JDK 25's id 15: Shapes::total, not OSR"


@pytest.mark.parametrize("path", ["/c/15.1", "/c/015", "/c/15.3", "/c/19", "/c/0", "/r/0", "/c/15/", "/c//15",
                                  "/c/" + "1" * 100, "/c/1e3", "/c/-1", "/c/%31%35", "/pair/15/15", "/old/15"])
def test_any_other_path_is_not_found(two_runs: Client, path: str) -> None:
    status, _ = two_runs.get(path)
    assert status == 404, path


def test_a_compilation_without_a_compile_id_is_linked_by_its_row(tmp_path: Path) -> None:
    copy = tmp_path / WINDOWS.name
    copy.write_bytes(WINDOWS.read_bytes())
    served = Served(copy, "-q")
    try:
        client = Client(served)
        assert client.data()["pages"] == ["/r/0"]
        status, page = client.get("/r/0")
        assert status == 200 and "VisibilityTest::run" in _title(page)
        assert client.get("/c/0")[0] == 404
    finally:
        served.stop(signal.SIGTERM)


def test_the_two_log_index_links_pairs_and_methods_of_one_log_by_their_compile_ids() -> None:
    served = Served(TENSOR[0], str(TENSOR[1]), "-q")
    try:
        client = Client(served)
        data = client.data()
        assert len(data["pages"]) == len(data["rows"]) == 14
        for row, page in zip(data["rows"], data["pages"], strict=True):
            expected = {"pair": f"/pair/{row['old_id']}/{row['new_id']}", "old": f"/old/{row['old_id']}",
                        "new": f"/new/{row['new_id']}"}[row["kind"]]
            assert page == expected, row
        assert "/pair/10/11" in data["pages"] and "/old/7" in data["pages"]
        status, page = client.get("/old/7")
        assert status == 200 and "Tensor4D::sum4" in _title(page) and "7" in _title(page)
        assert client.get("/new/7")[0] == 404 and client.get("/pair/11/10")[0] == 404
    finally:
        served.stop(signal.SIGTERM)


def test_places_count_each_compile_id_on_its_own() -> None:
    assert list(links.places([5, 7, None, 5, 5, 7, None])) == [1, 1, 0, 2, 3, 2, 0]
    assert [links.compilation(i, p, n) for n, (i, p) in enumerate([(5, 1), (5, 2), (None, 0)])] == [
        "/c/5", "/c/5.2", "/r/2"]
    assert [links.page_file(i, p, n) for n, (i, p) in enumerate([(5, 1), (5, 2), (None, 0)])] == [
        "id-5.html", "id-5-2.html", "row-2.html"]
    assert links.pair((10, 1), (11, 1), 0) == "/pair/10/11" and links.pair((10, 1), (None, 0), 4) == "/r/4"
    assert links.row_of("/c/5.2", {"/c/5.2": 1}) == 1
    assert links.row_of("/c/5.2" + "0" * 100, {"/c/5.2" + "0" * 100: 1}) is None, "too long to be looked at"
