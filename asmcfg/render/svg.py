"""Render DOT to SVG with the system `dot` when present, else the pip-installed graphviz-pure."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

from asmcfg.errors import RenderError

RENDERERS = ("auto", "dot", "graphviz-pure")
"""The --renderer choices (the CLI reads them at start-up: this module loads shutil and subprocess on use)."""

Render = Callable[[str], bytes]
"""DOT text in, SVG bytes out; RenderError when Graphviz fails or takes too long."""


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
    try:
        done = subprocess.run([command, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        raise RenderError(f"{name} took longer than {timeout:g} s") from None
    except OSError as exc:
        raise RenderError(f"cannot run {command}: {exc.strerror}") from None
    if done.returncode != 0 or not done.stdout:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RenderError(f"{name} failed: {message[-1] if message else 'no output'}")
    return done.stdout


def render_svg(dot: str, timeout: float, choice: str = "auto") -> bytes:
    """SVG bytes for `dot`; RenderError on failure or after `timeout` seconds."""
    command = find_renderer(choice)[0]
    try:
        return run_renderer(command, dot, timeout)
    except RenderError as exc:
        advice = ("fold cold blocks, select a smaller method, or raise --render-timeout" if "longer than" in str(exc)
                  else "try --renderer graphviz-pure, or --no-fold")
        raise RenderError(f"{exc} ({advice})") from None
