"""What the user asked for, in words, and the message when nothing in the input matches it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from asmcfg import describe
from asmcfg.model import Compiler
from asmcfg.terminal import visible

if TYPE_CHECKING:
    from rich.console import Console

    from asmcfg.run.pipeline import Picked, Selector

_MAX_SUGGESTIONS = 3


def wanted(pattern: str | None, compile_id: int | None, compiler: Compiler | None) -> str:
    """The selection in words: `method 'Foo::bar' (compile id 7, c2)`, `compile id 7`, `c1 compilation`."""
    if pattern is not None:
        extras = [f"compile id {compile_id}"] if compile_id is not None else []
        extras += [compiler] if compiler is not None else []
        return f"method {pattern!r}" + (f" ({', '.join(extras)})" if extras else "")
    if compile_id is not None:
        return f"compile id {compile_id}" + (f" ({compiler})" if compiler is not None else "")
    return f"{compiler} compilation" if compiler is not None else "compilation"


def not_found(what: str, total: int, names: Iterable[str] = (), pattern: str | None = None) -> str:
    """`method 'Foo::bar' not found; 12 compilations in input (see --list; did you mean 'Foo::baz'?)`."""
    plural = "compilation" if total == 1 else "compilations"
    hint = "see --list"
    close = _close_names(pattern, names) if pattern else []
    if close:
        hint += "; did you mean " + " or ".join(repr(n) for n in close) + "?"
    return f"{what} not found; {total} {plural} in input ({hint})"


def _close_names(pattern: str, names: Iterable[str]) -> list[str]:
    """Names that contain the pattern (without its wildcards), then names spelled like it."""
    choices = sorted(set(names))
    bare = {name.split("::", 1)[-1]: name for name in choices}
    core = pattern.split("::")[-1].strip("*?").lower()
    close = [n for b, n in bare.items() if core and "*" not in core and "?" not in core and core in b.lower()]
    close += difflib.get_close_matches(pattern, choices, _MAX_SUGGESTIONS, 0.6)
    close += [bare[b] for b in difflib.get_close_matches(pattern, list(bare), _MAX_SUGGESTIONS, 0.6)]
    return list(dict.fromkeys(close))[:_MAX_SUGGESTIONS]


def say_choice(err: Console, picked: Picked, selector: Selector, side: str = "") -> None:
    """Which compilation was chosen and by what rule, with how many others there are; `side` (`old: `) starts
    each line."""

    def say(line: str) -> None:
        err.print(visible(side + line), highlight=False, markup=False, soft_wrap=True)

    if picked.rule in ("profile", "unprinted"):
        why = ("the profile's samples land on" if picked.rule == "profile"
               else "the profile names as the run's hottest (perfasm did not print it)")
        counted = "" if picked.total is None else f", of {picked.total} in the input"
        say(f"chose the compilation {why}{counted} (see --list)")
        return
    if picked.inlined is not None:
        say(f"no compilation is named {selector.pattern!r}: chose among those that inline {picked.inlined}")
    if picked.candidates == 1:
        if picked.total is not None and picked.total > 1:
            say(f"{picked.total} compilations in the input: see --list")
        return
    share = picked.method.profile.run_share if picked.method.profile is not None else ()
    basis = "its JVM's samples" if picked.method.profile is not None and picked.method.profile.samples else "its run"
    rule = {"hottest": f"the hottest ({describe.percent(share)} of {basis})", "last_c2": "the last C2",
            "last": "the last"}[picked.rule]
    kind = "matching compilations" if selector.any else "compilations in the input"
    names = ""
    if len(picked.names) > 1 and selector.pattern is not None:
        shown = ", ".join(picked.names[:NAMES_SHOWN]) + (", …" if len(picked.names) > NAMES_SHOWN else "")
        names = f" (of {len(picked.names)} methods: {shown}; narrow the pattern or give --compile-id)"
    others = 0 if picked.total is None else picked.total - picked.candidates
    tail = f"; {others} other compilations in the input" if others else ""
    say(f"chose {rule} of {picked.candidates} {kind}{names}{tail}: see --list")


NAMES_SHOWN = 4
