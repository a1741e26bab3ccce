"""Where a run's outputs go, checked before any input is read.

A usage problem (`problem`) is an output that is one of the inputs (the same file by device and inode, through
links and `..`), or an existing `.java` file inside a `--source-path` folder, two outputs on stdout, two
outputs that are one file, or an output flag the chosen mode would ignore; the CLI reports it as a usage error.
`check_targets` then stops a run whose output could not be written (a missing or read-only folder, a closed
stdout) before it reads anything.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from asmcfg.errors import OutputError
from asmcfg.run.options import Options

STD = "-"
"""An input read from stdin, or an output written to stdout."""
PAGE_SUFFIXES = (".html", ".htm")
"""What names `--all --html` one page rather than a folder, when nothing exists there yet."""


def html_folder(options: Options) -> bool:
    """True when `--all --html PATH` names a folder to fill with an index and a page per compilation: PATH is an
    existing folder, ends with `/`, or does not exist and does not end with `.html` or `.htm`. Anything else (an
    existing file, `x.html`, `-`) is one page, as without `--all`."""
    path = options.html
    if not options.all or path is None or path == STD:
        return False
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        return True
    return not os.path.lexists(path) and not path.lower().endswith(PAGE_SUFFIXES)


@dataclass(frozen=True, slots=True)
class Named:
    """A file named on the command line."""

    flag: str
    """The flag that names it (`--json`), or the argument's name (`FILE`) for an input."""
    path: str
    """The path as given; `-` is stdin for an input, stdout for an output."""


def named(*pairs: tuple[str, str | None]) -> list[Named]:
    """The (flag, path) pairs whose path is given."""
    return [Named(flag, path) for flag, path in pairs if path is not None]


def run_outputs(options: Options) -> list[Named]:
    """The outputs a main run was asked for, in the order of its flags."""
    return named(("--json", options.json), ("--jsonl", options.jsonl), ("--svg", options.svg),
                 ("--html", options.html), ("--dot", options.dot))


def check_run(options: Options) -> None:
    """A main run's outputs checked before anything is read (DOT or `--list` rows go to stdout when no output is
    named): one that cannot be written fails now, not after a long analysis."""
    writes = run_outputs(options)
    stdout = options.list or not writes
    if html_folder(options):
        from asmcfg.render.files import check_folder

        assert options.html is not None
        check_folder(options.html)
        writes = [w for w in writes if w.flag != "--html"]
    check_targets(writes, stdout=stdout)


def run_problem(options: Options) -> str | None:
    """Why the main run's flags cannot be carried out as given, else None."""
    outputs = run_outputs(options)
    inputs = named(("FILE", options.input), ("--log", options.log), ("--profile", options.profile))
    return ignored(options, outputs) or problem(outputs, inputs, options.source_path) or _in_export(options, inputs)


def _in_export(options: Options, inputs: Sequence[Named]) -> str | None:
    """An input inside the folder `--all --html DIR` writes (which a later export would treat as its own)."""
    if not html_folder(options):
        return None
    assert options.html is not None
    for source in inputs:
        if source.path != STD and _inside(source.path, options.html):
            return (f"{source.flag} {source.path} lies inside the folder --html {options.html} writes: move it out "
                    "or name another folder")
    return None


def ignored(options: Options, outputs: Sequence[Named]) -> str | None:
    """An output flag the mode the flags choose would not write."""
    others = [o for o in outputs if o.flag not in ("--json", "--html")]
    if options.timeline and (others or options.list or options.all):
        dropped = _flags(others) if others else "--list" if options.list else "--all"
        return f"--timeline prints the run over time (its JSON, its page) and nothing else: drop {dropped}"
    others = [o for o in outputs if o.flag != "--json"]
    if options.list and others:
        return f"--list prints the table (or with --json its rows) and writes nothing else: drop {_flags(others)}"
    others = [o for o in outputs if o.flag != "--jsonl"]
    if options.jsonl is not None and others:
        return f"--jsonl writes every compilation as JSON Lines and nothing else: drop {_flags(others)}"
    others = [o for o in outputs if o.flag != "--html"]
    if html_folder(options) and others:
        return f"--all --html DIR writes a folder of pages and nothing else: drop {_flags(others)}"
    if options.top is not None and options.input == STD:
        return "--top reads the input twice (to rank, then to write): name a FILE, not -"
    if options.source_path and options.html is None:
        return "--source-path shows the sources in the --html report: give --html FILE too"
    if options.class_path and options.html is None and not options.findings:
        return "--classpath shows the bytecode in the --html report and --findings: give either too"
    return None


def problem(outputs: Sequence[Named], inputs: Sequence[Named], source_path: Iterable[str] = ()) -> str | None:
    """Two outputs on stdout, an output that is an input, two outputs that are one file, or an output named for
    another format than its flag writes; else None."""
    on_stdout = [o for o in outputs if o.path == STD]
    if len(on_stdout) > 1:
        both = "both" if len(on_stdout) == 2 else "all"
        return f"{_flags(on_stdout)} {both} write to stdout: give all but one of them a FILE"
    files = [o for o in outputs if o.path != STD]
    flag_like = next((o for o in files if o.path.startswith("--")), None)
    if flag_like is not None:  # `--jsonl --facts`: click took the next flag for the file name
        return (f"{flag_like.flag} {flag_like.path}: {flag_like.flag} takes a FILE (- for stdout), not a flag: "
                f"give it a name, or ./{flag_like.path} for a file whose name starts with --")
    for output in files:
        clash = _input_clash(output, inputs, source_path)
        if clash is not None:
            return clash
    seen: dict[tuple[int, int] | str, Named] = {}
    for output in files:
        key = _identity(output.path)
        if key is None:
            continue
        if key in seen:
            return f"{seen[key].flag} and {output.flag} both write {output.path}: give each its own FILE"
        seen[key] = output
    return next(filter(None, map(_kind_clash, files)), None)


WRITES = {"--svg": ("svg",), "--html": ("html", "htm"), "--json": ("json",), "--jsonl": ("jsonl", "json", "ndjson"),
          "--dot": ("dot", "gv")}
"""What each output flag writes, as the file name endings that say so."""
KNOWN_KINDS = frozenset({"svg", "html", "htm", "json", "jsonl", "ndjson", "dot", "gv", "png", "jpg", "jpeg", "gif",
                         "webp", "bmp", "tif", "tiff", "pdf", "eps", "ps"})
"""File name endings that name a format asmcfg writes or an image's: an output named for another one than its flag
writes is a usage error (a name that says nothing of a format, `.txt` or none, is the user's choice)."""


def _kind_clash(output: Named) -> str | None:
    """An output whose file name names another format than the flag writes (`--svg out.png`), else None."""
    wanted = WRITES.get(output.flag)
    ending = os.path.splitext(output.path)[1][1:].lower()
    if wanted is None or not ending or ending in wanted or ending not in KNOWN_KINDS or os.path.isdir(output.path):
        return None
    return (f"{output.flag} {output.path}: {output.flag} writes {wanted[0].upper()}, not {ending.upper()}: name the "
            f"file {output.path[:-len(ending)]}{wanted[0]} (asmcfg writes no {ending.upper()}; convert the "
            f"{wanted[0].upper()} with another tool)")


def check_targets(outputs: Iterable[Named], stdout: bool) -> None:
    """OutputError before any input is read when an output could not be written: stdout closed (`stdout`: the
    run writes there even if no output is `-`), a folder missing or not writable."""
    from asmcfg.render.files import check_target
    from asmcfg.run.guard import stdout_closed

    for output in outputs:
        if output.path == STD:
            stdout = True
        else:
            check_target(output.path)
    if stdout and stdout_closed():
        raise OutputError("standard output is closed: name a FILE for the output, or leave stdout open")


def _input_clash(output: Named, inputs: Sequence[Named], source_path: Iterable[str]) -> str | None:
    """Why writing `output` would destroy an input, else None (a missing output is no input)."""
    found = _stat(output.path)
    if found is None:
        return None
    for source in inputs:
        read = _stat_input(source.path)
        if read is not None and (read.st_dev, read.st_ino) == (found.st_dev, found.st_ino):
            what = "the file on standard input" if source.path == STD else f"the input {source.path}"
            return f"{output.flag} {output.path} would overwrite {what} ({source.flag}): name another FILE"
    if output.path.endswith(".java"):
        for folder in (part for value in source_path for part in value.split(os.pathsep) if part):
            if _inside(output.path, folder):
                return (f"{output.flag} {output.path} would overwrite a source of --source-path {folder}: "
                        "name another FILE")
    return None


def _inside(path: str, folder: str) -> bool:
    """True when `path` resolves to a place under `folder` (resolved too)."""
    real, root = os.path.realpath(path), os.path.realpath(folder)
    return os.path.isdir(root) and os.path.commonpath([real, root]) == root


def _stat(path: str) -> os.stat_result | None:
    """The regular file at `path` (links followed); None when there is none, or it is a device or a pipe."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found if stat.S_ISREG(found.st_mode) else None


def _stat_input(path: str) -> os.stat_result | None:
    """The regular file an input is read from: stdin's when it is `-` and redirected from a file."""
    if path != STD:
        return _stat(path)
    try:
        found = os.fstat(sys.stdin.fileno()) if sys.stdin is not None else None
    except (OSError, ValueError, AttributeError):
        return None
    return found if found is not None and stat.S_ISREG(found.st_mode) else None


def _identity(path: str) -> tuple[int, int] | str | None:
    """What makes two output paths one file: device and inode of an existing regular file, else the resolved
    path; None for a device or a pipe (`/dev/null` may take several outputs)."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None


def _flags(outputs: Sequence[Named]) -> str:
    names = [o.flag for o in outputs]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
