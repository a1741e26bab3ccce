"""What `asmcfg diff` does: read both compilations, analyse them, match, report, gate."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from asmcfg import describe
from asmcfg.compare import gate, items, report
from asmcfg.compare.match import Diff, diff
from asmcfg.errors import SelectionError
from asmcfg.model import Analysis, DialectName, JavaSources, Method, Syntax
from asmcfg.render import indented
from asmcfg.render.files import bytes_to, write_to
from asmcfg.render.summary import stderr_console
from asmcfg.run import outputs, selection
from asmcfg.run.log import Log
from asmcfg.run.pipeline import Picked, Selector
from asmcfg.terminal import visible

if TYPE_CHECKING:
    from rich.console import Console

    from asmcfg.run.drawings import Told


@dataclass(frozen=True, slots=True)
class DiffOptions:
    """Everything a diff run needs, already validated by the CLI."""

    old: str
    """Input holding the old compilation (`-` for stdin)."""
    new: str
    """Input holding the new one (may be the same input)."""
    old_selector: Selector = field(default_factory=Selector)
    """Which compilation of `old` is the old side."""
    new_selector: Selector = field(default_factory=Selector)
    """Which compilation of `new` is the new side."""
    json: str | None = None
    """Write the diff's JSON here (`-` for stdout)."""
    dot: str | None = None
    """Write the side-by-side DOT here (`-` for stdout)."""
    svg: str | None = None
    """Render the side-by-side graph to this SVG file."""
    fail_on: tuple[str, ...] = ()
    """`--fail-on` conditions, already parsed."""
    old_profile: str | None = None
    """A perfasm profile of the old side's run."""
    new_profile: str | None = None
    """A perfasm profile of the new side's run."""
    old_log: str | None = None
    """A LogCompilation log of the old side's run (for a text or hex dump)."""
    new_log: str | None = None
    """A LogCompilation log of the new side's run."""
    html: str | None = None
    """Write both compilations' pages side by side to this HTML file (`-` for stdout)."""
    jdk: int | None = None
    """Force the JDK whose trap-reason table is used on both sides."""
    syntax: Syntax = Syntax.ATT
    """x86 syntax for decoded hex."""
    input_format: DialectName | None = None
    """Force a dialect instead of sniffing."""
    fold: bool = True
    """Fold chains of cold out-of-line blocks in the graph."""
    renderer: str = "auto"
    """Graphviz to use for SVG."""
    render_timeout: float = 60.0
    """Seconds Graphviz may take."""
    quiet: bool = False
    """No tables on stderr (failed conditions are still named)."""
    source_path: tuple[str, ...] = ()
    """Folders of .java sources the --html page shows beside each graph."""


def run(options: DiffOptions) -> int:
    """Carry out one diff; returns the exit status (0, or gate.EXIT_CODE when a condition holds)."""
    outputs.check_targets(diff_outputs(options), stdout=False)  # before anything is read
    old, new = read_sides(options)
    result = diff(items.side(old), items.side(new))
    failures = gate.check(result, options.fail_on)
    write_outputs(result, failures if options.fail_on else None, options)
    err = stderr_console()
    if not options.quiet:
        report.write_tables(result, err)
    say_failures(failures, err)
    return gate.EXIT_CODE if failures else 0


def say_failures(failures: list[gate.Failure], err: Console) -> None:
    """One stderr line per place where a `--fail-on` condition holds, its text from the log made visible."""
    for failure in failures:
        err.print(visible(f"asmcfg diff: --fail-on {failure.condition}: {failure.where}"), highlight=False)


def diff_outputs(options: DiffOptions) -> list[outputs.Named]:
    """The outputs a diff was asked for, in the order of its flags."""
    return outputs.named(("--json", options.json), ("--dot", options.dot), ("--svg", options.svg),
                         ("--html", options.html))


def diff_problem(options: DiffOptions) -> str | None:
    """Why the diff's flags cannot be carried out as given (an output on stdout twice, or over an input)."""
    inputs = outputs.named(("OLD", options.old), ("NEW", options.new), ("--old-log", options.old_log),
                           ("--new-log", options.new_log), ("--old-profile", options.old_profile),
                           ("--new-profile", options.new_profile))
    if options.source_path and options.html is None:
        return "--source-path shows the sources in the --html page: give --html FILE too"
    return outputs.problem(diff_outputs(options), inputs, options.source_path)


def read_sides(options: DiffOptions) -> tuple[Analysis, Analysis]:
    """The two analysed compilations, chosen by the rule `asmcfg` itself follows (`Log.choose`) and said on stderr;
    one input read once when both sides come from it."""
    logs = open_sides(options)
    if options.old == options.new:
        picks = logs[0].choose_each((options.old_selector, options.new_selector))
        logs = (logs[0], logs[0])
    else:
        picks = [logs[0].choose_by(options.old_selector), logs[1].choose_by(options.new_selector)]
    for picked, selector, side in zip(picks, (options.old_selector, options.new_selector), ("old", "new"),
                                      strict=True):
        if not options.quiet and (picked.candidates > 1 or picked.inlined is not None):  # a rule chose it
            selection.say_choice(stderr_console(), picked, selector, f"{side}: ")
    old, new = (picked.method for picked in picks)
    _same_method(old, new, options)
    return _analysed(logs[0], picks[0], options), _analysed(logs[1], picks[1], options)


def open_sides(options: DiffOptions) -> tuple[Log, Log]:
    """The two inputs opened, each with its own `--old-log`/`--new-log` and profile; a record folder resolved to its
    JVM's log and samples."""
    return (Log(options.old, log=options.old_log, profile=options.old_profile, input_format=options.input_format,
                syntax=options.syntax, jdk=options.jdk),
            Log(options.new, log=options.new_log, profile=options.new_profile, input_format=options.input_format,
                syntax=options.syntax, jdk=options.jdk))


def _same_method(old: Method, new: Method, options: DiffOptions) -> None:
    """Two different methods are compared only when asked for by name or compile id on each side."""
    if old.header.name == new.header.name:
        return
    named = all(s.pattern is not None or s.compile_id is not None
                for s in (options.old_selector, options.new_selector))
    if not named:
        raise SelectionError(
            f"the two sides are different methods ({old.header.name} and {new.header.name}): name the method "
            "with --method (or each side with --old-method/--new-method, --old-compile-id/--new-compile-id)",
            old.source)


def _analysed(log: Log, picked: Picked, options: DiffOptions) -> Analysis:
    """The side's compilation with its run's log records and profile heat, analysed as every mode does."""
    done = log.analyse(picked)
    if done.overlay is not None and not options.quiet:
        prefix = "profile" if done.overlay.matched else "profile NOT applied"
        stderr_console().print(visible(f"{prefix} ({log.profile}): {done.overlay.message}"), highlight=False)
    return done.analysis


def write_outputs(result: Diff, failures: list[gate.Failure] | None, options: DiffOptions) -> None:
    """JSON, DOT, SVG and HTML, each written atomically where asked; exit 3 (RenderError) once they are written
    when Graphviz could draw a side of the page in no way."""
    from asmcfg.run import drawings

    told = drawings.Told("--html")
    if options.svg or options.dot:
        from asmcfg.compare import dot

        text = io.StringIO()
        dot.write_diff_dot(result, text, options.fold)
        if options.svg:
            from asmcfg.render.svg import render_svg

            bytes_to(options.svg, render_svg(text.getvalue(), options.render_timeout, options.renderer))
            _wrote(options.svg, result, options.quiet)
        if options.dot:
            write_to(options.dot, lambda out: _write(out, text.getvalue()))
    if options.html:
        write_to(options.html, lambda out: write_page(result, out, options, told))
        _wrote(options.html, result, options.quiet)
    if options.json:
        document = report.document(result, failures)
        write_to(options.json, lambda out: _write(out, indented.dumps(document) + "\n"))
    drawings.finish(told, selected=True)


def write_page(result: Diff, out: TextIO, options: DiffOptions, told: Told) -> None:
    """The side-by-side page of the two compilations, drawn as `--renderer` asks (another way when Graphviz fails:
    `told` notes which), their sources beside them."""
    from asmcfg.compare.html import write_diff_html
    from asmcfg.render.html import PageOptions
    from asmcfg.run import drawings

    render, others = drawings.renderers(options.renderer, options.render_timeout)
    page = PageOptions(render=render, fold=options.fold, sources=diff_sources(result, options.source_path),
                       others=others, told=told)
    write_diff_html(result, out, page)


def diff_sources(result: Diff, source_path: tuple[str, ...]) -> JavaSources | None:
    """The .java files of both sides' methods found under `source_path` (None when no folder is given)."""
    if not source_path:
        return None
    from asmcfg.sources.java import find_sources, folders

    analysed = (result.old.result, result.new.result)
    names = {f.method for r in analysed for ins in r.cfg.method.instructions for f in ins.frames}
    names |= {r.cfg.method.header.name for r in analysed}
    return find_sources(folders(source_path), names)


def _wrote(path: str, result: Diff, quiet: bool) -> None:
    """`wrote FILE: old -> new` on stderr, as the main command says what it wrote (not for stdout)."""
    if quiet or path == outputs.STD:
        return
    names = " -> ".join(describe.compilation(side.result.cfg.method.header) for side in (result.old, result.new))
    stderr_console().print(visible(f"wrote {path}: {names}"), highlight=False, markup=False, soft_wrap=True)


def _write(out: TextIO, text: str) -> None:
    out.write(text)
