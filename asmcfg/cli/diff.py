"""`asmcfg diff`: the subcommand's flags; the comparison itself is asmcfg.run.diff."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from asmcfg.cli.shared import CHOSEN_COMPILERS, FORMATS, RENDER_TIMEOUT, SETTINGS, SYNTAXES, Grouped
from asmcfg.model import Compiler, DialectName, Syntax
from asmcfg.render.svg import RENDERERS
from asmcfg.run.guard import guarded
from asmcfg.run.pipeline import Selector

DIFF_EPILOG = """Forms: `asmcfg diff OLD NEW` (each side with its own --old-…/--new-… selector, or the plain selectors
when both sides share them), `asmcfg diff run.log --compile-id 8 --compile-id 9` (one input, two
compilations) and, with no selector, `asmcfg diff OLD NEW` of two whole logs: every method both compiled
(paired by method, OSR bci and compiler), ranked by heat when measured, else by size, then the methods only
one log compiled; --json lists every pair, --html DIR writes an index and a page per pair. Loops, traps,
checks, calls and polls are matched by debug info (method@bci chains, bytecodes), never by address.
Writes tables on stderr; JSON, DOT, SVG and HTML where asked. --fail-on conditions: new-trap, check-in-loop,
lost-vector, not-inlined, grew:PCT (repeatable or comma-separated). Exit codes: 0 ok, 1 input problem, 2 usage,
3 rendering, 4 internal error, 5 a --fail-on condition holds (each named on stderr).

\b
Examples:
  # one method in two runs: what changed, on stderr
  asmcfg diff before.log after.log --method Hot.hotMethod
  # two compilations in one run (say C1's and C2's), as one page
  asmcfg diff run.log --compile-id 8 --compile-id 9 --html diff.html
  # a CI gate: exit 5 when a trap appears or the code grows by more than 10%
  asmcfg diff old.log new.log --method Hot.run --fail-on new-trap,grew:10"""
SIDES = tuple(f"{side}_{what}" for side in ("old", "new") for what in ("method", "compile_id", "compiler", "profile",
                                                                    "log"))
DIFF_SECTIONS = (
    ("The two sides", ("pattern", "compile_ids", "compiler", "log", *SIDES, "jdk", "syntax", "input_format")),
    ("What to write", ("json_", "dot", "svg", "html", "source_path", "quiet")),
    ("The gate", ("fail_on",)),
    ("Drawing", ("no_fold", "renderer", "render_timeout")),
    ("Other", ("debug", "help")),
)
"""The sections of `asmcfg diff --help`, and the options under each."""


class _DiffCommand(Grouped):
    """`asmcfg diff`, its help in sections."""

    sections = DIFF_SECTIONS
    arguments = (("OLD [NEW]", "The two inputs (any format asmcfg reads); one input when two compilations of it "
                               "are compared."),)


def _side_options(side: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def add(command: Callable[..., Any]) -> Callable[..., Any]:
        command = click.option(f"--{side}-log", metavar="LOGXML",
                               help=f"LogCompilation log of the {side} run (inlining decisions, trap records).")(
            command
        )
        command = click.option(f"--{side}-profile", metavar="PERFASM", help=f"perfasm profile of the {side} run.")(
            command
        )
        command = click.option(f"--{side}-compiler", type=click.Choice(CHOSEN_COMPILERS),
                               help=f"Compiler of the {side} compilation.")(command)
        command = click.option(f"--{side}-compile-id", type=int, metavar="N",
                               help=f"Compile id of the {side} compilation.")(command)
        return click.option(f"--{side}-method", metavar="PATTERN", help=f"Method of the {side} compilation.")(command)

    return add


@click.command(cls=_DiffCommand, epilog=DIFF_EPILOG, context_settings=SETTINGS)
@click.argument("old", metavar="OLD")
@click.argument("new", required=False, metavar="[NEW]")
@click.option("--method", "pattern", metavar="PATTERN", help="Method of both compilations.")
@click.option("--compile-id", "compile_ids", type=int, multiple=True, metavar="N",
              help="Compile id of both; given twice: the old one, then the new one.")
@click.option("--compiler", type=click.Choice(CHOSEN_COMPILERS), help="Compiler of both compilations.")
@click.option("--log", metavar="LOGXML", help="LogCompilation log of the run both compilations come from.")
@_side_options("old")
@_side_options("new")
@click.option("--json", "json_", metavar="FILE|-", help="Write the diff as JSON (diff schema 3).")
@click.option("--dot", metavar="FILE|-", help="Write both graphs side by side as DOT.")
@click.option("--svg", metavar="FILE|-", help="Render both graphs side by side to SVG (FILE or stdout).")
@click.option("--html", "html", metavar="FILE|-|DIR",
              help="Write both compilations' interactive pages side by side, matched items linked, to one file "
                   "(two whole logs: a folder, its index.html linking a page per pair).")
@click.option("--source-path", multiple=True, metavar="DIR",
              help="Folder of .java sources to show beside each graph in --html (repeatable, or os.pathsep-separated).")
@click.option("--fail-on", "fail_on", multiple=True, metavar="CONDITION",
              help="Exit 5 when the condition holds: new-trap, check-in-loop, lost-vector, not-inlined, grew:PCT.")
@click.option("--no-fold", is_flag=True, help="Show every cold out-of-line block in the graphs.")
@click.option("--jdk", type=click.IntRange(6, 40), metavar="N", help="JDK whose trap-reason table to use.")
@click.option("--syntax", type=click.Choice(SYNTAXES), default="att", show_default=True,
              help="x86 syntax for instructions decoded from [MachCode] hex.")
@click.option("--input-format", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Input format of both inputs; sniffed by default.")
@click.option("--renderer", type=click.Choice(RENDERERS), default="auto", show_default=True,
              help="Graphviz for --svg.")
@click.option("--render-timeout", type=RENDER_TIMEOUT, default=60, show_default=True,
              metavar="SECONDS", help="Give up on Graphviz after this long.")
@click.option("-q", "--quiet", is_flag=True, help="No tables on stderr (failed conditions are still named).")
@click.option("--debug", is_flag=True, help="Show a traceback on errors.")
def diff_command(old: str, new: str | None, pattern: str | None, compile_ids: tuple[int, ...],
                 compiler: str | None, log: str | None, json_: str | None, dot: str | None, svg: str | None,
                 html: str | None, source_path: tuple[str, ...],
                 fail_on: tuple[str, ...], no_fold: bool, jdk: int | None, syntax: str, input_format: str,
                 renderer: str, render_timeout: float, quiet: bool, debug: bool, **sides: Any) -> None:
    """Compare two compilations: loops, checks, traps, calls and polls that changed."""
    from asmcfg.compare import gate
    from asmcfg.run import wholediff
    from asmcfg.run.diff import DiffOptions, diff_problem, run

    try:
        conditions = gate.parse(fail_on)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--fail-on") from None
    selectors = _diff_selectors(new is None, pattern, compile_ids, compiler, sides)
    options = DiffOptions(
        old=old, new=new or old, old_selector=selectors[0], new_selector=selectors[1], json=json_, dot=dot,
        svg=svg, html=html, fail_on=conditions, old_profile=sides["old_profile"], new_profile=sides["new_profile"],
        old_log=sides["old_log"] or log, new_log=sides["new_log"] or log, jdk=jdk,
        syntax=Syntax(syntax), input_format=None if input_format == "auto" else DialectName(input_format),
        fold=not no_fold, renderer=renderer, render_timeout=render_timeout, quiet=quiet, source_path=source_path,
    )
    whole = wholediff.wanted(options)  # two logs, no selector: every method both compiled
    problem = diff_problem(options) or (wholediff.problem(options) if whole else None)  # before anything is read
    if problem is not None:
        raise click.UsageError(problem)
    sys.exit(guarded(lambda: wholediff.run(options) if whole else run(options), old, debug))


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
            _compiler(sides[f"{side}_compiler"] or compiler),
        ))
    if one_input and selectors[0] == selectors[1]:
        raise click.UsageError(
            "one input needs two compilations: --compile-id OLD --compile-id NEW, or --old-…/--new-… selectors"
        )
    return selectors[0], selectors[1]


def _compiler(name: str | None) -> Compiler | None:
    return Compiler(name) if name else None
