"""The time range of `asmcfg serve` (`?from=MS&to=MS`): what a request may give, how the pages name it, and the
heat of the index's rows and its hottest list under it (the browser's view is tests/test_serve_timeline.py)."""

from __future__ import annotations

import pytest

from asmcfg.serve.board import Board
from asmcfg.serve.opening import Row
from asmcfg.serve.rows import Entry, Index
from asmcfg.serve.timeline import WHOLE, RangeError, asked, query_of, window_of, words


@pytest.mark.parametrize(("query", "window"), [
    ({}, WHOLE),
    ({"from": ["400"]}, (400.0, None)),
    ({"to": ["1500.5"]}, (None, 1500.5)),
    ({"from": ["0"], "to": ["1500"]}, (0.0, 1500.0)),
    ({"from": [""], "to": ["7"]}, (None, 7.0)),
])
def test_a_range_as_a_request_gives_it(query: dict[str, list[str]], window: tuple[float | None, float | None]) -> None:
    assert window_of(query) == window
    assert window_of({k: [v] for k, v in _parsed(query_of(window)).items()}) == window, "its query names it again"


@pytest.mark.parametrize("query", [
    {"from": ["-1"]}, {"from": ["1e3"]}, {"to": ["0x10"]}, {"to": ["1" * 10]}, {"from": ["1.2345"]},
    {"from": ["\u0661\u0662"]}, {"from": ["1", "2"]}, {"from": ["5"], "to": ["5"]}, {"from": ["9"], "to": ["3"]},
    {"from": ["nan"]}, {"to": ["inf"]},
])
def test_a_range_that_is_none_is_refused_in_one_sentence(query: dict[str, list[str]]) -> None:
    with pytest.raises(RangeError) as refused:
        window_of(query)
    assert "\n" not in str(refused.value) and ("`from`" in str(refused.value) or "`to`" in str(refused.value))


def test_an_input_without_samples_takes_no_range() -> None:
    assert asked(None, {"since": ["3"]}) == WHOLE
    with pytest.raises(RangeError, match="this input has no samples"):
        asked(None, {"to": ["10"]})


def test_the_pages_say_which_samples_they_count() -> None:
    assert words((400, 1500)) == "samples from 400 ms to 1,500 ms"
    assert words((3216, None)) == "samples from 3,216 ms on"
    assert words((None, 3216)) == "samples before 3,216 ms"
    assert query_of((400.0, 1500.5)) == "?from=400&to=1500.5" and query_of(WHOLE) == ""


def test_a_range_gives_the_rows_its_heat_and_ranks_the_hottest_by_it() -> None:
    entries = [Entry(Row(i, f"p.C::m{i}", 0), (n, "c2", i, 4, None, f"p.C::m{i}", 10, 100, True))
               for n, i in enumerate((7, 8, 9))]
    board = Board(Index(entries))
    for i, heat in ((7, 50.0), (8, 30.0), (9, None)):
        board.add({"compile_id": i, "name": f"p.C::m{i}", "loops": 0, "traps": {}, "fired": None, "fired_by": {},
                   "checks": 0, "range": 0, "calls": 0, "not_inlined": [], "vector": 0, "heat": heat,
                   "findings": []})
    whole = board.since(0)
    ranged = board.since_in(0, {8: 90.0, 9: 2.0})
    assert [r[-1] for r in whole["rows"]] == [50.0, 30.0, None]
    assert [r[-1] for r in ranged["rows"]] == [0.0, 90.0, None], "unmeasured stays unmeasured"
    assert [(e["row"], e["value"]) for e in whole["toplists"]["hottest"]] == [(0, "50.00%"), (1, "30.00%")]
    assert [(e["row"], e["value"]) for e in ranged["toplists"]["hottest"]] == [(1, "90.00%"), (2, "2.00%")]
    assert ranged["toplists"]["largest"] == whole["toplists"]["largest"], "the code's lists stay as they are"


def _parsed(query: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in query.lstrip("?").split("&") if part)
