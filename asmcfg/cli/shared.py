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
