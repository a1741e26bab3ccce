"""Stopping `serve` ends its background analysis's process from the stopping thread, whatever the analysis's own
thread is doing: a busy machine that starves the analysis (it runs niced) never keeps the server from exiting."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from asmcfg.processes.child import Child
from asmcfg.serve.board import Stopper


def _forever(send: Callable[[Any], None]) -> None:
    """An analysis that never ends by itself."""
    send("started")
    threading.Event().wait()


def test_a_stop_before_the_analysis_started_kills_it_as_it_starts() -> None:
    stopper = Stopper()
    stopper.stop()
    child: Child[None] = Child(_forever, "asmcfg-test")
    stopper.started(child)
    assert not child.ended(), "killed, not finished"
    child.cancel()


def test_a_stop_kills_the_running_analysis_and_may_come_twice() -> None:
    stopper = Stopper()
    child: Child[None] = Child(_forever, "asmcfg-test")
    stopper.started(child)
    assert child.receive() == "started"
    stopper.stop()
    stopper.stop()
    assert list(child.received()) == [] and not child.ended()
    child.cancel()
    child.cancel()
