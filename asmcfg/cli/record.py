"""`asmcfg record`: the subcommand's flags; the recording itself is asmcfg.record."""

from __future__ import annotations

import sys

import click

from asmcfg.cli.shared import SETTINGS, Grouped
from asmcfg.run.guard import guarded

RECORD_EPILOG = """Runs COMMAND with the JVM flags that write each JVM's compilations, their code printed as
[MachCode] hex, into DIR/jvmpid<PID>.xml: through JAVA_TOOL_OPTIONS (every JVM it starts gets them: mvn,
gradle, JMH forks, scripts, JVMs a Java program starts; each says "Picked up JAVA_TOOL_OPTIONS" on stderr), and
on the command line too when COMMAND is `java`. With perf, under `perf record` too: DIR/perf-script.txt holds
the samples. COMMAND's stdout stays its own, Ctrl-C and SIGTERM reach it, and its exit status is asmcfg's (1 when
the folder holds no printed code, 127 when COMMAND is not found). docs/record.md describes the folder.

\b
Examples:
  # a Java program, every C2 compilation printed, with perf's heat
  asmcfg record -o rec -- java -cp classes Main
  # a Maven test run: the forked test JVMs get the flags too
  asmcfg record --method 'com.acme.Parser::*' -- mvn -q test"""
RECORD_SECTIONS = (
    ("Where", ("output",)),
    ("What to print", ("pattern", "all_code", "replay")),
    ("Heat", ("perf", "event", "frequency")),
    ("Other", ("debug", "help")),
)
"""The sections of `asmcfg record --help`, and the options under each."""
DEFAULT_FREQUENCY = 999
"""Samples per second: about 1 ms apart, enough for the hot loops of a run of seconds, small data for long runs
(a busy thread writes ~100 bytes of perf script per sample), and not a multiple of the kernel's timer tick or of
periodic JVM work, so sampling does not run in lock-step with it."""
DEFAULT_EVENT = "cpu-clock"
"""A software timer that every kernel has: `cycles` needs a PMU, which VMs often lack (perf then silently records
cpu-clock anyway); a non-root user gets `cpu-clock:u`."""


class _RecordCommand(Grouped):
    """`asmcfg record`, its help in sections."""

    sections = RECORD_SECTIONS
    arguments = (("COMMAND", "The program to run and its arguments, after `--`."),)


@click.command(cls=_RecordCommand, epilog=RECORD_EPILOG,
               context_settings={**SETTINGS, "allow_interspersed_args": False})
@click.argument("command", nargs=-1, required=True, metavar="-- COMMAND [ARGS...]")
@click.option("-o", "--output", metavar="DIR",
              help="The record folder to create (or an empty one); default: asmcfg-record-YYYYmmdd-HHMMSS here.")
@click.option("--method", "pattern", metavar="PATTERN",
              help="Print only this method's compilations (-XX:CompileCommand=print,PATTERN: Class::method, globs).")
@click.option("--all-code", is_flag=True, help="Print every compilation, C1's too (-XX:+PrintAssembly).")
@click.option("--replay", metavar="PATTERN|none", default="*.*",
              help="Keep the replay data of these methods' printed compilations for `asmcfg whatif` (Class::method "
                   "globs; default: every one; none: no replay data).")
@click.option("--perf/--no-perf", default=None,
              help="Record samples with Linux perf (default: when perf is on PATH and may record).")
@click.option("--event", default=DEFAULT_EVENT, show_default=True, metavar="EVENT",
              help="perf's event (cycles needs a PMU, which VMs often lack).")
@click.option("--frequency", type=click.IntRange(1, 100_000), default=DEFAULT_FREQUENCY, show_default=True,
              metavar="HZ", help="perf's samples per second.")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
def record_command(command: tuple[str, ...], output: str | None, pattern: str | None, all_code: bool,
                   replay: str, perf: bool | None, event: str, frequency: int, debug: bool) -> None:
    """Run a Java program and record its JIT-compiled code (and where it spent its time) into a folder."""
    from asmcfg.model.words import Printing
    from asmcfg.record.capture import Asked
    from asmcfg.record.session import RecordOptions, record

    if pattern is not None and all_code:
        raise click.UsageError("--method prints one pattern, --all-code everything: give one of them")
    if pattern is not None and not pattern.strip():
        raise click.UsageError("--method needs a pattern such as Class::method")
    from asmcfg.record.capture import REPLAY_PATTERN

    if replay != "none" and not REPLAY_PATTERN.fullmatch(replay):
        raise click.BadParameter("a pattern such as Class::method (letters, digits, _ $ * / . : < >), or none",
                                 param_hint="--replay")
    replayed = None if replay == "none" else replay
    printing = Printing.METHOD if pattern else Printing.ALL if all_code else Printing.C2
    asked = Asked(printing, pattern, replayed)
    options = RecordOptions(list(command), output, asked, perf, event, frequency)
    sys.exit(guarded(lambda: record(options), command[0], debug))
