"""Run the recorded command as a shell runs a foreground job: in its own process group, which gets the terminal
while it runs (Ctrl-C and Ctrl-\\ from the keyboard reach it and only it); SIGINT, SIGTERM, SIGHUP and SIGQUIT sent
to asmcfg are passed on to the whole group (a script's JVMs too); Ctrl-Z stops both and `fg` resumes both."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType

from asmcfg.errors import CommandError

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
"""The signals asmcfg passes on to the command's process group while it runs."""


@dataclass(frozen=True, slots=True)
class Ended:
    """How the command ended."""

    status: int | None
    """Its exit status, or None when a signal ended it."""
    signal: int | None
    """The signal that ended it, or None."""

    @property
    def exit_code(self) -> int:
        """What asmcfg exits with: the status, or 128 + the signal's number as a shell reports it."""
        return self.status if self.status is not None else 128 + (self.signal or 0)

    @property
    def signal_name(self) -> str | None:
        """SIGTERM, SIGKILL…, or None."""
        return signal.Signals(self.signal).name if self.signal is not None else None


def run(argv: list[str], env: dict[str, str], *, stderr: int | None = None,
        keep_fds: tuple[int, ...] = ()) -> Ended:
    """Run `argv` to its end with the same stdin and stdout as asmcfg (stderr too unless `stderr` names another
    fd), and return how it ended."""
    terminal = _foreground_terminal()
    try:
        child = subprocess.Popen(argv, env=env, stderr=stderr, pass_fds=keep_fds,
                                 preexec_fn=_own_group(terminal))  # asmcfg runs no threads here
    except OSError as error:
        raise CommandError(f"cannot run {argv[0]}: {error.strerror or error}", "record") from error
    with _forwarding(child.pid), _terminal_back(terminal):
        status = _wait(child.pid, terminal)
    child.returncode = status  # reaped here: Popen must not wait for it again
    if os.WIFSIGNALED(status):
        return Ended(None, os.WTERMSIG(status))
    return Ended(os.WEXITSTATUS(status), None)


def _foreground_terminal() -> int | None:
    """The fd of asmcfg's terminal when asmcfg is the foreground job on it, else None (a pipe, `&`, a CI run)."""
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return fd
    return None


def _own_group(terminal: int | None) -> Callable[[], None]:
    """What the child does before exec: lead its own process group, and take the terminal if asmcfg had it."""

    def child() -> None:
        os.setpgid(0, 0)
        if terminal is not None:
            _give_terminal(terminal, os.getpgrp())

    return child


def _give_terminal(fd: int, group: int) -> None:
    """Make `group` the terminal's foreground group (SIGTTOU, sent to a background caller, ignored meanwhile)."""
    previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        with contextlib.suppress(OSError):
            os.tcsetpgrp(fd, group)
    finally:
        signal.signal(signal.SIGTTOU, previous)


def _wait(pid: int, terminal: int | None) -> int:
    """Wait for the child to end; when Ctrl-Z stops it, stop asmcfg too, and on `fg` resume it with the
    terminal."""
    if terminal is not None:
        _give_terminal(terminal, pid)  # the child does it too: whichever runs first, the job has the terminal
    while True:
        _, status = os.waitpid(pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):
            return status
        if terminal is not None:
            _give_terminal(terminal, os.getpgrp())
        os.kill(os.getpid(), signal.SIGSTOP)  # as the shell sees it: the job asmcfg is, stopped
        if terminal is not None:
            _give_terminal(terminal, pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGCONT)


@contextlib.contextmanager
def _forwarding(group: int) -> Iterator[None]:
    """While the block runs, the forwarded signals sent to asmcfg go to the child's process group instead."""

    def forward(signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signum)

    previous = {signum: signal.signal(signum, forward) for signum in FORWARDED
                if signal.getsignal(signum) is not signal.SIG_IGN}  # `nohup`: stays ignored
    try:
        yield
    finally:
        for signum, handler in previous.items():
            if handler is not None:  # None: set outside Python, left as the forwarder found it
                signal.signal(signum, handler)


@contextlib.contextmanager
def _terminal_back(terminal: int | None) -> Iterator[None]:
    """After the block, asmcfg's own process group has the terminal again."""
    try:
        yield
    finally:
        if terminal is not None:
            _give_terminal(terminal, os.getpgrp())
