"""The worker pool of whole-log runs: a worker that dies ends the run with a one-line error, not a hang."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from asmcfg.processes import pool

SCRIPT = textwrap.dedent(
    """
    import os, signal
    from asmcfg.errors import WorkerError
    from asmcfg.processes import pool

    parent = os.getpid()

    def work(batch):
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)  # what the kernel's out-of-memory killer does to a worker
        return batch

    try:
        print(list(pool.ordered(work, iter(range(40)), 2)))
    except WorkerError as error:
        print("error:", error)
    """
)


def test_a_worker_killed_mid_run_stops_the_run_with_an_error() -> None:
    # a subprocess with a time limit: a pool that waits for ever fails the test instead of hanging it
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    message = "a worker process stopped before it finished its part (killed, or out of memory)"
    assert done.stdout.strip() == f"error: {message}"


def test_results_come_in_input_order_from_both_processes() -> None:
    assert list(pool.ordered(abs, iter(range(-500, 0)), 2)) == list(range(500, 0, -1))
