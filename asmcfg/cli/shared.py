"""What the two commands share: the input formats they accept and click's settings."""

from __future__ import annotations

from typing import Any

from asmcfg.dialects import DIALECTS

FORMATS = ("auto", *DIALECTS)
"""`--input-format` choices: sniffed, or one of the registry's dialects."""
SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
"""click's context settings for both commands."""
