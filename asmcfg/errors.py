"""The one small exception tree: every error asmcfg reports carries where it happened."""

from __future__ import annotations

from asmcfg.terminal import visible


class AsmcfgError(Exception):
    """Base of every error asmcfg reports to the user; `exit_code` is the process status."""

    exit_code = 1

    def __init__(self, message: str, source: str = "", line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line

    def __str__(self) -> str:
        """`file:line: message`, its control characters made visible: file names and messages quote the input."""
        where = self.source + (f":{self.line}" if self.line else "")
        return visible(f"{where}: {self.message}" if where else self.message)


class InputError(AsmcfgError):
    """The input cannot be read or holds nothing asmcfg understands."""


class SelectionError(InputError):
    """The requested method or compile id is not in the input."""


class StrictError(InputError):
    """A line was not understood and `--strict` asked to stop there."""

    @classmethod
    def at(cls, text: str, source: str, line: int) -> StrictError:
        """The error for line `line` of `source`, which reads `text`."""
        return cls(f"line not understood: {text[:80]!r} (drop --strict to skip such lines)", source, line)


class WorkerError(AsmcfgError):
    """A worker process of a run over a whole log stopped before returning its part."""


class RenderError(AsmcfgError):
    """Graphviz is missing, failed, or took too long."""

    exit_code = 3


class OutputError(AsmcfgError):
    """An output file could not be written."""


class CommandError(AsmcfgError):
    """`asmcfg record` could not start the command it was given (status 127, as a shell says "not found")."""

    exit_code = 127
