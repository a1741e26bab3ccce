"""A child started by `os.fork` (`Child(..., forked=True)`): stopped from any thread, reaped once, its pid never
signalled after it was reaped."""

from __future__ import annotations

import os
import threading

import pytest

from asmcfg.processes import child as child_module
from asmcfg.processes.child import Child


def _waits_for(fd: int) -> object:
    def body(send: object) -> None:
        os.read(fd, 1)  # until the test writes, or the child is killed

    return body


def test_a_kill_after_the_child_was_reaped_signals_no_one(monkeypatch: pytest.MonkeyPatch) -> None:
    child: Child[None] = Child(lambda send: None, "asmcfg-test", forked=True)
    assert child.ended()
    signalled: list[int] = []
    monkeypatch.setattr(child_module.os, "kill", lambda pid, sig: signalled.append(pid))
    child.kill()
    child.cancel()
    assert signalled == []


def test_a_kill_from_another_thread_ends_a_child_being_waited_for() -> None:
    reader, writer = os.pipe()
    try:
        child: Child[None] = Child(_waits_for(reader), "asmcfg-test", forked=True)  # type: ignore[arg-type]
        results: list[bool] = []
        waiting = threading.Thread(target=lambda: results.append(child.ended()))
        waiting.start()
        child.kill()
        waiting.join()
        child.kill()  # any number of times, after it ended too
        child.cancel()
        assert results == [False]
    finally:
        os.close(reader)
        os.close(writer)


def test_two_threads_waiting_for_one_child_both_see_it_end() -> None:
    reader, writer = os.pipe()
    try:
        child: Child[None] = Child(_waits_for(reader), "asmcfg-test", forked=True)  # type: ignore[arg-type]
        results: list[bool] = []
        waiting = [threading.Thread(target=lambda: results.append(child.ended())) for _ in range(2)]
        for thread in waiting:
            thread.start()
        os.write(writer, b"x")
        for thread in waiting:
            thread.join()
        assert results == [True, True]
    finally:
        os.close(reader)
        os.close(writer)


def test_a_child_whose_pipe_is_numbered_past_1023_is_still_waited_for() -> None:
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1_100)]  # as a server holding many connections
    try:
        child: Child[int] = Child(lambda send: send(7), "asmcfg-test", forked=True)
        assert child.ready(120)  # a bound for the failure alone: the message is there as soon as the child runs
        assert child.receive() == 7
        child.cancel()
    finally:
        for fd in held:
            os.close(fd)
