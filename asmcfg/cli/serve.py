"""`asmcfg serve`: the subcommand's flags; the server itself is asmcfg.serve."""

from __future__ import annotations

import sys

import click

from asmcfg.cli.shared import FORMATS, RENDER_TIMEOUT, SETTINGS, SYNTAXES, Grouped
from asmcfg.model import DialectName, Syntax
from asmcfg.render.svg import RENDERERS
from asmcfg.run.guard import guarded

SERVE_EPILOG = """Listens on 127.0.0.1 only and prints one line on stdout: the URL to open, with a random token
in it (requests without it are refused). The index lists every compilation at once, from the same header index
as --list; loops, traps, checks, calls and heat, and the toplists, fill in while every compilation is analysed
in the background on all cores. A click opens a compilation's report, the page --html writes. Ctrl-C stops the
server. Exit codes: 0 ok, 1 input problem, 2 usage, 4 internal error, 130 Ctrl-C, 143 SIGTERM.

\b
Examples:
  # explore a whole run's log in the browser
  asmcfg serve run.log --log run.xml
  # on a fixed port, without opening a browser
  asmcfg serve run.log --port 8800 --no-open"""
SERVE_SECTIONS = (
    ("What to read", ("input_format", "syntax")),
    ("Heat and logs", ("log", "profile", "jdk", "source_path")),
    ("Serving", ("port", "no_open", "quiet")),
    ("Drawing", ("renderer", "render_timeout")),
    ("Other", ("debug", "help")),
)
"""The sections of `asmcfg serve --help`, and the options under each."""


class _ServeCommand(Grouped):
    """`asmcfg serve`, its help in sections."""

    sections = SERVE_SECTIONS
    arguments = (("FILE", "The JVM's output (any format asmcfg reads; plain, .gz, .xz, .bz2)."),)


@click.command(cls=_ServeCommand, epilog=SERVE_EPILOG, context_settings=SETTINGS)
@click.argument("input", metavar="FILE")
@click.option("--input-format", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Input format; sniffed by default.")
@click.option("--syntax", type=click.Choice(SYNTAXES), default="att", show_default=True,
              help="x86 syntax for instructions decoded from [MachCode] hex.")
@click.option("--log", metavar="LOGXML", help="LogCompilation log of the same run (inlining decisions, traps fired).")
@click.option("--profile", metavar="PERFASM", help="JMH perfasm profile of the same run (heat).")
@click.option("--jdk", type=click.IntRange(6, 40), metavar="N", help="JDK whose trap-reason table to use.")
@click.option("--source-path", multiple=True, metavar="DIR",
              help="Folder of .java sources to show beside each graph (repeatable, or os.pathsep-separated).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, metavar="PORT",
              help="Port on 127.0.0.1 to listen on; a free one by default.")
@click.option("--no-open", is_flag=True, help="Print the URL only; do not open the browser.")
@click.option("-q", "--quiet", is_flag=True, help="Nothing on stderr but errors.")
@click.option("--renderer", type=click.Choice(RENDERERS), default="auto", show_default=True,
              help="Graphviz for the pages: system dot, or the pip-installed graphviz-pure.")
@click.option("--render-timeout", type=RENDER_TIMEOUT, default=60, show_default=True, metavar="SECONDS",
              help="Give up on Graphviz after this long.")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
def serve_command(input: str, input_format: str, syntax: str, log: str | None, profile: str | None,
                  jdk: int | None, source_path: tuple[str, ...], port: int, no_open: bool, quiet: bool,
                  renderer: str, render_timeout: float, debug: bool) -> None:
    """Explore a whole log in the browser: every compilation, ranked, each one's report a click away."""
    from asmcfg.serve.opening import Reading
    from asmcfg.serve.run import ServeOptions, serve

    if input == "-":
        raise click.UsageError("serve reads its input again for each page: give a FILE, not standard input")
    reading = Reading(input, None if input_format == "auto" else DialectName(input_format), Syntax(syntax))
    options = ServeOptions(reading, log, profile, jdk, source_path, port, not no_open, quiet, renderer,
                           render_timeout)
    sys.exit(guarded(lambda: serve(options), input, debug))
