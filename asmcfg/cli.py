"""The command line: flags in, one run, errors out as one line and an exit code."""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import click

from asmcfg.dialects import DIALECTS
from asmcfg.errors import AsmcfgError
from asmcfg.render.svg import RENDERERS
from asmcfg.run import app
from asmcfg.run.options import Options
from asmcfg.run.pipeline import Selector
from asmcfg.sources.lines import display_name

FORMATS = ("auto", *DIALECTS)
EPILOG = """Inputs: -XX:+PrintAssembly text with hsdis (JDK 6-25, AT&T or Intel, capstone or binutils),
raw [MachCode] hex printed without hsdis (x86-64, AArch64), JMH -prof perfasm output, and
-XX:+LogCompilation XML; plain, .gz or .xz. Exit codes: 0 ok, 1 input problem, 2 usage, 3 rendering,
4 internal error (a bug: run with --debug and report it), 5 a `asmcfg diff --fail-on` condition holds."""
USAGE_FORMS = """Usage: asmcfg [OPTIONS] [FILE]
       asmcfg diff [OPTIONS] OLD [NEW]    compare two compilations (asmcfg diff --help)
"""


class _WithDiff(click.Command):
    """`asmcfg FILE` as always, and `asmcfg diff OLD NEW` as a subcommand in front of it."""

    def main(  # type: ignore[override]  # one signature for click's two overloads
        self, args: Sequence[str] | None = None, prog_name: str | None = None, **extra: Any
    ) -> Any:
        words = list(sys.argv[1:] if args is None else args)
        if words[:1] == ["diff"]:
            return diff_command.main(words[1:], prog_name=f"{prog_name or 'asmcfg'} diff", **extra)
        return super().main(words, prog_name, **extra)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write(USAGE_FORMS)


SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.command(cls=_WithDiff, epilog=EPILOG, context_settings=SETTINGS)
@click.argument("input", default="-", metavar="[FILE]")
@click.option("--method", "pattern", metavar="PATTERN", help="Glob on Class::method, or a bare method name.")
@click.option("--compile-id", type=int, metavar="N", help="The compilation with this compile id.")
@click.option("--compiler", type=click.Choice(["c1", "c2", "jvmci"]), help="Only this compiler's compilations.")
@click.option("--all", "all_", is_flag=True, help="Every matching compilation (one DOT graph each).")
@click.option("--list", "list_", is_flag=True, help="Print a table of the compilations in the input and exit.")
@click.option("--json", "json_", metavar="FILE|-", help="Write the JSON model (schema 1) to FILE or stdout.")
@click.option("--jsonl", metavar="FILE|-", help="Every (selected) compilation as JSON Lines, on all cores.")
@click.option("--svg", metavar="FILE", help="Render the graph to an SVG file.")
@click.option("--dot", metavar="FILE|-", help="Write DOT to FILE (stdout by default when no other output is asked).")
@click.option("--no-fold", is_flag=True, help="Show every cold out-of-line block instead of folding chains of them.")
@click.option("--jdk", type=click.IntRange(6, 40), metavar="N", help="JDK whose trap-reason table to use.")
@click.option(
    "--syntax",
    type=click.Choice(["att", "intel"]),
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
    type=click.FloatRange(1, 3600),
    default=60,
    show_default=True,
    metavar="SECONDS",
    help="Give up on Graphviz after this long.",
)
@click.option("--strict", is_flag=True, help="Stop at the first line inside a method that is not understood.")
@click.option("--profile", metavar="PERFASM", help="Put a JMH perfasm profile of the same run onto the graph.")
@click.option(
    "--paths",
    type=click.IntRange(1, 50),
    default=3,
    show_default=True,
    metavar="N",
    help="How many measured hot paths to rank (with a profile).",
)
@click.option("-q", "--quiet", is_flag=True, help="No summary on stderr.")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
@click.version_option(package_name="asmcfg")
def main(
    input: str,
    pattern: str | None,
    compile_id: int | None,
    compiler: str | None,
    all_: bool,
    list_: bool,
    json_: str | None,
    jsonl: str | None,
    svg: str | None,
    dot: str | None,
    no_fold: bool,
    jdk: int | None,
    syntax: str,
    input_format: str,
    renderer: str,
    render_timeout: float,
    strict: bool,
    profile: str | None,
    paths: int,
    quiet: bool,
    debug: bool,
) -> None:
    """Build the control-flow graph of a HotSpot JIT compilation and write it as DOT on stdout,
    with a hot-path summary on stderr."""
    if all_ and svg:
        raise click.UsageError("--svg renders one method: choose it with --method or --compile-id instead of --all")
    options = Options(
        input=input,
        selector=Selector(pattern, compile_id, compiler),
        all=all_,
        list=list_,
        json=json_,
        jsonl=jsonl,
        svg=svg,
        dot=dot,
        fold=not no_fold,
        jdk=jdk,
        syntax=syntax,
        input_format=None if input_format == "auto" else input_format,
        renderer=renderer,
        render_timeout=render_timeout,
        strict=strict,
        quiet=quiet,
        profile=profile,
        paths=paths,
    )
    sys.exit(guarded(lambda: app.run(options), input, debug))


def guarded(run: Callable[[], int], source: str, debug: bool) -> int:
    """Run and return its status; errors become one line on stderr and their exit code."""
    try:
        return run()
    except AsmcfgError as error:
        if debug:
            traceback.print_exc()
        click.echo(f"asmcfg: {error}", err=True)
        return error.exit_code
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        click.echo("asmcfg: interrupted", err=True)
        return 130
    except Exception as exc:  # the final guard: one line, never a traceback without --debug
        if debug:
            traceback.print_exc()
        code, message = unexpected(exc, source)
        click.echo(f"asmcfg: {message}", err=True)
        return code


INTERNAL_ERROR = 4
"""Exit status for an exception asmcfg did not expect: a bug to report."""
_MAX_DETAIL = 200


def unexpected(exc: Exception, source: str) -> tuple[int, str]:
    """Exit status and one-line message for an exception that is not an AsmcfgError."""
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


DIFF_EPILOG = """Forms: `asmcfg diff OLD NEW` (each side with its own --old-…/--new-… selector, or the plain selectors
when both sides share them) and `asmcfg diff run.log --compile-id 8 --compile-id 9` (one input, two
compilations). Loops, traps, checks, calls and polls are matched by debug info (method@bci chains, bytecodes),
never by address. Writes tables on stderr; JSON, DOT and SVG where asked. --fail-on conditions: new-trap,
check-in-loop, lost-vector, not-inlined, grew:PCT (repeatable or comma-separated). Exit codes: 0 ok, 1 input
problem, 2 usage, 3 rendering, 4 internal error, 5 a --fail-on condition holds (each named on stderr)."""


def _side_options(side: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def add(command: Callable[..., Any]) -> Callable[..., Any]:
        command = click.option(f"--{side}-profile", metavar="PERFASM", help=f"perfasm profile of the {side} run.")(
            command
        )
        command = click.option(f"--{side}-compiler", type=click.Choice(["c1", "c2", "jvmci"]),
                               help=f"Compiler of the {side} compilation.")(command)
        command = click.option(f"--{side}-compile-id", type=int, metavar="N",
                               help=f"Compile id of the {side} compilation.")(command)
        return click.option(f"--{side}-method", metavar="PATTERN", help=f"Method of the {side} compilation.")(command)

    return add


@click.command(epilog=DIFF_EPILOG, context_settings=SETTINGS)
@click.argument("old", metavar="OLD")
@click.argument("new", required=False, metavar="[NEW]")
@click.option("--method", "pattern", metavar="PATTERN", help="Method of both compilations.")
@click.option("--compile-id", "compile_ids", type=int, multiple=True, metavar="N",
              help="Compile id of both; given twice: the old one, then the new one.")
@click.option("--compiler", type=click.Choice(["c1", "c2", "jvmci"]), help="Compiler of both compilations.")
@_side_options("old")
@_side_options("new")
@click.option("--json", "json_", metavar="FILE|-", help="Write the diff as JSON (diff schema 1).")
@click.option("--dot", metavar="FILE|-", help="Write both graphs side by side as DOT.")
@click.option("--svg", metavar="FILE", help="Render both graphs side by side to SVG.")
@click.option("--fail-on", "fail_on", multiple=True, metavar="CONDITION",
              help="Exit 5 when the condition holds: new-trap, check-in-loop, lost-vector, not-inlined, grew:PCT.")
@click.option("--no-fold", is_flag=True, help="Show every cold out-of-line block in the graphs.")
@click.option("--jdk", type=click.IntRange(6, 40), metavar="N", help="JDK whose trap-reason table to use.")
@click.option("--syntax", type=click.Choice(["att", "intel"]), default="att", show_default=True,
              help="x86 syntax for instructions decoded from [MachCode] hex.")
@click.option("--input-format", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Input format of both inputs; sniffed by default.")
@click.option("--renderer", type=click.Choice(RENDERERS), default="auto", show_default=True,
              help="Graphviz for --svg.")
@click.option("--render-timeout", type=click.FloatRange(1, 3600), default=60, show_default=True,
              metavar="SECONDS", help="Give up on Graphviz after this long.")
@click.option("-q", "--quiet", is_flag=True, help="No tables on stderr (failed conditions are still named).")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
def diff_command(old: str, new: str | None, pattern: str | None, compile_ids: tuple[int, ...],
                 compiler: str | None, json_: str | None, dot: str | None, svg: str | None,
                 fail_on: tuple[str, ...], no_fold: bool, jdk: int | None, syntax: str, input_format: str,
                 renderer: str, render_timeout: float, quiet: bool, debug: bool, **sides: Any) -> None:
    """Compare two compilations: loops, checks, traps, calls and polls that changed."""
    from asmcfg.diff import gate
    from asmcfg.run.diff import DiffOptions, run

    try:
        conditions = gate.parse(fail_on)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--fail-on") from None
    selectors = _diff_selectors(new is None, pattern, compile_ids, compiler, sides)
    options = DiffOptions(
        old=old, new=new or old, old_selector=selectors[0], new_selector=selectors[1], json=json_, dot=dot,
        svg=svg, fail_on=conditions, old_profile=sides["old_profile"], new_profile=sides["new_profile"], jdk=jdk,
        syntax=syntax, input_format=None if input_format == "auto" else input_format, fold=not no_fold,
        renderer=renderer, render_timeout=render_timeout, quiet=quiet,
    )
    sys.exit(guarded(lambda: run(options), old, debug))


def _diff_selectors(
    one_input: bool, pattern: str | None, ids: tuple[int, ...], compiler: str | None, sides: dict[str, Any]
) -> tuple[Selector, Selector]:
    """The old and new selectors from the shared and the per-side flags."""
    if len(ids) > 2:
        raise click.UsageError("--compile-id is given once (both sides) or twice (old, then new)")
    shared_ids = ids * 2 if len(ids) == 1 else ids or (None, None)
    selectors = []
    for n, side in enumerate(("old", "new")):
        selectors.append(Selector(
            sides[f"{side}_method"] or pattern,
            sides[f"{side}_compile_id"] if sides[f"{side}_compile_id"] is not None else shared_ids[n],
            sides[f"{side}_compiler"] or compiler,
        ))
    if one_input and selectors[0] == selectors[1]:
        raise click.UsageError(
            "one input needs two compilations: --compile-id OLD --compile-id NEW, or --old-…/--new-… selectors"
        )
    return selectors[0], selectors[1]
