"""What the two commands share: the input formats they accept and click's settings."""

from __future__ import annotations

from typing import Any

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
