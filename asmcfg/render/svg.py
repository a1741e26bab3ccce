"""Render DOT to SVG with the system `dot` when present, else the pip-installed graphviz-pure."""

from __future__ import annotations

import os
import sys

from asmcfg.errors import RenderError

RENDERERS = ("auto", "dot", "graphviz-pure")
"""The --renderer choices (the CLI reads them at start-up: this module loads shutil and subprocess on use)."""


def find_renderer(choice: str = "auto") -> list[str]:
    """The command line of the renderer to use (`auto`: system dot first)."""
    import shutil

    if choice in ("auto", "dot"):
        system = shutil.which("dot")
        if system:
            return [system]
        if choice == "dot":
            raise RenderError("Graphviz 'dot' is not on PATH (use --renderer graphviz-pure)")
    pure = shutil.which("graphviz-pure") or _beside_python("graphviz-pure")
    if pure:
        return [pure]
    raise RenderError("no Graphviz renderer found (install Graphviz, or pip install graphviz-pure)")


def _beside_python(name: str) -> str | None:
    candidate = os.path.join(os.path.dirname(sys.executable), name)
    return candidate if os.path.exists(candidate) and os.access(candidate, os.X_OK) else None


def render_svg(dot: str, timeout: float, choice: str = "auto") -> bytes:
    """SVG bytes for `dot`; RenderError on failure or after `timeout` seconds."""
    import subprocess

    command = [*find_renderer(choice), "-Tsvg"]
    try:
        done = subprocess.run(command, input=dot.encode("utf-8"), capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise RenderError(
            f"Graphviz took longer than {timeout:g} s (fold cold blocks, select a smaller method, "
            "or raise --render-timeout)"
        ) from None
    except OSError as exc:
        raise RenderError(f"cannot run {command[0]}: {exc.strerror}") from None
    if done.returncode != 0 or not done.stdout:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = message[-1] if message else "no output"
        name = os.path.basename(command[0])
        raise RenderError(f"{name} failed: {detail} (try --renderer graphviz-pure, or --no-fold)")
    return done.stdout
