"""The `asmcfg` command: `--version`, `--help` and `FILE --list` of a large file answered without loading the
CLI; all else goes to it."""

from __future__ import annotations

import gc
import os
import sys

from asmcfg import __version__
from asmcfg.run import YOUNG_COLLECTION

HELP_COLUMNS = {80: 78, 100: 98}
"""Terminal columns (capped at the CLI's 100) -> the width click formats help to: the stored help's widths."""


def main() -> None:
    """Run the command line; `--version` and `--help` alone print click's text without importing click, and
    `FILE --list` (either order) of a file listed from the header index runs that listing without it. What is
    left when it ends is frozen out of the collector's reach: Python's exit would walk all of it again, in
    collections that free nothing a process about to end needs freed (its files are closed, its outputs written,
    and its exit handlers still run), 35-40 ms of an open's exit."""
    gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])
    try:
        _command()
    finally:
        gc.freeze()


def _command() -> None:
    args = sys.argv[1:]
    if any(key.endswith("_COMPLETE") for key in os.environ):
        args = []  # shell completion: click's
    if len(args) == 2 and "--list" in args:
        _list_large(args[1 - args.index("--list")])
    if len(args) == 1:
        if args[0] == "--version":
            sys.stdout.write(f"{program_name()}, version {__version__}\n")
            return
        if args[0] in ("--help", "-h"):
            width = HELP_COLUMNS.get(min(columns(), 100))
            if width is not None:
                from asmcfg.help_text import HELP

                sys.stdout.write(HELP[width].replace("Usage: asmcfg ", f"Usage: {program_name()} ", 1))
                return
    from asmcfg.cli import main as cli

    cli()


def _list_large(path: str) -> None:
    """Exit with the listing of `path` when it is a file large enough for the index; return otherwise."""
    if path.startswith("-") or path in ("diff", "serve", "record", "whatif"):  # an option, stdin, or a subcommand
        return
    from asmcfg.run import wholelog

    if wholelog.large(path):
        from asmcfg.run.guard import guarded

        sys.exit(guarded(lambda: wholelog.listing(path), path, False))


def program_name() -> str:
    """The name click shows for the program: the script's name, or `python -m PACKAGE` for `python -m`."""
    main_module = sys.modules["__main__"]
    path = sys.argv[0]
    package = getattr(main_module, "__package__", None)
    if package in (None, ""):
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def columns() -> int:
    """Terminal columns as `shutil.get_terminal_size` finds them (COLUMNS, then the terminal, then 80)."""
    try:
        found = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        found = 0
    if found <= 0:
        try:
            found = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            found = 0
    return found or 80
