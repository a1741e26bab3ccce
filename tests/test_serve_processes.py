"""`serve` analyses in the background from a process the forkserver starts: the serving process runs threads, and a
fork of it could hold a lock one of them held (an import's, the allocator's) and wait for it forever."""

from __future__ import annotations

import os
import threading

import pytest

import asmcfg
from asmcfg.processes import start
from asmcfg.run.enrich import Enrichment
from asmcfg.serve import board, rows
from asmcfg.serve.opening import Reading
from tests.conftest import DATA

SHAPES = DATA / "nohsdis" / "jdk17-Shapes-print-nohsdis.txt"
"""Nine compilations of Shapes::total and Shapes::totalPerim, C1 and C2, OSR and not."""


def test_the_background_analysis_is_not_forked_from_the_threaded_server(monkeypatch: pytest.MonkeyPatch) -> None:
    reading = Reading(str(SHAPES))
    found = board.Board(rows.build(asmcfg.open(reading.path)))
    forked: list[int] = []
    fork = os.fork

    def noted() -> int:
        forked.append(threading.active_count())
        return fork()

    monkeypatch.setattr(os, "fork", noted)
    serving = threading.Event()  # stands for the server's thread, which runs while the analysis does
    server = threading.Thread(target=serving.wait, name="asmcfg-http")
    server.start()
    try:
        filler = threading.Thread(target=board.fill,
                                  args=(found, reading, Enrichment(), threading.Event(), board.Stopper()))
        filler.start()
        filler.join()  # the analysis ends once every compilation is in
    finally:
        serving.set()
        server.join()
    progress = found.since(0)
    assert progress["problem"] is None and progress["finished"]
    assert progress["done"] == progress["total"] == 9
    assert [row[1] for row in progress["rows"]].count(None) < 9, "the loops column is filled"
    assert forked == [], "this process was forked while its threads ran"


@pytest.mark.skipif(not start.FORK, reason="processes are spawned where none can be forked")
def test_processes_start_forked_only_where_no_other_thread_runs() -> None:
    alone = threading.active_count() == 1  # no thread is left running by an earlier test of this process
    assert start.context().get_start_method() == ("fork" if alone else "forkserver")
    other = threading.Event()
    thread = threading.Thread(target=other.wait)
    thread.start()
    try:
        assert start.context().get_start_method() == "forkserver"
    finally:
        other.set()
        thread.join()

