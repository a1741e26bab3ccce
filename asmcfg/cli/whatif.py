"""`asmcfg whatif`: the subcommand's flags; the replays are asmcfg.whatif."""

from __future__ import annotations

import sys

import click

from asmcfg.cli.shared import SETTINGS, Grouped
from asmcfg.run.guard import guarded

WHATIF_EPILOG = """Replays one compilation of a record folder (the hottest C2 one by default) twice with HotSpot's
-XX:+ReplayCompiles, in the recorded JDK (20 or later): once as recorded (the baseline) and once with
JVM_OPTIONS, each printing its code into a LogCompilation log in a temporary folder that is removed afterwards;
then reports what changed as `asmcfg diff` does, and whether the baseline matches the recorded compilation.
JVM_OPTIONS are -XX:+Name, -XX:-Name or -XX:Name=value, passed as they are (never through a shell); options that
read or write files or run commands are refused. docs/whatif.md has a worked example.

\b
Examples:
  # would the hot loop still vectorize without SuperWord?
  asmcfg whatif rec -- -XX:-UseSuperWord
  # one compilation, a callee kept out, the diff as JSON
  asmcfg whatif rec --compile-id 42 --dontinline 'Point::dist' --json -
  # which C2 feature makes the hottest compilation what it is
  asmcfg whatif rec --sweep
  # a replay file made by hand, replayed by a JDK 25
  asmcfg whatif replay_pid1_compid42.log --classpath classes \\
      --java /opt/jdk-25/bin/java -- -XX:LoopUnrollLimit=1"""
WHATIF_SECTIONS = (
    ("Which compilation", ("compile_id", "pattern", "pid")),
    ("What if", ("inline", "dontinline", "disable_intrinsic", "sweep")),
    ("How to replay", ("java", "classpath", "timeout")),
    ("What to write", ("json_", "html", "quiet")),
    ("Other", ("debug", "help")),
)


class _WhatifCommand(Grouped):
    """`asmcfg whatif`, its help in sections."""

    sections = WHATIF_SECTIONS
    arguments = (("INPUT", "A record folder (asmcfg record), or a replay file (replay_pid<PID>_compid<N>.log)."),
                 ("JVM_OPTIONS", "After `--`: the options of the what-if replay (-XX:-UseSuperWord ...)."))


@click.command(cls=_WhatifCommand, epilog=WHATIF_EPILOG, context_settings=SETTINGS)
@click.argument("input_", metavar="INPUT")
@click.argument("jvm_options", nargs=-1, metavar="[-- JVM_OPTIONS...]")
@click.option("--compile-id", type=int, metavar="N", help="The compilation with this compile id.")
@click.option("--method", "pattern", metavar="PATTERN", help="The hottest compilation of this method (Class::method).")
@click.option("--pid", type=int, metavar="PID", help="Of a record folder's JVMs, this one.")
@click.option("--inline", multiple=True, metavar="CLASS::METHOD",
              help="Force this callee inline in the what-if (-XX:CompileCommand=inline,...).")
@click.option("--dontinline", multiple=True, metavar="CLASS::METHOD",
              help="Keep this callee out in the what-if (-XX:CompileCommand=dontinline,...).")
@click.option("--disable-intrinsic", multiple=True, metavar="NAME",
              help="Compile without this intrinsic (-XX:DisableIntrinsic=NAME, e.g. _arraycopy).")
@click.option("--sweep", is_flag=True,
              help="Replay once per switch of a built-in list (-XX:-UseSuperWord, -XX:LoopUnrollLimit=1, ...: those "
                   "this JVM accepts), on every core, and rank them by what they change.")
@click.option("--java", metavar="JAVA", help="The java to replay with (default: the installed JDK of the recording).")
@click.option("--classpath", metavar="PATH", help="The class path (default: the recorded one).")
@click.option("--timeout", type=click.FloatRange(1, 3600), default=60, show_default=True, metavar="SECONDS",
              help="Give up on a replay after this long.")
@click.option("--json", "json_", metavar="FILE|-", help="Write the diff as JSON (diff schema 3, with a whatif object).")
@click.option("--html", metavar="FILE|-", help="Write the side-by-side page of baseline and what-if.")
@click.option("-q", "--quiet", is_flag=True, help="No tables on stderr (the fidelity line is still said).")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
def whatif_command(input_: str, jvm_options: tuple[str, ...], compile_id: int | None, pattern: str | None,
                   pid: int | None, inline: tuple[str, ...], dontinline: tuple[str, ...],
                   disable_intrinsic: tuple[str, ...], sweep: bool, java: str | None, classpath: str | None,
                   timeout: float, json_: str | None, html: str | None, quiet: bool, debug: bool) -> None:
    """Replay one recorded compilation with changed JVM options or inlining, and show what changed."""
    from asmcfg.errors import InputError
    from asmcfg.run.pipeline import Selector
    from asmcfg.whatif import options as checks, run
    from asmcfg.whatif.mode import WhatifOptions

    if json_ == "-" and html == "-":
        raise click.UsageError("--json and --html cannot both write to stdout")
    try:
        asked = tuple(checks.check(option) for option in jvm_options)
        asked += tuple(checks.compile_command("inline", m) for m in inline)
        asked += tuple(checks.compile_command("dontinline", m) for m in dontinline)
        asked += tuple(checks.compile_command("DisableIntrinsic", n) for n in disable_intrinsic)
    except InputError as error:
        raise click.BadParameter(error.message, param_hint="JVM_OPTIONS") from None
    if sweep and (asked or html):
        raise click.UsageError("--sweep replays its own list of switches: give no JVM options, --inline, "
                               "--dontinline, --disable-intrinsic or --html with it")
    if not asked and not sweep:
        raise click.UsageError("nothing to change: give JVM options after --, or --inline, --dontinline, "
                               "--disable-intrinsic")
    options = WhatifOptions(input_, Selector(pattern, compile_id), pid, asked, java, classpath, timeout, json_, html,
                            quiet, sweep)
    sys.exit(guarded(lambda: run(options), input_, debug))
