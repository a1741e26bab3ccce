"""What the two commands share: the input formats they accept and click's settings."""

from __future__ import annotations

import math
from typing import Any

import click

from asmcfg.dialects import DIALECTS
from asmcfg.model import Compiler, Syntax

FORMATS = ("auto", *DIALECTS)
"""`--input-format` choices: sniffed, or one of the registry's dialects."""
CHOSEN_COMPILERS = tuple(c.value for c in (Compiler.C1, Compiler.C2, Compiler.JVMCI))
"""`--compiler` choices."""
SYNTAXES = tuple(s.value for s in (Syntax.ATT, Syntax.INTEL))
"""`--syntax` choices: how asmcfg spells the x86 instructions it decodes."""
SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
"""click's context settings for both commands."""


class Seconds(click.FloatRange):
    """A number of seconds in a range; `nan`, which every comparison lets through, is refused too."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The number, or a usage error naming the flag."""
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        return number


RENDER_TIMEOUT = Seconds(1, 3600)
"""`--render-timeout`: seconds Graphviz may take."""


Sections = tuple[tuple[str, tuple[str, ...]], ...]
_TERM_WIDTH = 30
"""click's widest first column in an option list: longer terms go on a line of their own."""


class Grouped(click.Command):
    """A command whose --help lists its options in named sections (`sections`: title and parameter names, in
    order), aligned as one list; `arguments` adds rows for positional arguments to the first section."""

    sections: Sections = ()
    arguments: tuple[tuple[str, str], ...] = ()

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each section's options under its title; a parameter no section names goes under `Other`."""
        records: dict[str | None, tuple[str, str]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
            if record is not None:
                records[param.name] = record
        rows = [(title, [records[n] for n in names if n in records]) for title, names in self.sections]
        rows[0][1][:0] = list(self.arguments)
        placed = {name for _, names in self.sections for name in names}
        rest = [r for name, r in records.items() if name not in placed]
        if rest and rows[-1][0] == "Other":
            rows[-1][1].extend(rest)
        elif rest:
            rows.append(("Other", rest))
        width = min(max(len(term) for _, section in rows for term, _ in section), _TERM_WIDTH)
        for title, section in rows:
            with formatter.section(title):  # terms padded alike: every section aligns with the others
                formatter.write_dl([(term.ljust(width), text) for term, text in section], col_max=_TERM_WIDTH)
