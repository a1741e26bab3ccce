"""How text from the input is written where a reader sees it: quoted and clipped for Graphviz, and with its
bidirectional controls and invisible characters escaped in the report page, as the DOT writer escapes them."""

from __future__ import annotations

from asmcfg.terminal import BIDI_CONTROLS, INVISIBLE

SPOOFING = BIDI_CONTROLS | INVISIBLE
"""What the page shows escaped: the characters that reorder text or draw as nothing."""

MAX_LINE = 240
"""The longest line of a label, tooltip or title written to DOT; longer ones end in `...`."""


def shown_escape(char: str) -> str:
    """How a character that cannot be shown as itself is written instead: `\\x202e`."""
    return f"\\x{ord(char):02x}"


def visible(text: str) -> str:
    """`text` with each bidirectional control and invisible character written as `shown_escape` gives: how the
    page shows names."""
    if not SPOOFING.intersection(text):
        return text
    return "".join(shown_escape(char) if char in SPOOFING else char for char in text)


def quote(text: str) -> str:
    """A DOT double-quoted string whose content is shown literally.

    `&` is written `&amp;`: Graphviz decodes HTML entities in labels, so `&lt;` or `&nbsp;` in a comment would
    otherwise be shown as `<` or a non-breaking space instead of as printed. A character outside printable ASCII
    is shown as `shown_escape` writes it.
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
            out.append("\\" + shown_escape(char))
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
