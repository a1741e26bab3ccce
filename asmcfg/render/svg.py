"""Render DOT to SVG with the system `dot` when present, else the pip-installed graphviz-pure."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from asmcfg.errors import RenderError

RENDERERS = ("auto", "dot", "graphviz-pure")
"""The --renderer choices (the CLI reads them at start-up: this module loads shutil and subprocess on use)."""

Render = Callable[[str], bytes]
"""DOT text in, SVG bytes out; RenderError when Graphviz fails or takes too long."""
MEMORY = 1 << 30
"""Bytes of address space a Graphviz process may use (Linux): the largest real compilations need under 200 MB."""


@dataclass(slots=True)
class _Deadline:
    at: float | None
    """When the Graphviz runs sharing it must end (time.monotonic); None until the first one starts."""


_DEADLINE: ContextVar[_Deadline | None] = ContextVar("asmcfg_graphviz_deadline", default=None)


@contextlib.contextmanager
def budget(seconds: float | None = None) -> Iterator[None]:
    """The Graphviz runs inside share one time limit: `seconds` from now, or (None) the first run's timeout from
    its start; inside another budget, that one holds. A page's tries (without loop clusters, with the other
    renderer) so take `--render-timeout` in all, not each."""
    if _DEADLINE.get() is not None:
        yield
        return
    token = _DEADLINE.set(_Deadline(None if seconds is None else time.monotonic() + seconds))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _seconds_left(name: str, timeout: float) -> float:
    """How long a run may take: `timeout`, or less when a budget is running out (RenderError when it has)."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    now = time.monotonic()
    if deadline.at is None:
        deadline.at = now + timeout
    left = min(timeout, deadline.at - now)
    if left <= 0:
        raise RenderError(f"{name} not run: the {timeout:g} s given to Graphviz are spent")
    return left


@dataclass(frozen=True, slots=True)
class Renderer:
    """One Graphviz program, run with the run's timeout."""

    name: str
    """What notes call it (`dot`, `graphviz-pure`)."""
    render: Render
    """The call."""


def find_renderer(choice: str = "auto") -> list[str]:
    """The command line of the renderer to use (`auto`: system dot first)."""
    import shutil

    if choice in ("auto", "dot"):
        system = shutil.which("dot")
        if system:
            return [system]
        if choice == "dot":
            raise RenderError("Graphviz 'dot' is not on PATH (use --renderer graphviz-pure)")
    pure = _pure()
    if pure:
        return [pure]
    raise RenderError("no Graphviz renderer found (install Graphviz, or pip install graphviz-pure)")


def _pure() -> str | None:
    import shutil

    return shutil.which("graphviz-pure") or _beside_python("graphviz-pure")


def _beside_python(name: str) -> str | None:
    candidate = os.path.join(os.path.dirname(sys.executable), name)
    return candidate if os.path.exists(candidate) and os.access(candidate, os.X_OK) else None


def renderers(choice: str, timeout: float) -> tuple[Renderer, ...]:
    """The renderer `choice` names (RenderError when it is missing), then the other one when it is installed:
    what draws a compilation the first one cannot."""
    import shutil

    first = find_renderer(choice)[0]
    system = shutil.which("dot")
    other = _pure() if system is not None and os.path.samefile(first, system) else system
    return tuple(_renderer(command, timeout) for command in (first, other) if command is not None)


def _renderer(command: str, timeout: float) -> Renderer:
    return Renderer(os.path.basename(command), lambda dot: run_renderer(command, dot, timeout))


def run_renderer(command: str, dot: str, timeout: float) -> bytes:
    """SVG bytes from the Graphviz program `command`; RenderError saying what went wrong (`dot failed: …`,
    `dot took longer than 60 s`)."""
    import subprocess

    name = os.path.basename(command)
    seconds = _seconds_left(name, timeout)
    try:
        process = subprocess.Popen([command, "-Tsvg"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
    except OSError as exc:
        raise RenderError(f"cannot run {command}: {exc.strerror}") from None
    with process:
        _limit(process.pid)  # before it reads the graph: what it allocates first is small
        try:
            out, err = process.communicate(dot.encode("utf-8"), timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            if seconds < timeout:
                raise RenderError(f"{name} stopped: the {timeout:g} s given to Graphviz ran out") from None
            raise RenderError(f"{name} took longer than {timeout:g} s") from None
    if process.returncode != 0 or not out:
        message = err.decode("utf-8", "replace").strip().splitlines()
        raise RenderError(f"{name} failed: {message[-1] if message else 'no output'}")
    return out


def _limit(pid: int) -> None:
    """Bound the address space of the Graphviz process `pid` to MEMORY where the system allows it (Linux): a graph
    that needs more ends it, as too long a one does."""
    try:
        import resource

        resource.prlimit(pid, resource.RLIMIT_AS, (MEMORY, MEMORY))
    except (ImportError, AttributeError, OSError, ValueError):  # not Linux, or the process has ended already
        pass


def render_svg(dot: str, timeout: float, choice: str = "auto") -> bytes:
    """SVG bytes for `dot`; RenderError on failure or after `timeout` seconds."""
    command = find_renderer(choice)[0]
    try:
        return run_renderer(command, dot, timeout)
    except RenderError as exc:
        advice = ("fold cold blocks, select a smaller method, or raise --render-timeout" if "longer than" in str(exc)
                  else "try --renderer graphviz-pure, or --no-fold")
        raise RenderError(f"{exc} ({advice})") from None
