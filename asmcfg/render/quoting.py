"""How text from the input is written for Graphviz: quoted to be shown literally, and clipped."""

from __future__ import annotations

MAX_LINE = 240
"""The longest line of a label, tooltip or title written to DOT; longer ones end in `...`."""


def quote(text: str) -> str:
    """A DOT double-quoted string whose content is shown literally.

    `&` is written `&amp;`: Graphviz decodes HTML entities in labels, so `&lt;` or `&nbsp;` in a comment would
    otherwise be shown as `<` or a non-breaking space instead of as printed.
    """
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "&":
            out.append("&amp;")
        elif char == "\n":
            out.append("\\l")
        elif ord(char) < 32 or ord(char) == 127 or ord(char) > 126:
            out.append(f"\\\\x{ord(char):02x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def clipped(text: str) -> str:
    """Each line of `text` cut to MAX_LINE characters: Graphviz runs out of memory on a megabyte label, rejects a
    node wider than it can place, and its lexer fails on a string of some 16,000 characters."""
    return "\n".join(line if len(line) <= MAX_LINE else line[: MAX_LINE - 3] + "..." for line in text.split("\n"))


def attrs(pairs: dict[str, str]) -> str:
    """A DOT attribute list, every value clipped and quoted: how every label, tooltip and title is written."""
    return "[" + " ".join(f"{key}={quote(clipped(value))}" for key, value in pairs.items()) + "]"
