"""The guard around a run: errors become one line on stderr and an exit code, never a traceback."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable

from asmcfg.errors import AsmcfgError, OutputError
from asmcfg.run.signals import Stopped, stopping
from asmcfg.terminal import visible


def guarded(run: Callable[[], int], source: str, debug: bool) -> int:
    """Run and return its status; errors become one line on stderr and their exit code. SIGTERM and SIGHUP stop
    the run as Ctrl-C does (outputs' temp files removed, workers ended), with status 128 + the signal's number."""
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        sys.stdout = ClosedStdout()
    try:
        with stopping():
            return run()
    except AsmcfgError as error:
        if debug:
            _traceback()
        _say(f"asmcfg: {error}")
        return error.exit_code
    except BrokenPipeError:  # the reader had enough (`| head`): quiet, as a pipeline expects
        _drop_stdout()
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.close()
        return 0
    except Stopped as stop:
        _say(f"asmcfg: stopped by {stop.name}")
        return 128 + stop.signum
    except KeyboardInterrupt:
        _say("asmcfg: interrupted")
        return 130
    except Exception as exc:  # the final guard: one line, never a traceback without --debug
        if debug:
            _traceback()
        code, message = unexpected(exc, source)
        _say(f"asmcfg: {message}")
        return code


def _say(line: str) -> None:
    """One line on stderr, as click writes it (click is loaded only now: the launcher's fast paths run without it),
    its control characters made visible (an internal error's detail may quote the input); nothing when stderr is
    gone too (a closed pipe, a hung-up terminal)."""
    import click

    with contextlib.suppress(OSError, ValueError):
        click.echo(visible(line), err=True)


class ClosedStdout(io.TextIOBase):
    """sys.stdout of a process started with stdout closed: writing to it is an OutputError, not an internal one."""

    def write(self, text: str) -> int:
        raise OutputError("standard output is closed: name a FILE for the output, or leave stdout open")

    def isatty(self) -> bool:
        return False


def stdout_closed() -> bool:
    """True when the process was started with stdout closed."""
    return sys.stdout is None or isinstance(sys.stdout, ClosedStdout)


INTERNAL_ERROR = 4
"""Exit status for an exception asmcfg did not expect: a bug to report."""
_MAX_DETAIL = 200


def unexpected(exc: Exception, source: str) -> tuple[int, str]:
    """Exit status and one-line message for an exception that is not an AsmcfgError."""
    from asmcfg.sources.lines import display_name

    if isinstance(exc, MemoryError):
        return 1, f"{display_name(source)}: out of memory (select one method with --method instead of --all)"
    if isinstance(exc, OSError):
        _drop_stdout()
        return 1, f"cannot write the output: {exc.strerror or exc} (check free space and where the output goes)"
    detail = " ".join(str(exc).split())[:_MAX_DETAIL]
    return INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {detail} (run with --debug and report it)"


def _drop_stdout() -> None:
    """If stdout is what failed, point it at /dev/null: the flush at exit would fail again and print more."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _traceback() -> None:
    import traceback  # only for --debug: it loads linecache and tokenize

    traceback.print_exc()
