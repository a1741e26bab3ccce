"""The guard around a run: errors become one line on stderr and an exit code, never a traceback."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable

from asmcfg.errors import AsmcfgError
from asmcfg.terminal import visible


def guarded(run: Callable[[], int], source: str, debug: bool) -> int:
    """Run and return its status; errors become one line on stderr and their exit code."""
    try:
        return run()
    except AsmcfgError as error:
        if debug:
            _traceback()
        _say(f"asmcfg: {error}")
        return error.exit_code
    except BrokenPipeError:
        _drop_stdout()
        sys.stderr.close()
        return 0
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
    its control characters made visible: an internal error's detail may quote the input."""
    import click

    click.echo(visible(line), err=True)


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
