"""`asmcfg serve`: the subcommand's flags; the server itself is asmcfg.serve."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from asmcfg.cli.shared import FORMATS, RENDER_TIMEOUT, SETTINGS, SYNTAXES, Grouped
from asmcfg.model import DialectName, Syntax
from asmcfg.render.svg import RENDERERS
from asmcfg.run.guard import guarded

if TYPE_CHECKING:
    from asmcfg.run.diff import DiffOptions

SERVE_EPILOG = """Listens on 127.0.0.1 only and prints two lines on stdout: a URL with a one-time code, that
signs one browser in (through an SSH tunnel too), and the file:// URL of a sign-in page only you can read, that
signs in any browser of this machine and is what the browser is given (requests without the cookie either sets
are refused). The index lists every compilation at once, from the same header index
as --list; loops, traps, checks, calls and heat, and the toplists, fill in while every compilation is analysed
in the background on all cores. A click opens a compilation's report, the page --html writes. With two logs,
OLD NEW, the index is their whole-log diff (`asmcfg diff OLD NEW`: every pair ranked, what changed, then the
methods only one log compiled), ready once every pair is compared; a click opens the pair's side-by-side page,
the one `asmcfg diff --html` writes. Ctrl-C stops the server. Exit codes: 0 ok, 1 input problem, 2 usage,
4 internal error, 130 Ctrl-C, 143 SIGTERM.

\b
Examples:
  # explore a whole run's log in the browser
  asmcfg serve run.log --log run.xml
  # on a fixed port, without opening a browser
  asmcfg serve run.log --port 8800 --no-open
  # what changed between two runs, pair by pair
  asmcfg serve jdk17.log jdk25.log --old-log jdk17.xml --new-log jdk25.xml"""
SERVE_SECTIONS = (
    ("What to read", ("input_format", "syntax")),
    ("Heat and logs", ("log", "profile", "old_log", "new_log", "old_profile", "new_profile", "jdk", "source_path",
                       "classpath")),
    ("Serving", ("port", "no_open", "quiet")),
    ("Drawing", ("renderer", "render_timeout")),
    ("Other", ("debug", "help")),
)
"""The sections of `asmcfg serve --help`, and the options under each."""


class _ServeCommand(Grouped):
    """`asmcfg serve`, its help in sections."""

    sections = SERVE_SECTIONS
    arguments = (("FILE [NEW]", "The JVM's output (any format asmcfg reads; plain, .gz, .xz, .bz2); with NEW, "
                                "FILE is the old run and the index is the two runs' diff."),)


@click.command(cls=_ServeCommand, epilog=SERVE_EPILOG, context_settings=SETTINGS)
@click.argument("input", metavar="FILE")
@click.argument("new", required=False, metavar="[NEW]")
@click.option("--input-format", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Input format; sniffed by default.")
@click.option("--syntax", type=click.Choice(SYNTAXES), default="att", show_default=True,
              help="x86 syntax for instructions decoded from [MachCode] hex.")
@click.option("--log", metavar="LOGXML", help="LogCompilation log of the same run (inlining decisions, traps fired).")
@click.option("--profile", metavar="PERFASM", help="JMH perfasm profile of the same run (heat).")
@click.option("--old-log", metavar="LOGXML", help="With two logs: the old run's LogCompilation log.")
@click.option("--new-log", metavar="LOGXML", help="With two logs: the new run's LogCompilation log.")
@click.option("--old-profile", metavar="PERFASM", help="With two logs: the old run's perfasm profile.")
@click.option("--new-profile", metavar="PERFASM", help="With two logs: the new run's perfasm profile.")
@click.option("--jdk", type=click.IntRange(6, 40), metavar="N", help="JDK whose trap-reason table to use.")
@click.option("--source-path", multiple=True, metavar="DIR",
              help="Folder of .java sources to show beside each graph (repeatable, or os.pathsep-separated).")
@click.option("--classpath", multiple=True, metavar="PATH",
              help="Folders of .class files, jars and a JDK's .jmod files whose bytecode each page shows (repeatable, "
              "or os.pathsep-separated; a record folder's own class path by default).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, metavar="PORT",
              help="Port on 127.0.0.1 to listen on; a free one by default.")
@click.option("--no-open", is_flag=True, help="Print the URL only; do not open the browser.")
@click.option("-q", "--quiet", is_flag=True, help="Nothing on stderr but errors.")
@click.option("--renderer", type=click.Choice(RENDERERS), default="auto", show_default=True,
              help="Graphviz for the pages: system dot, or the pip-installed graphviz-pure.")
@click.option("--render-timeout", type=RENDER_TIMEOUT, default=60, show_default=True, metavar="SECONDS",
              help="Give up on Graphviz after this long.")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
def serve_command(input: str, new: str | None, input_format: str, syntax: str, log: str | None,
                  profile: str | None, jdk: int | None, source_path: tuple[str, ...], classpath: tuple[str, ...],
                  port: int, no_open: bool, quiet: bool, renderer: str, render_timeout: float, debug: bool,
                  **sides: str | None) -> None:
    """Explore a whole log in the browser: every compilation, ranked, each one's report a click away (two logs:
    their whole-log diff, each pair's side-by-side page a click away)."""
    from asmcfg.serve.opening import Reading
    from asmcfg.serve.run import ServeOptions, serve

    if "-" in (input, new):
        raise click.UsageError("serve reads its input again for each page: give a FILE, not standard input")
    if new is not None:
        two = _two_logs(input, new, input_format, syntax, log, profile, jdk, source_path, quiet, renderer,
                        render_timeout, sides)
        from asmcfg.serve.twologs import TwoLogs, serve_two

        sys.exit(guarded(lambda: serve_two(TwoLogs(two, port, not no_open)), input, debug))
    given = [f"--{name.replace('_', '-')}" for name, value in sides.items() if value is not None]
    if given:
        raise click.UsageError(f"{given[0]} is for two logs (asmcfg serve OLD NEW): give --log or --profile")
    reading = Reading(input, None if input_format == "auto" else DialectName(input_format), Syntax(syntax))
    options = ServeOptions(reading, log, profile, jdk, source_path, port, not no_open, quiet, renderer,
                           render_timeout, class_path=classpath)
    sys.exit(guarded(lambda: serve(options), input, debug))


def _two_logs(old: str, new: str, input_format: str, syntax: str, log: str | None, profile: str | None,
              jdk: int | None, source_path: tuple[str, ...], quiet: bool, renderer: str, render_timeout: float,
              sides: dict[str, str | None]) -> DiffOptions:
    """The options of `asmcfg diff OLD NEW` (no selector: the whole-log diff) that `serve OLD NEW` serves."""
    from asmcfg.run.diff import DiffOptions

    if old == new:
        raise click.UsageError("serve OLD NEW compares two logs: give two different files (or one, to explore it)")
    if profile is not None:
        raise click.UsageError("--profile measured one run: give --old-profile and --new-profile")
    return DiffOptions(
        old=old, new=new, old_log=sides["old_log"] or log, new_log=sides["new_log"] or log,
        old_profile=sides["old_profile"], new_profile=sides["new_profile"], jdk=jdk, syntax=Syntax(syntax),
        input_format=None if input_format == "auto" else DialectName(input_format), renderer=renderer,
        render_timeout=render_timeout, quiet=quiet, source_path=source_path,
    )
