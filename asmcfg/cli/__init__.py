"""The command line: flags in, one run, errors out as one line and an exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import click
from click.core import ParameterSource

from asmcfg import __version__
from asmcfg.cli.shared import CHOSEN_COMPILERS, FORMATS, RENDER_TIMEOUT, SETTINGS, SYNTAXES, Grouped
from asmcfg.model import Compiler, DialectName, Syntax
from asmcfg.render.svg import RENDERERS
from asmcfg.run.guard import INTERNAL_ERROR as INTERNAL_ERROR, guarded

EPILOG = """Inputs: -XX:+PrintAssembly text with hsdis (JDK 6-25, AT&T or Intel, capstone or binutils),
raw [MachCode] hex printed without hsdis (x86-64, AArch64), JMH -prof perfasm output, and
-XX:+LogCompilation XML; plain, .gz, .xz or .bz2. Exit codes: 0 ok, 1 input problem, 2 usage,
3 rendering, 4 internal error (a bug: run with --debug and report it), 5 an `asmcfg diff --fail-on`
condition holds. `asmcfg help diff`, `asmcfg help serve`, `asmcfg help record` and `asmcfg help whatif`
show their options.

\b
Examples:
  # the compilations in a log of one run (-XX:+PrintAssembly output)
  asmcfg run.log --list
  # one method's report page, its Java source beside the graph
  asmcfg run.log --method Hot.hotMethod --html hot.html --source-path src
  # the hottest compilation JMH's perfasm measured, drawn with its heat
  asmcfg perfasm.txt --svg hot.svg"""
SECTIONS = (
    ("What to read", ("input_format", "syntax", "strict")),
    ("Which compilation", ("pattern", "compile_id", "compiler", "all_", "top", "list_")),
    ("The run over time", ("timeline", "bucket", "from_ms", "to_ms")),
    ("What to write", ("dot", "svg", "html_", "source_path", "classpath", "json_", "jsonl", "facts", "findings",
                       "quiet")),
    ("Heat and logs", ("profile", "pid", "skid", "log", "paths", "jdk")),
    ("Drawing", ("no_fold", "renderer", "render_timeout")),
    ("Other", ("debug", "version", "help")),
)
"""The sections of `asmcfg --help`, and the options under each."""
FILE_HELP = ("FILE", "The JVM's output: PrintAssembly text, [MachCode] hex, perfasm output or a LogCompilation "
                     "log (plain, .gz, .xz, .bz2), or a folder `asmcfg record` wrote; `-` or none: standard input.")
USAGE_FORMS = """Usage: {name} [OPTIONS] [FILE]
       asmcfg diff [OPTIONS] OLD [NEW]    compare two compilations
       asmcfg serve [OPTIONS] FILE [NEW]  explore a log, or two logs' diff
       asmcfg record [OPTIONS] -- COMMAND  record a Java program's code
       asmcfg whatif [OPTIONS] DIR -- OPTS  replay a compilation changed
"""


HELP_TOPICS = ("diff", "serve", "record", "whatif")
"""What `asmcfg help TOPIC` explains besides the main command."""


class _WithDiff(Grouped):
    """`asmcfg FILE` as always, `asmcfg diff OLD NEW` as a subcommand in front of it, and `asmcfg help [diff]`."""

    sections = SECTIONS
    arguments = (FILE_HELP,)

    def main(  # type: ignore[override]  # one signature for click's two overloads
        self, args: Sequence[str] | None = None, prog_name: str | None = None, **extra: Any
    ) -> Any:
        words = list(sys.argv[1:] if args is None else args)
        if words[:1] == ["help"]:  # `asmcfg help`, `asmcfg help diff`, `asmcfg help serve`, as git answers them
            if words[1:] and words[1] not in HELP_TOPICS:
                from asmcfg.terminal import visible

                sys.stderr.write(visible(f"asmcfg: no help on {words[1]!r}: asmcfg help, or asmcfg help "
                                         f"{'|'.join(HELP_TOPICS)}") + "\n")
                sys.exit(2)
            words = [words[1], "--help"] if words[1:] else ["--help"]
        if words[:1] == ["diff"]:
            from asmcfg.cli.diff import diff_command

            return diff_command.main(words[1:], prog_name=f"{prog_name or 'asmcfg'} diff", **extra)
        if words[:1] == ["serve"]:
            from asmcfg.cli.serve import serve_command

            return serve_command.main(words[1:], prog_name=f"{prog_name or 'asmcfg'} serve", **extra)
        if words[:1] == ["record"]:
            from asmcfg.cli.record import record_command

            return record_command.main(words[1:], prog_name=f"{prog_name or 'asmcfg'} record", **extra)
        if words[:1] == ["whatif"]:
            from asmcfg.cli.whatif import whatif_command

            return whatif_command.main(words[1:], prog_name=f"{prog_name or 'asmcfg'} whatif", **extra)
        return super().main(words, prog_name, **extra)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write(USAGE_FORMS.format(name=ctx.command_path))


@click.command(cls=_WithDiff, epilog=EPILOG, context_settings=SETTINGS)
@click.argument("input", default="-", metavar="[FILE]")
@click.option("--method", "pattern", metavar="PATTERN",
              help="Glob on Class::method (or Class.method), or a bare method name.")
@click.option("--compile-id", type=int, metavar="N", help="The compilation with this compile id.")
@click.option("--compiler", type=click.Choice(CHOSEN_COMPILERS), help="Only this compiler's compilations.")
@click.option("--all", "all_", is_flag=True, help="Every matching compilation (one DOT graph each).")
@click.option("--top", type=click.IntRange(1), metavar="N",
              help="With --all --html DIR: only the N hottest compilations (measured heat), else the N largest.")
@click.option("--list", "list_", is_flag=True, help="Print a table of the compilations in the input and exit.")
@click.option("--json", "json_", metavar="FILE|-",
              help="Write the JSON model (schema 1) to FILE or stdout; with --list, the table's rows.")
@click.option("--jsonl", metavar="FILE|-", help="Every (selected) compilation as JSON Lines, on all cores.")
@click.option("--facts", is_flag=True, help="With --jsonl: each compilation's facts only, no instruction lists.")
@click.option("--findings", is_flag=True,
              help="What costs the most and why: the selected compilations' findings ranked by measured heat (else "
                   "by a static estimate), as text on stdout (with --json FILE, as JSON there too; --json -: the JSON "
                   "alone; with --jsonl, in each record).")
@click.option("--svg", metavar="FILE|-", help="Render the graph to SVG in FILE or on stdout.")
@click.option("--html", "html_", metavar="FILE|-|DIR",
              help="Write the interactive report: one offline HTML page (with --all and a folder: an index and a page "
                   "per compilation).")
@click.option(
    "--source-path",
    multiple=True,
    metavar="DIR",
    help="Folder of .java sources to show beside the graph in --html (repeatable, or os.pathsep-separated).",
)
@click.option("--classpath", multiple=True, metavar="PATH",
              help="Folders of .class files, jars and a JDK's .jmod files whose bytecode --html shows beside the graph "
                   "and --findings cites (repeatable, or os.pathsep-separated; a record folder's own class path by "
                   "default).")
@click.option("--dot", metavar="FILE|-", help="Write DOT to FILE (stdout by default when no other output is asked).")
@click.option("--no-fold", is_flag=True, help="Show every cold out-of-line block instead of folding chains of them.")
@click.option("--jdk", type=click.IntRange(6, 40), metavar="N", help="JDK whose trap-reason table to use.")
@click.option(
    "--syntax",
    type=click.Choice(SYNTAXES),
    default="att",
    show_default=True,
    help="x86 syntax for instructions decoded from [MachCode] hex.",
)
@click.option(
    "--input-format",
    type=click.Choice(FORMATS),
    default="auto",
    show_default=True,
    help="Input format; sniffed by default.",
)
@click.option(
    "--renderer",
    type=click.Choice(RENDERERS),
    default="auto",
    show_default=True,
    help="Graphviz for --svg: system dot, or the pip-installed graphviz-pure.",
)
@click.option(
    "--render-timeout",
    type=RENDER_TIMEOUT,
    default=60,
    show_default=True,
    metavar="SECONDS",
    help="Give up on Graphviz after this long.",
)
@click.option("--strict", is_flag=True, help="Stop at the first line inside a method that is not understood.")
@click.option("--profile", metavar="PROFILE",
              help="Put measured heat of the same run onto the graph: JMH perfasm output, or `perf script` text "
                   "(with the run's LogCompilation log as FILE or --log).")
@click.option("--pid", type=click.IntRange(0), metavar="PID",
              help="Of a record folder's JVMs, read this one (default: the most samples in compiled code).")
@click.option("--skid", type=click.Choice(("sampled", "previous")), default="sampled", show_default=True,
              help="Credit each sample to the instruction it names, or to the one before it in its block.")
@click.option("--log", "log", metavar="LOGXML",
              help="Read inlining decisions and trap records from a LogCompilation log of the same run.")
@click.option(
    "--paths",
    type=click.IntRange(1, 50),
    default=3,
    show_default=True,
    metavar="N",
    help="How many measured hot paths to rank (with a profile).",
)
@click.option("--timeline", is_flag=True,
              help="Print the run over time on stderr and exit (--json writes it, --html draws it as a page): "
                   "samples per bucket, compilations, deoptimizations, the warm-up point; with --method, that "
                   "method's story.")
@click.option("--bucket", type=click.IntRange(1), metavar="MS", help="With --timeline: bucket length in ms.")
@click.option("--from", "from_ms", type=click.FloatRange(0), metavar="MS",
              help="Count only the samples from MS ms after the JVM's start (a record folder).")
@click.option("--to", "to_ms", type=click.FloatRange(0), metavar="MS",
              help="Count only the samples before MS ms after the JVM's start (a record folder).")
@click.option("-q", "--quiet", is_flag=True, help="No summary on stderr.")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
@click.version_option(__version__)
def main(
    input: str,
    pattern: str | None,
    compile_id: int | None,
    compiler: str | None,
    all_: bool,
    top: int | None,
    list_: bool,
    json_: str | None,
    jsonl: str | None,
    facts: bool,
    findings: bool,
    svg: str | None,
    html_: str | None,
    source_path: tuple[str, ...],
    classpath: tuple[str, ...],
    dot: str | None,
    no_fold: bool,
    jdk: int | None,
    syntax: str,
    input_format: str,
    renderer: str,
    render_timeout: float,
    strict: bool,
    profile: str | None,
    pid: int | None,
    skid: str,
    log: str | None,
    paths: int,
    timeline: bool,
    bucket: int | None,
    from_ms: float | None,
    to_ms: float | None,
    quiet: bool,
    debug: bool,
) -> None:
    """Build the control-flow graph of a HotSpot JIT compilation and write it as DOT on stdout,
    with a hot-path summary on stderr."""
    if all_ and svg:
        raise click.UsageError("--svg renders one method: choose it with --method or --compile-id instead of --all")
    if facts and jsonl is None:
        raise click.UsageError("--facts shapes the --jsonl records: give --jsonl FILE too")
    if findings and (svg or html_ or dot or list_ or timeline):
        raise click.UsageError("--findings writes the ranked findings (on stdout, or --json FILE): drop "
                               + ("--svg" if svg else "--html" if html_ else "--dot" if dot else
                                  "--list" if list_ else "--timeline"))
    if pid is not None and not os.path.isdir(input):
        raise click.UsageError("--pid chooses among the JVMs of a folder `asmcfg record` wrote: give the folder")
    from asmcfg.run import (  # loaded once the flags are read: --help and usage errors need none of it
        app,
        flags,
        outputs,
    )
    from asmcfg.run.options import Options
    from asmcfg.run.pipeline import Selector

    options = Options(
        input=input,
        selector=Selector(pattern, compile_id, Compiler(compiler) if compiler else None),
        all=all_,
        list=list_,
        json=json_,
        jsonl=jsonl,
        facts=facts,
        findings=findings,
        svg=svg,
        html=html_,
        source_path=source_path,
        class_path=classpath,
        dot=dot,
        fold=not no_fold,
        jdk=jdk,
        syntax=Syntax(syntax),
        input_format=None if input_format == "auto" else DialectName(input_format),
        renderer=renderer,
        render_timeout=render_timeout,
        strict=strict,
        quiet=quiet,
        profile=profile,
        log=log,
        paths=paths,
        pid=pid,
        skid=skid == "previous",
        top=top,
        timeline=timeline,
        bucket=bucket,
        window=(from_ms, to_ms),
    )
    context = click.get_current_context()
    typed = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    given = [name for name in context.params if context.get_parameter_source(name) in typed]
    # before anything is read: a flag the mode ignores, an output over an input, two on stdout…
    problem = flags.unused(options, given) or outputs.run_problem(options)
    if problem is not None:
        raise click.UsageError(problem)
    if from_ms is not None and to_ms is not None and to_ms <= from_ms:
        raise click.UsageError(f"--to {to_ms:g} must come after --from {from_ms:g}")
    if flags.mode(options) is flags.Mode.TIMELINE:
        from asmcfg.run import timeline as timeline_run

        sys.exit(guarded(lambda: timeline_run.run(options), input, debug))
    if flags.mode(options) is flags.Mode.EXPORT:
        from asmcfg.serve import export

        sys.exit(guarded(lambda: export.run(options), input, debug))
    sys.exit(guarded(lambda: app.run(options), input, debug))
